/**
 * What a faulty plugin hands back (issue 12, new variants): values whose getters, toJSON or Proxy
 * traps throw, cycles, BigInts and deep nesting inside structuredContent and content blocks, and
 * thrown values that cannot be read. Each is its own call's coded result; the batch resolves, its
 * neighbour runs, and nothing is left unanswered or thrown out of host.run.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createHost, defineTool, ToolRegistry, type Host, type ToolSpec } from '../../../src/index.js'
import { describeThrown } from '../../../src/contract/errors.js'
import { silentLogger } from '../../../src/contract/logger.js'
import { guardStrayErrors } from '../../../src/host/stray-errors.js'

function deep(levels: number): Record<string, unknown> {
  const top: Record<string, unknown> = {}
  let at = top
  for (let i = 0; i < levels; i++) at = (at.a = {}) as Record<string, unknown>
  return top
}
const cycle: Record<string, unknown> = {}
cycle.self = cycle
// A Proxy every trap of which throws another such Proxy: nothing about it can be read.
const unreadable = (): object => {
  const trap = (): never => {
    throw unreadable()
  }
  return new Proxy({}, { get: trap, getPrototypeOf: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap })
}
const errorWithThrowingMessage = (): Error => {
  const error = new Error('hidden')
  Object.defineProperty(error, 'message', { get: () => { throw new Error('message getter') } })
  return error
}

const HOSTILE: Record<string, ToolSpec['handler']> = {
  structured_cycle: () => ({ content: [], structuredContent: cycle }),
  structured_bigint: () => ({ content: [{ type: 'text', text: 'hi' }], structuredContent: { n: 1n } }),
  structured_deep: () => ({ content: [], structuredContent: deep(100_000) }),
  structured_getter: () => ({ content: [{ type: 'text', text: 'hi' }], structuredContent: { get a() { throw new Error('structured getter') } } }),
  block_getter: () => ({ content: [{ type: 'text', get text() { throw new Error('block getter') } }] }),
  content_getter: () => ({ get content() { throw new Error('content getter') } }),
  is_error_getter: () => ({ content: [{ type: 'text', text: 'x' }], get isError() { throw new Error('isError getter') } }),
  async_block_getter: async () => ({ content: [{ type: 'text', get text() { throw new Error('late getter') } }] }),
  returned_unreadable: () => unreadable(),
  async_returned_unreadable: async () => unreadable(),
  thrown_unreadable: () => {
    throw unreadable()
  },
  async_thrown_unreadable: async () => {
    throw unreadable()
  },
  thrown_message_getter: () => {
    throw errorWithThrowingMessage()
  },
  async_thrown_message_getter: async () => {
    throw errorWithThrowingMessage()
  },
}

let root: string
let host: Host
beforeAll(async () => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-hostile-values-')))
  const registry = new ToolRegistry()
  for (const [name, handler] of Object.entries(HOSTILE)) {
    registry.register(defineTool({ name, description: 'hostile value', parameters: { type: 'object' }, parallelSafe: true, handler }))
  }
  registry.register(defineTool({ name: 'neighbour', description: 'answers', parameters: { type: 'object' }, parallelSafe: true, handler: () => 'alive' }))
  host = await createHost({ root, registry, loadPlugins: false, log: silentLogger, env: {}, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' } } })
})
afterAll(async () => {
  await host.close()
  rmSync(root, { recursive: true, force: true })
})

describe('a handler value the host cannot read is that call E_TOOL_FAILED, never a thrown or unanswered batch', () => {
  test.each(Object.keys(HOSTILE))('%s', async (name) => {
    const results = await host.run([{ id: 'bad', name }, { id: 'next', name: 'neighbour' }])
    expect(results.map((r) => [r.id, r.ok, r.error?.code])).toEqual([['bad', false, 'E_TOOL_FAILED'], ['next', true, undefined]])
    expect(results[0]!.content).toContain(name)
    // Whatever reaches a client is plain data: a transport can serialise it.
    expect(() => JSON.stringify(results)).not.toThrow()
  })

  test('structured content is a detached plain copy of what the handler returned', async () => {
    const registry = host.registry
    let reads = 0
    registry.register(defineTool({
      name: 'counted_getter',
      description: 'a getter that changes on every read',
      parameters: { type: 'object' },
      parallelSafe: true,
      handler: () => ({ content: [], structuredContent: { get n() { return ++reads } } }),
    }))
    const [result] = await host.run([{ id: 'c', name: 'counted_getter' }])
    expect(result).toMatchObject({ ok: true, structuredContent: { n: 1 }, content: '{"n":1}' })
    expect(Object.getOwnPropertyDescriptor(result!.structuredContent, 'n')).toMatchObject({ value: 1 })
    expect(reads).toBe(1)
  })
})

describe('describeThrown never throws', () => {
  test.each([
    ['an unreadable Proxy', unreadable(), 'cannot be read'],
    ['an Error whose message getter throws', errorWithThrowingMessage(), 'cannot be read'],
    ['a BigInt', 5n, '5'],
    ['an Error with a non-string message', Object.assign(new Error(), { message: 42 }), 'Error'],
  ])('%s', (_why, thrown, expected) => {
    expect(describeThrown(thrown)).toContain(expected)
  })
})

describe('the stray-error guard survives a stray value it cannot read', () => {
  test('an unhandled rejection with an unreadable reason is logged, and the handler does not throw', () => {
    const lines: string[] = []
    const log = { ...silentLogger, error: (message: string) => void lines.push(message) }
    const stop = guardStrayErrors({ log, registry: host.registry })
    try {
      const handler = process.listeners('unhandledRejection').at(-1)!
      expect(() => handler(unreadable(), Promise.resolve())).not.toThrow()
      expect(() => handler(errorWithThrowingMessage(), Promise.resolve())).not.toThrow()
      expect(lines).toHaveLength(2)
      expect(lines[0]).toContain('cannot be read')
    } finally {
      stop()
    }
  })
})
