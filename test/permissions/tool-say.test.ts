import { describe, expect, test } from 'vitest'
import { existsSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { defineTool, registry, type PermissionResult } from '../../src/index.js'
import { permissionHost, recordingApprover, registerGuardedTool, type RunLog, useFixtureWorkspace } from '../fixtures/permissions/tools.js'

describe("the tool's own say (checkPermissions)", () => {
  let root: string
  let ran: RunLog
  useFixtureWorkspace((w) => ({ root, ran } = w))

  async function runGuarded(say: PermissionResult | (() => PermissionResult), permissions: Record<string, unknown> = { mode: 'ask' }, options: { destructive?: boolean; readOnly?: boolean } = {}, args: Record<string, unknown> = { path: 'notes/a.txt' }) {
    registerGuardedTool(() => (typeof say === 'function' ? say() : say), ran, options)
    const person = recordingApprover()
    const host = await permissionHost(root, permissions, { approve: person.approve })
    const result = await host.call({ id: 'g', name: 'guarded', arguments: args })
    await host.close()
    const outcome = !result.ok ? (result.error?.code ?? 'error') : person.asked().includes('g') ? 'ask' : 'run'
    return { result, outcome, person }
  }

  test.each<[string, PermissionResult, string]>([
    ['allow', { behavior: 'allow' }, 'run'],
    ['deny', { behavior: 'deny', message: 'notes are frozen' }, 'E_DENIED'],
    ['ask', { behavior: 'ask', message: 'touches shared notes' }, 'ask'],
    ['passthrough (mode ask decides: not read-only)', { behavior: 'passthrough' }, 'ask'],
  ])('%s', async (_name, say, expected) => {
    const { result, outcome, person } = await runGuarded(say)
    expect(outcome).toBe(expected)
    if (expected === 'E_DENIED') {
      expect(result.content).toContain('notes are frozen')
      expect(result.content).toContain('did not run')
      expect(ran).toEqual([])
    }
    if (expected === 'ask') expect(person.batches[0]![0]!.askedBy).toBe(say.behavior === 'ask' ? 'tool' : 'mode')
    if (say.behavior === 'ask') expect(person.batches[0]![0]!.reason).toContain('touches shared notes')
  })

  test('passthrough defers to the mode: accept-edits runs the edit', async () => {
    expect((await runGuarded({ behavior: 'passthrough' }, { mode: 'accept-edits' })).outcome).toBe('run')
  })

  test('updatedArgs that pass the schema are what the handler gets', async () => {
    const { outcome } = await runGuarded({ behavior: 'allow', updatedArgs: { path: 'notes/a.txt', content: 'normalised' } })
    expect(outcome).toBe('run')
    expect(ran).toEqual([{ tool: 'guarded', args: { path: 'notes/a.txt', content: 'normalised' } }])
  })

  test.each<[string, unknown]>([
    ['a missing required field', { content: 'x' }],
    ['a field of the wrong type', { path: 42 }],
    ['an unknown field', { path: 'a', extra: true }],
    ['an empty path (minLength)', { path: '' }],
    ['not an object', ['a']],
  ])('updatedArgs with %s are refused with E_ARGS_INVALID and nothing runs', async (_name, updatedArgs) => {
    const { result } = await runGuarded({ behavior: 'allow', updatedArgs } as PermissionResult)
    expect(result).toMatchObject({ ok: false, error: { code: 'E_ARGS_INVALID' } })
    expect(result.content).toMatch(/permission check produced invalid arguments/)
    expect(result.content).toMatch(/fault in the tool/)
    expect(ran).toEqual([])
  })

  test('updatedArgs cannot dodge a deny rule, in either direction', async () => {
    const toEnv = await runGuarded({ behavior: 'allow', updatedArgs: { path: '.env' } }, { mode: 'bypass', deny: ['guarded(.env)'] })
    expect(toEnv.outcome).toBe('E_DENIED')
    registry.unregister('guarded')
    const fromEnv = await runGuarded({ behavior: 'allow', updatedArgs: { path: 'safe.txt' } }, { mode: 'bypass', deny: ['guarded(.env)'] }, {}, { path: 'src/../.env' })
    expect(fromEnv.outcome).toBe('E_DENIED')
    expect(ran).toEqual([])
  })

  test('a check that throws or answers nonsense fails closed', async () => {
    const threw = await runGuarded(() => {
      throw new Error('boom')
    })
    expect(threw.result).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(threw.result.content).toContain('boom')
    registry.unregister('guarded')
    const nonsense = await runGuarded({ behavior: 'maybe' } as never)
    expect(nonsense.result).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(ran).toEqual([])
  })

  test('destructive(args, { root }) sees the workspace root: overwriting an existing file asks in auto, a new file runs', async () => {
    writeFileSync(path.join(root, 'exists.txt'), 'old')
    registry.register(defineTool<{ path: string }>({
      name: 'overwrite',
      description: 'Destructive when the file exists.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
      pathScoped: true,
      destructive: (args, context) => context === undefined || existsSync(path.resolve(context.root, args.path)),
      handler: () => 'ok',
    }))
    const person = recordingApprover()
    const host = await permissionHost(root, { mode: 'auto' }, { approve: person.approve })
    await host.run([
      { id: 'old', name: 'overwrite', arguments: { path: 'exists.txt' } },
      { id: 'new', name: 'overwrite', arguments: { path: 'new.txt' } },
    ])
    await host.close()
    expect(person.asked()).toEqual(['old'])
  })

  // Precedence: deny rule > tool deny > plan > bypass > session > ask rule > tool ask > allow rule > destructive > tool allow > mode.
  test.each<[string, PermissionResult, Record<string, unknown>, { destructive?: boolean; readOnly?: boolean }, string]>([
    ['deny rule beats tool allow', { behavior: 'allow' }, { mode: 'bypass', deny: ['guarded'] }, {}, 'E_DENIED'],
    ['tool deny beats an allow rule', { behavior: 'deny', message: 'no' }, { mode: 'ask', allow: ['guarded'] }, {}, 'E_DENIED'],
    ['tool deny applies in bypass', { behavior: 'deny', message: 'no' }, { mode: 'bypass' }, {}, 'E_DENIED'],
    ['plan beats tool allow and allow rules for a call that is not read-only', { behavior: 'allow' }, { mode: 'plan', allow: ['guarded'] }, {}, 'E_DENIED'],
    ['plan lets a read-only call run', { behavior: 'passthrough' }, { mode: 'plan' }, { readOnly: true }, 'run'],
    ['ask rule beats tool allow', { behavior: 'allow' }, { mode: 'auto', ask: ['guarded'] }, {}, 'ask'],
    ['ask rule applies to a read-only call', { behavior: 'passthrough' }, { mode: 'ask', ask: ['guarded(notes/**)'] }, { readOnly: true }, 'ask'],
    ['tool ask beats an allow rule', { behavior: 'ask' }, { mode: 'ask', allow: ['guarded'] }, {}, 'ask'],
    ['tool ask beats mode auto', { behavior: 'ask' }, { mode: 'auto' }, {}, 'ask'],
    ['allow rule beats destructive', { behavior: 'passthrough' }, { mode: 'ask', allow: ['guarded(notes/**)'] }, { destructive: true }, 'run'],
    ['destructive beats tool allow', { behavior: 'allow' }, { mode: 'auto' }, { destructive: true }, 'ask'],
    ['tool allow beats mode ask', { behavior: 'allow' }, { mode: 'ask' }, {}, 'run'],
    ['bypass runs what a tool asks about', { behavior: 'ask' }, { mode: 'bypass' }, { destructive: true }, 'run'],
  ])('%s', async (_name, say, permissions, options, expected) => {
    expect((await runGuarded(say, permissions, options)).outcome).toBe(expected)
  })
})
