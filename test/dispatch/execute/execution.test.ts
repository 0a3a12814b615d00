/**
 * Execution through the host: timeouts, interrupts, abandonment, context-changing tools, the worker
 * limit's env override, result size limits, and result order (run) vs completion order (stream).
 * Concurrency is driven by gates; the few tests that need a real timer to fire say so in their name.
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { defineTool } from '../../../src/contract/define-tool.js'
import { createDeferred, type Deferred } from '../../../src/contract/deferred.js'
import { createHost } from '../../../src/host/create-host.js'
import type { Host } from '../../../src/host/host.js'
import type { HostEvent } from '../../../src/observe/host-events.js'
import type { HostOptions } from '../../../src/host/host-types.js'
import { registry } from '../../../src/registry/registry.js'
import type { ToolContext, ToolResult, ToolSpec } from '../../../src/contract/types.js'

const params = { type: 'object', properties: { path: { type: 'string' }, tag: { type: 'string' } }, additionalProperties: false }
let root: string
let warnings: string[]
const hosts: Host[] = []

function tool(spec: Partial<ToolSpec> & { name: string; handler: ToolSpec['handler'] }): void {
  registry.register(defineTool({ description: 'test tool', parameters: params, ...spec }))
}

async function makeHost(dispatch: Record<string, unknown> = {}, extra: Partial<HostOptions> = {}, limits: Record<string, unknown> = {}): Promise<Host> {
  const log = { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (m: string, fields?: Record<string, unknown>) => void warnings.push(fields === undefined ? m : `${m} ${JSON.stringify(fields)}`) }
  const host = await createHost({
    root,
    loadPlugins: false,
    log,
    env: {},
    config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, dispatch, limits },
    ...extra,
  })
  hosts.push(host)
  return host
}

function startedOf(host: Host, id: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = host.onEvent((e: HostEvent) => {
      if (e.type === 'started' && e.id === id) {
        stop()
        resolve()
      }
    })
  })
}

function untilAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve()
    else signal.addEventListener('abort', () => resolve(), { once: true })
  })
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-exec-')))
  warnings = []
  registry.clear()
})

afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close()
  registry.clear()
  rmSync(root, { recursive: true, force: true })
})

describe('timeouts', () => {
  test('E_TIMEOUT is answered at once, while a later conflicting call waits until the timed-out handler settles (timer-based: 20 ms timeout)', async () => {
    const lingering = createDeferred<void>()
    let readStarted = false
    tool({
      name: 'slow_write',
      pathScoped: true,
      timeoutMs: 20,
      handler: async (_args, ctx) => {
        await untilAbort(ctx.call.signal)
        await lingering.promise // still writing after its abort
        return 'late'
      },
    })
    tool({ name: 'read', pathScoped: true, readOnly: () => true, handler: () => { readStarted = true; return 'read done' } })
    const host = await makeHost({ interrupt_grace_ms: 60_000 })
    const stream = host.stream([
      { id: 'w', name: 'slow_write', arguments: { path: 'a' } },
      { id: 'r', name: 'read', arguments: { path: 'a/b' } },
    ])
    const first = await stream.next()
    expect(first.value).toMatchObject({ id: 'w', ok: false, error: { code: 'E_TIMEOUT', message: expect.stringMatching(/^timed out after 20 ms running slow_write/) } })
    expect(readStarted).toBe(false)
    expect(host.stats.pending).toBe(2)
    lingering.resolve()
    const second = await stream.next()
    expect(second.value).toMatchObject({ id: 'r', ok: true, content: 'read done' })
    expect(readStarted).toBe(true)
  })

  test.each([
    ['the tool timeoutMs (20) beats a long dispatch.timeout_ms', 20, 60_000, /timed out after 20 ms/],
    ['dispatch.timeout_ms (20) applies when the tool sets none', undefined, 20, /timed out after 20 ms/],
  ])('%s (timer-based)', async (_why, toolTimeout, dispatchTimeout, message) => {
    tool({ name: 'hang', parallelSafe: true, ...(toolTimeout ? { timeoutMs: toolTimeout } : {}), handler: async (_a, ctx) => { await untilAbort(ctx.call.signal); throw new Error('aborted') } })
    const host = await makeHost({ timeout_ms: dispatchTimeout })
    const [result] = await host.run([{ id: 'h', name: 'hang' }])
    expect(result).toMatchObject({ ok: false, error: { code: 'E_TIMEOUT', message } })
  })

  test('a tool timeoutMs longer than dispatch.timeout_ms lets it finish (timer-based: 20 ms dispatch timeout)', async () => {
    tool({ name: 'patient', parallelSafe: true, timeoutMs: 60_000, handler: async () => { await new Promise((r) => setTimeout(r, 60)); return 'finished' } })
    const host = await makeHost({ timeout_ms: 20 })
    expect((await host.run([{ id: 'p', name: 'patient' }]))[0]).toMatchObject({ ok: true, content: 'finished' })
  })
})

describe('interrupts', () => {
  test('a running call is E_INTERRUPTED; a call that had not started is E_ABORTED', async () => {
    tool({ name: 'work', pathScoped: true, handler: async (_a, ctx) => { await untilAbort(ctx.call.signal); throw new Error('stopped') } })
    let secondRan = false
    tool({ name: 'after', pathScoped: true, handler: () => { secondRan = true; return 'x' } })
    const host = await makeHost()
    const controller = new AbortController()
    const started = startedOf(host, 'one')
    const run = host.run([{ id: 'one', name: 'work', arguments: { path: 'f' } }, { id: 'two', name: 'after', arguments: { path: 'f' } }], { signal: controller.signal })
    await started
    controller.abort()
    const [one, two] = await run
    expect(one).toMatchObject({ id: 'one', error: { code: 'E_INTERRUPTED', message: expect.stringMatching(/interrupted while running; it may have partly run/) } })
    expect(two).toMatchObject({ id: 'two', error: { code: 'E_ABORTED', message: expect.stringMatching(/skipped: interrupted before it started/) } })
    expect(secondRan).toBe(false)
  })

  test('a running call that finishes within interrupt_grace_ms keeps its result', async () => {
    tool({ name: 'tidy', parallelSafe: true, handler: async (_a, ctx) => { await untilAbort(ctx.call.signal); return 'stopped cleanly with partial output' } })
    const host = await makeHost({ interrupt_grace_ms: 60_000 })
    const controller = new AbortController()
    const started = startedOf(host, 't')
    const run = host.run([{ id: 't', name: 'tidy' }], { signal: controller.signal })
    await started
    controller.abort()
    expect((await run)[0]).toMatchObject({ ok: true, content: 'stopped cleanly with partial output' })
  })

  test('a handler ignoring its interrupt is answered E_INTERRUPTED after the grace and abandoned: its reservation is released and a warning says why (timer-based: 20 ms grace)', async () => {
    const never = createDeferred<void>()
    tool({ name: 'stubborn', pathScoped: true, handler: async () => { await never.promise; return 'never' } })
    const host = await makeHost({ interrupt_grace_ms: 20 })
    const events: HostEvent[] = []
    host.onEvent((e) => events.push(e))
    const controller = new AbortController()
    const started = startedOf(host, 's')
    const run = host.run([{ id: 's', name: 'stubborn', arguments: { path: 'f' } }], { signal: controller.signal })
    await started
    controller.abort()
    expect((await run)[0]).toMatchObject({ error: { code: 'E_INTERRUPTED' } })
    await host.close()
    expect(events.filter((e) => e.type === 'released')).toEqual([expect.objectContaining({ id: 's', abandoned: true })])
    expect(host.stats.pending).toBe(0)
    expect(warnings.join('\n')).toMatch(/stubborn ignored its interrupt for 20 ms; its worker slot and path reservations are released.*"callId":"s"/)
    never.resolve()
  })

  test('a signal aborted before the run skips every call (E_ABORTED) and runs no handler', async () => {
    let ran = 0
    tool({ name: 'any', parallelSafe: true, handler: () => String(++ran) })
    const host = await makeHost()
    const results = await host.run([{ id: 'a', name: 'any' }, { id: 'b', name: 'any' }], { signal: AbortSignal.abort() })
    expect(results.map((r) => r.error?.code)).toEqual(['E_ABORTED', 'E_ABORTED'])
    expect(ran).toBe(0)
  })
})

describe('context-changing tools', () => {
  test('a changesContext tool runs alone and later calls see its change to ctx.workspace.session', async () => {
    const gate = createDeferred<void>()
    const log: string[] = []
    tool({ name: 'peek', parallelSafe: true, handler: async (args: Record<string, unknown>, ctx: ToolContext) => { log.push(`peek ${String(args.tag)} start`); if (args.tag === 'before') await gate.promise; log.push(`peek ${String(args.tag)} end`); return ctx.workspace.session.cwd } })
    tool({ name: 'cd', parallelSafe: true, changesContext: true, handler: (args: Record<string, unknown>, ctx: ToolContext) => { log.push('cd'); ctx.workspace.session.cwd = path.join(ctx.workspace.root, String(args.path)); return 'ok' } })
    const host = await makeHost({ max_workers: 4 })
    const run = host.run([
      { id: 'p1', name: 'peek', arguments: { tag: 'before' } },
      { id: 'cd', name: 'cd', arguments: { path: 'sub' } },
      { id: 'p2', name: 'peek', arguments: { tag: 'after' } },
    ])
    await new Promise((r) => setImmediate(r))
    expect(log).toEqual(['peek before start']) // cd waits for the earlier call; p2 waits for cd
    gate.resolve()
    const [p1, , p2] = await run
    expect(log).toEqual(['peek before start', 'peek before end', 'cd', 'peek after start', 'peek after end'])
    expect(p1!.content).toBe(root)
    expect(p2!.content).toBe(path.join(root, 'sub'))
  })
})

describe('worker limit', () => {
  test.each([
    ['TOOLHOST_MAX_WORKERS overrides dispatch.max_workers', { TOOLHOST_MAX_WORKERS: '2' }, 8, 2],
    ['dispatch.max_workers applies without it', {}, 3, 3],
  ])('%s', async (_why, env, configured, expected) => {
    const gates: Deferred<void>[] = []
    let running = 0
    let peak = 0
    tool({ name: 'held', parallelSafe: true, handler: async () => { running++; peak = Math.max(peak, running); const g = createDeferred<void>(); gates.push(g); await g.promise; running--; return 'ok' } })
    const host = await makeHost({ max_workers: configured }, { env })
    expect(host.maxWorkers).toBe(expected)
    const run = host.run(Array.from({ length: 6 }, (_, i) => ({ id: `h${i}`, name: 'held' })))
    // Open gates one at a time as handlers arrive, until all six have run.
    for (let opened = 0; opened < 6; opened++) {
      while (gates.length <= opened) await new Promise((r) => setImmediate(r))
      expect(running).toBeLessThanOrEqual(expected)
      gates[opened]!.resolve()
    }
    expect((await run).every((r) => r.ok)).toBe(true)
    expect(peak).toBe(expected)
  })

  test('a bad TOOLHOST_MAX_WORKERS stops start-up naming the variable', async () => {
    await expect(makeHost({}, { env: { TOOLHOST_MAX_WORKERS: 'lots' } })).rejects.toMatchObject({ code: 'E_CONFIG_INVALID', message: expect.stringMatching(/TOOLHOST_MAX_WORKERS/) })
  })
})

describe('result size', () => {
  const big = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, '0')} ${'x'.repeat(20)}`).join('\n')

  test.each<[string, number | false | undefined, number | false]>([
    ['limits.max_result_chars', undefined, 1000],
    ['a tool maxResultChars wins over the config', 600, 600],
  ])('over %s: cut at a line, the note gives the full size and the file, which holds the whole text', async (_why, toolLimit, limit) => {
    tool({ name: 'dump', parallelSafe: true, ...(toolLimit === undefined ? {} : { maxResultChars: toolLimit }), handler: () => big })
    const host = await makeHost({}, {}, { max_result_chars: 1000 })
    const [result] = await host.run([{ id: 'd/1', name: 'dump' }])
    expect(result).toMatchObject({ ok: true, truncated: true, savedTo: expect.any(String) })
    expect(result!.content.length).toBeLessThanOrEqual(limit as number)
    expect(result!.content.length).toBeGreaterThan((limit as number) / 2)
    const [kept, note] = result!.content.split('\n[truncated: ')
    expect(big.startsWith(kept!)).toBe(true)
    expect(big[kept!.length]).toBe('\n') // cut at a line boundary
    expect(note).toContain(`of ${big.length} characters`)
    // The note names the file relative to the workspace root (what the model's tools resolve against).
    expect(note).toContain(`saved at .toolhost/results/${path.basename(result!.savedTo!)}]`)
    expect(note).not.toContain(root)
    expect(readFileSync(result!.savedTo!, 'utf8')).toBe(big)
    expect(path.dirname(result!.savedTo!)).toBe(path.join(root, '.toolhost', 'results'))
  })

  test('maxResultChars: false opts out (a tool that pages itself)', async () => {
    tool({ name: 'pager', parallelSafe: true, maxResultChars: false, handler: () => big })
    const host = await makeHost({}, {}, { max_result_chars: 100 })
    const [result] = await host.run([{ id: 'p', name: 'pager' }])
    expect(result).toMatchObject({ ok: true, content: big })
    expect(result!.truncated).toBeUndefined()
    expect(existsSync(path.join(root, '.toolhost', 'results'))).toBe(false)
  })

  test('a limit shorter than the note still holds', async () => {
    tool({ name: 'tiny', parallelSafe: true, maxResultChars: 40, handler: () => big })
    const host = await makeHost()
    const [result] = await host.run([{ id: 't', name: 'tiny' }])
    expect(result!.content.length).toBeLessThanOrEqual(40)
    expect(readFileSync(result!.savedTo!, 'utf8')).toBe(big)
  })

  test('a huge error message is held to the limit too', async () => {
    tool({ name: 'loud', parallelSafe: true, maxResultChars: 200, handler: () => { throw new Error('e'.repeat(5000)) } })
    const host = await makeHost()
    const [result] = await host.run([{ id: 'l', name: 'loud' }])
    expect(result).toMatchObject({ ok: false, error: { code: 'E_TOOL_FAILED' } })
    expect(result!.content.length).toBeLessThanOrEqual(200)
    expect(result!.content).toMatch(/\[cut: \d+ characters in all\]$/)
  })
})

describe('result order', () => {
  test.each(['stream', 'run'] as const)('host.%s: stream yields in completion order, run returns call order', async (how) => {
    const gates = new Map<string, Deferred<void>>()
    tool({ name: 'gated', parallelSafe: true, handler: async (_args: Record<string, unknown>, ctx: ToolContext) => { const g = createDeferred<void>(); gates.set(ctx.call.id, g); await g.promise; return ctx.call.id } })
    const host = await makeHost()
    const calls = ['a', 'b', 'c'].map((id) => ({ id, name: 'gated' }))
    const seen: string[] = []
    const done = how === 'stream'
      ? (async () => { for await (const r of host.stream(calls)) seen.push(r.id) })()
      : host.run(calls).then((results: ToolResult[]) => { seen.push(...results.map((r) => r.id)) })
    while (gates.size < 3) await new Promise((r) => setImmediate(r))
    for (const id of ['c', 'a', 'b']) {
      gates.get(id)!.resolve()
      await new Promise((r) => setImmediate(r))
    }
    await done
    expect(seen).toEqual(how === 'stream' ? ['c', 'a', 'b'] : ['a', 'b', 'c'])
  })

  test('an authoriser that throws refuses each call (E_DENIED) instead of failing the batch', async () => {
    tool({ name: 'ok', parallelSafe: true, handler: () => 'ran' })
    const host = await makeHost({}, { authoriser: { authorise: async () => { throw new Error('rules file unreadable') } } })
    const results = await host.run([{ id: 'a', name: 'ok' }, { id: 'b', name: 'ok' }])
    expect(results.map((r) => [r.id, r.error?.code])).toEqual([['a', 'E_DENIED'], ['b', 'E_DENIED']])
    expect(results[0]!.content).toMatch(/rules file unreadable/)
  })
})

describe('observers', () => {
  test('an event listener that throws costs no call its result, and the other listeners still hear every event', async () => {
    tool({ name: 'ok', parallelSafe: true, handler: async () => 'ran' })
    const host = await makeHost()
    host.onEvent(() => {
      throw new Error('listener bug')
    })
    const heard: string[] = []
    host.onEvent((e) => heard.push(e.type))
    const results = await host.run([{ id: 'a', name: 'ok' }, { id: 'b', name: 'ok' }])
    expect(results.map((r) => r.content)).toEqual(['ran', 'ran'])
    await host.close()
    expect(host.stats.pending).toBe(0)
    expect(heard.filter((t) => t === 'released')).toHaveLength(2)
    expect(warnings.join('\n')).toMatch(/an event listener threw on "queued" for a: listener bug/)
  })
})

describe('interrupt from a started listener (regression: reported while building issue 3)', () => {
  test('an abort raised inside the started event reaches the handler, which is answered E_INTERRUPTED', async () => {
    let sawAbort = false
    tool({
      name: 'hold_on',
      parallelSafe: true,
      handler: async (_args, ctx) => {
        await untilAbort(ctx.call.signal)
        sawAbort = true
        throw new Error('stopped')
      },
    })
    const host = await makeHost({ interrupt_grace_ms: 5000 })
    const controller = new AbortController()
    host.onEvent((e) => {
      if (e.type === 'started') controller.abort()
    })
    const [result] = await host.run([{ id: 'h', name: 'hold_on', arguments: {} }], { signal: controller.signal })
    expect(sawAbort).toBe(true)
    expect(result).toMatchObject({ id: 'h', ok: false, error: { code: 'E_INTERRUPTED' } })
  })
})

describe('event logging', () => {
  test('with logEvents every scheduling event is a debug line naming the call, whom it waited for and why', async () => {
    const lines: string[] = []
    tool({ name: 'writer', pathScoped: true, handler: () => 'written' })
    const log = { debug: (m: string) => void lines.push(m), info: () => undefined, warn: () => undefined, error: () => undefined }
    const host = await makeHost({}, { log, logEvents: true })
    await host.run([
      { id: 'w1', name: 'writer', arguments: { path: 'a.txt' } },
      { id: 'w2', name: 'writer', arguments: { path: 'a.txt' } },
    ])
    expect(lines.some((l) => /^call w1 queued \(#\d+\) at [\d.]+ ms$/.test(l))).toBe(true)
    expect(lines.some((l) => /^call w2 waits for w1 \(writes a\.txt, which w1 writes too\)$/.test(l))).toBe(true)
    expect(lines.some((l) => /^call w1 started at [\d.]+ ms \(1 running\)$/.test(l))).toBe(true)
    expect(lines.some((l) => /^call w2 finished at [\d.]+ ms: ok$/.test(l))).toBe(true)
    expect(lines.filter((l) => /released its reservations/.test(l))).toHaveLength(2)
  })

  test('without it, no event lines are logged', async () => {
    const lines: string[] = []
    tool({ name: 'quiet', parallelSafe: true, handler: () => 'ok' })
    const log = { debug: (m: string) => void lines.push(m), info: () => undefined, warn: () => undefined, error: () => undefined }
    const host = await makeHost({}, { log, logEvents: false })
    await host.run([{ id: 'q', name: 'quiet', arguments: {} }])
    expect(lines).toEqual([])
  })
})
