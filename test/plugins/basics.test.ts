import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createHost } from '../../src/host/create-host.js'
import type { Host } from '../../src/host/host.js'
import { loadPluginFile } from '../../src/loader/load-plugins.js'
import { registry } from '../../src/registry/registry.js'
import type { ToolContext } from '../../src/contract/types.js'

let host: Host
const warnings: string[] = []

beforeAll(async () => {
  registry.clear()
  const loaded = await loadPluginFile(path.resolve('plugins/basics.ts'), registry)
  expect(loaded).toEqual({ ok: true, tools: ['current_time', 'echo', 'wait'] })
  const log = { debug() {}, info() {}, warn: (message: string) => warnings.push(message), error: (message: string) => warnings.push(message) }
  host = await createHost({ config: { plugins: { dirs: [] }, env_file: '', dispatch: { timeout_ms: 150, interrupt_grace_ms: 100 } }, loadPlugins: false, log })
})

afterAll(() => host.close())

test.each(['echo', 'current_time', 'wait'])('%s is read-only, parallel-safe and in the basics toolset', (name) => {
  const tool = registry.get(name)!
  expect(tool).toMatchObject({ toolset: 'basics', parallelSafe: true })
  expect(tool.readOnly({})).toBe(true)
  expect(tool.destructive({})).toBe(false)
})

describe('echo', () => {
  test.each(['hi', '', 'line 1\nline 2', '{"not": "parsed"}'])('echoes %j back unchanged', async (text) => {
    expect(await host.call({ id: 'e', name: 'echo', arguments: JSON.stringify({ text }) })).toEqual({ id: 'e', name: 'echo', ok: true, content: text })
  })

  test('needs text', async () => {
    expect((await host.call({ id: 'e', name: 'echo', arguments: '{}' })).error).toEqual({
      code: 'E_ARGS_INVALID',
      message: 'invalid arguments for echo: `text` is required but missing. Fix these fields and call again.',
    })
  })
})

describe('current_time', () => {
  test('without a time zone: the current instant as ISO 8601 UTC', async () => {
    const before = Date.now()
    const result = await host.call({ id: 't', name: 'current_time', arguments: '' })
    const after = Date.now()
    expect(result.content).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    const at = Date.parse(result.content)
    expect(at).toBeGreaterThanOrEqual(before)
    expect(at).toBeLessThanOrEqual(after)
  })

  test.each(['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata'])('in %s: also the local wall time there', async (timezone) => {
    const result = await host.call({ id: 't', name: 'current_time', arguments: JSON.stringify({ timezone }) })
    const match = /^(\S+Z) \((.+): (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\)$/.exec(result.content)
    expect(match, result.content).not.toBeNull()
    expect(match![2]).toBe(timezone)
    const expected = new Date(match![1]!).toLocaleString('sv-SE', { timeZone: timezone, hour12: false })
    expect(match![3]).toBe(expected)
  })

  test('an unknown time zone is E_TOOL_FAILED saying what to use', async () => {
    const result = await host.call({ id: 't', name: 'current_time', arguments: '{"timezone":"Mars/Olympus"}' })
    expect(result.error).toEqual({ code: 'E_TOOL_FAILED', message: 'current_time failed: unknown time zone "Mars/Olympus"; use an IANA name such as "UTC" or "America/New_York"' })
  })
})

describe('wait', () => {
  test('waits and says how long', async () => {
    const result = await host.call({ id: 'w', name: 'wait', arguments: '{"ms": 5}' })
    expect(result.ok).toBe(true)
    expect(Number(/^waited (\d+) ms$/.exec(result.content)?.[1])).toBeGreaterThanOrEqual(4)
  })

  test.each([
    { args: '{"ms": 60001}', message: '`ms` must be <= 60000, got 60001' },
    { args: '{"ms": -1}', message: '`ms` must be >= 0, got -1' },
    { args: '{"ms": 1.5}', message: '`ms` must be integer, got number' },
  ])('$args is refused: $message', async ({ args, message }) => {
    expect((await host.call({ id: 'w', name: 'wait', arguments: args })).error?.message).toContain(message)
  })

  test('honours an interrupt: stops at once and is answered E_INTERRUPTED', async () => {
    const controller = new AbortController()
    const stop = host.onEvent((event) => {
      if (event.type === 'started') queueMicrotask(() => controller.abort())
    })
    try {
      const [result] = await host.run([{ id: 'w', name: 'wait', arguments: '{"ms": 60000}' }], { signal: controller.signal })
      expect(result!.error?.code).toBe('E_INTERRUPTED')
    } finally {
      stop()
    }
  })

  // Timing: the host's dispatch.timeout_ms is 150 ms here.
  test('honours a timeout: E_TIMEOUT, and the handler settles (its worker is not abandoned)', async () => {
    const result = await host.call({ id: 'w', name: 'wait', arguments: '{"ms": 60000}' })
    expect(result.error?.code).toBe('E_TIMEOUT')
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect(host.stats.running).toBe(0)
    expect(warnings).toEqual([])
  })

  test('a signal aborted before the handler starts rejects at once instead of waiting', async () => {
    const controller = new AbortController()
    controller.abort(new Error('stopped before it began'))
    const ctx = { call: { signal: controller.signal } } as unknown as ToolContext
    await expect(Promise.resolve(registry.get('wait')!.handler({ ms: 60000 }, ctx))).rejects.toThrow('stopped before it began')
  })
})
