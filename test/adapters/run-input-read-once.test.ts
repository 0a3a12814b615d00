/**
 * What host.run is handed is read once (issue 12, new variants): a getter or Proxy in a call or its
 * arguments cannot show the limits, the rules and the handler different values, and one that throws
 * costs its own call, never the batch. Sparse arrays get a result per slot.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createHost, defineTool, ToolRegistry, type Host, type ToolCall } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'

let base: string
let host: Host
const seen: unknown[] = []

beforeAll(async () => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-run-input-')))
  const root = path.join(base, 'root')
  writeFileSync(path.join(base, 'secret.txt'), 'SECRET')
  const registry = new ToolRegistry()
  registry.register(defineTool({
    name: 'record',
    description: 'records the arguments it got',
    parameters: { type: 'object', properties: { path: { type: 'string', maxLength: 20 } }, additionalProperties: false } as const,
    parallelSafe: true,
    handler: (args) => {
      seen.push(args.path)
      return `got ${String(args.path)}`
    },
  }))
  registry.register(defineTool({ name: 'neighbour', description: 'answers', parameters: { type: 'object' }, parallelSafe: true, handler: () => 'alive' }))
  mkdirSync(root)
  host = await createHost({
    root,
    registry,
    loadPlugins: false,
    log: silentLogger,
    env: {},
    config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass', deny: ['record(*secret*)'] } },
  })
})
afterAll(async () => {
  await host.close()
  rmSync(base, { recursive: true, force: true })
})

const neighbour: ToolCall = { id: 'next', name: 'neighbour', arguments: {} }

describe('arguments are read once: a getter cannot show the rules one value and the handler another', () => {
  test('a getter that changes after the first read', async () => {
    let reads = 0
    const args = { get path() { return reads++ === 0 ? 'notes.txt' : '../secret.txt-and-more-than-twenty' } }
    seen.length = 0
    const [result] = await host.run([{ id: 'a', name: 'record', arguments: args }])
    expect(result).toMatchObject({ ok: true, content: 'got notes.txt' })
    expect(seen).toEqual(['notes.txt'])
    expect(reads).toBe(1)
  })

  test('a Proxy whose value changes between reads', async () => {
    let reads = 0
    const args = new Proxy({ path: 'x' }, { get: (target, key) => (key === 'path' ? (reads++ === 0 ? 'ok.txt' : 'secret.txt') : Reflect.get(target, key)) })
    seen.length = 0
    const [result] = await host.run([{ id: 'a', name: 'record', arguments: args }])
    expect(result).toMatchObject({ ok: true, content: 'got ok.txt' })
    expect(seen).toEqual(['ok.txt'])
  })

  test('a "__proto__" key stays an own key of the copy', async () => {
    const args = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>
    const [result] = await host.run([{ id: 'a', name: 'neighbour', arguments: args }])
    expect(result).toMatchObject({ ok: true })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('a call or arguments that throw when read are refused in their own slot', () => {
  const throwing = (what: string) => () => {
    throw new Error(what)
  }
  test.each<[string, () => unknown]>([
    ['an arguments getter that throws', () => ({ id: 'a', name: 'record', arguments: { get path() { return throwing('path getter')() } } })],
    ['an arguments Proxy whose ownKeys throws', () => ({ id: 'a', name: 'record', arguments: new Proxy({}, { ownKeys: throwing('ownKeys') }) })],
    ['a call whose name getter throws', () => ({ id: 'a', get name() { return throwing('name getter')() }, arguments: {} })],
    ['a call that is a throwing Proxy', () => new Proxy({}, { get: throwing('call proxy') })],
    ['a name whose toString throws', () => ({ id: 'a', name: { toString: throwing('toString') }, arguments: {} })],
  ])('%s', async (_why, make) => {
    const results = await host.run([make() as ToolCall, neighbour])
    expect(results).toHaveLength(2)
    expect(results[0]!.ok).toBe(false)
    expect(['E_ARGS_INVALID', 'E_TOOL_UNKNOWN']).toContain(results[0]!.error?.code)
    expect(results[1]).toMatchObject({ id: 'next', ok: true, content: 'alive' })
  })

  test.each<[string, (call: () => unknown) => object]>([
    ['an Anthropic tool_use whose input getter throws', (bad) => ({ role: 'assistant', content: [bad(), { type: 'tool_use', id: 'next', name: 'neighbour', input: {} }] })],
    ['a Chat tool call whose arguments getter throws', (bad) => ({ role: 'assistant', tool_calls: [bad(), { id: 'next', type: 'function', function: { name: 'neighbour', arguments: '{}' } }] })],
  ])('%s', async (why, shape) => {
    const bad = why.startsWith('an Anthropic')
      ? () => ({ type: 'tool_use', id: 'a', name: 'record', get input() { throw new Error('input getter') } })
      : () => ({ id: 'a', type: 'function', function: { name: 'record', get arguments() { throw new Error('arguments getter') } } })
    const results = await host.run(shape(bad))
    expect(results.map((r) => [r.ok, r.error?.code])).toEqual([[false, 'E_ARGS_INVALID'], [true, undefined]])
    expect(results[0]!.content).toContain('getter')
  })

  test('a sparse array gets a result for its hole', async () => {
    const calls: ToolCall[] = new Array(2)
    calls[1] = neighbour
    const results = await host.run(calls)
    expect(results.map((r) => r.ok)).toEqual([false, true])
  })

  test('a batch that cannot be read at all is E_USAGE, not a stray TypeError', async () => {
    const batch = new Proxy([], { get: () => { throw new Error('list proxy') } })
    await expect(host.run(batch)).rejects.toMatchObject({ code: 'E_USAGE' })
  })
})

describe('host.explain reads its calls the same way', () => {
  test('a call whose name getter throws is planned as refused; the plan is made', async () => {
    const plan = await host.explain([{ id: 'a', get name(): string { throw new Error('name getter') } } as unknown as ToolCall, neighbour])
    expect(plan.calls.map((c) => c.id)).toEqual(['call_0', 'next'])
  })
})
