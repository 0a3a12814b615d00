// Arguments a model shapes to break the permission system (issue 12, items 2 and 15): nested deep
// enough to overflow a recursive walk (which killed the process at the audit flush, or denied every
// call of the batch), or carrying a "__proto__" key (which rule subjects and the audit line dropped
// while the handler got it). The call is refused alone, or judged on exactly what the handler gets.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { defineTool, registry, type AuditEntry } from '../../src/index.js'
import { makeRoot, permissionHost } from '../fixtures/permissions/tools.js'

let root: string
let cleanup: () => void
const received: Array<Record<string, unknown>> = []

beforeEach(() => {
  ;({ root, cleanup } = makeRoot())
  received.length = 0
  registry.register(defineTool({
    name: 'anything',
    description: 'Takes any JSON object.',
    parameters: { type: 'object' },
    parallelSafe: true,
    handler: (args) => {
      received.push(args)
      return `keys: ${Object.keys(args).join(',')}`
    },
  }))
})

afterEach(() => {
  registry.clear()
  cleanup()
})

function deepText(depth: number): string {
  return `{"a":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`
}

function deepObject(depth: number): Record<string, unknown> {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = { a: value }
  return { a: value }
}

function auditLines(): AuditEntry[] {
  return readFileSync(path.join(root, '.toolhost', 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as AuditEntry)
}

test.each([
  { shape: 'JSON text 2,500 deep', args: deepText(2500) },
  { shape: 'JSON text 100,000 deep', args: deepText(100_000) },
  { shape: 'an object 3,000 deep', args: deepObject(3000) },
])('an argument nested as $shape is refused alone; its neighbour runs; the audit flush survives', async ({ args }) => {
  const host = await permissionHost(root, { mode: 'ask', allow: ['anything'] })
  const [deep, neighbour] = await host.run([
    { id: 'deep', name: 'anything', arguments: args },
    { id: 'neighbour', name: 'anything', arguments: { b: 1 } },
  ])
  await host.close() // flushes the audit log: the walk that overflowed ran here, uncaught
  expect(deep).toMatchObject({ ok: false, error: { code: 'E_ARGS_INVALID' } })
  expect(deep!.content).toMatch(/^the arguments are nested more than 64 levels deep \(at a\.a\.a/)
  expect(neighbour).toMatchObject({ ok: true, content: 'keys: b' })
  expect(auditLines().map((l) => [l.callId, l.decision])).toEqual([['neighbour', 'allow']])
})

test('explain refuses a deeply nested call alone instead of crashing', async () => {
  const host = await permissionHost(root, { mode: 'ask' })
  const plan = await host.explain([
    { id: 'deep', name: 'anything', arguments: deepText(10_000) },
    { id: 'fine', name: 'anything', arguments: '{}' },
  ])
  await host.close()
  expect(plan.calls[0]!.error?.code).toBe('E_ARGS_INVALID')
  expect(plan.calls[1]!.permission?.outcome).toBe('deny') // asks, and nobody can be asked here
})

test('a "__proto__" key reaches rule subjects as the handler gets it: a deny rule on it holds', async () => {
  const host = await permissionHost(root, { mode: 'bypass', deny: ['anything(*"__proto__"*)'] })
  const [result] = await host.run([{ id: 'p', name: 'anything', arguments: '{"__proto__":{"polluted":true},"a":1}' }])
  await host.close()
  expect(result).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
  expect(received).toEqual([])
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
})

test('a "__proto__" key is in the audit line exactly as the handler received it', async () => {
  const host = await permissionHost(root, { mode: 'bypass' })
  const [result] = await host.run([{ id: 'p', name: 'anything', arguments: '{"a":1,"__proto__":{"polluted":true}}' }])
  await host.close()
  expect(result).toMatchObject({ ok: true, content: 'keys: a,__proto__' })
  expect(Object.keys(received[0]!)).toEqual(['a', '__proto__'])
  const [line] = auditLines()
  expect(JSON.stringify(line!.args)).toBe('{"__proto__":{"polluted":true},"a":1}')
  expect(line!.subject).toBe('{"__proto__":{"polluted":true},"a":1}')
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
})

test('an object argument over max_argument_chars is refused without running (was: 20 MB ran)', async () => {
  const host = await permissionHost(root, { mode: 'bypass' }, { config: { env_file: '', permissions: { mode: 'bypass' }, limits: { max_argument_chars: 10_000 } } })
  const [big, small] = await host.run([
    { id: 'big', name: 'anything', arguments: { text: 'x'.repeat(20_000_000) } },
    { id: 'small', name: 'anything', arguments: { text: 'x' } },
  ])
  await host.close()
  expect(big!.error?.code).toBe('E_ARGS_INVALID')
  expect(big!.content).toContain('over 10000 characters as JSON')
  expect(small!.ok).toBe(true)
  expect(received).toHaveLength(1)
})
