import { describe, expect, test } from 'vitest'
import { type ToolCall, type ToolResult } from '../../src/index.js'
import { permissionHost, recordingApprover, type RunLog, useFixtureWorkspace } from '../fixtures/permissions/tools.js'

type Outcome = 'run' | 'ask' | 'deny'

const CALLS: Record<string, ToolCall> = {
  read: { id: 'read', name: 'read_note', arguments: { path: 'src/a.txt' } },
  edit: { id: 'edit', name: 'write_note', arguments: { path: 'src/a.txt', content: 'x' } },
  editOutside: { id: 'editOutside', name: 'write_note', arguments: { path: '../outside.txt' } },
  destructive: { id: 'destructive', name: 'delete_tree', arguments: { path: 'build' } },
  barrier: { id: 'barrier', name: 'terminal', arguments: { command: 'ls -la' } },
  destructiveCommand: { id: 'destructiveCommand', name: 'terminal', arguments: { command: 'rm -rf build' } },
}

// mode → call kind → what happens (with a person who allows whatever is asked)
const TABLE: Record<string, Record<keyof typeof CALLS, Outcome>> = {
  ask: { read: 'run', edit: 'ask', editOutside: 'ask', destructive: 'ask', barrier: 'ask', destructiveCommand: 'ask' },
  'accept-edits': { read: 'run', edit: 'run', editOutside: 'ask', destructive: 'ask', barrier: 'ask', destructiveCommand: 'ask' },
  auto: { read: 'run', edit: 'run', editOutside: 'run', destructive: 'ask', barrier: 'run', destructiveCommand: 'ask' },
  plan: { read: 'run', edit: 'deny', editOutside: 'deny', destructive: 'deny', barrier: 'deny', destructiveCommand: 'deny' },
  bypass: { read: 'run', edit: 'run', editOutside: 'run', destructive: 'run', barrier: 'run', destructiveCommand: 'run' },
}

function outcomeOf(result: ToolResult, asked: string[], ran: RunLog): Outcome {
  if (!result.ok) {
    expect(result.error?.code).toBe('E_DENIED')
    expect(asked).not.toContain(result.id)
    return 'deny'
  }
  expect(ran.length).toBeGreaterThan(0)
  return asked.includes(result.id) ? 'ask' : 'run'
}

describe('permission modes', () => {
  let root: string
  let ran: RunLog
  useFixtureWorkspace((w) => ({ root, ran } = w))

  const cases = Object.entries(TABLE).flatMap(([mode, row]) => Object.entries(row).map(([kind, expected]) => ({ mode, kind, expected })))
  test.each(cases)('$mode: a $kind call → $expected', async ({ mode, kind, expected }) => {
    const person = recordingApprover()
    const host = await permissionHost(root, { mode }, { approve: person.approve })
    const [result] = await host.run([CALLS[kind]!])
    await host.close()
    expect(outcomeOf(result!, person.asked(), ran)).toBe(expected)
    if (expected === 'deny') expect(ran).toEqual([])
  })

  test('plan mode says so and what to do', async () => {
    const host = await permissionHost(root, { mode: 'plan' })
    const result = await host.call(CALLS.edit!)
    await host.close()
    expect(result.ok).toBe(false)
    expect(result.content).toMatch(/plan mode/)
    expect(result.content).toMatch(/did not run/)
    expect(result.content).toMatch(/Describe the change/)
  })

  test('the CLI-style override wins over permissions.mode', async () => {
    const host = await permissionHost(root, { mode: 'plan' }, { permissionMode: 'bypass' })
    const result = await host.call(CALLS.edit!)
    await host.close()
    expect(host.config.permissions.mode).toBe('bypass')
    expect(result.ok).toBe(true)
  })

  test('bypass warns loudly at start-up', async () => {
    const warnings: string[] = []
    const log = { debug() {}, info() {}, warn: (m: string) => warnings.push(m), error() {} }
    const host = await permissionHost(root, { mode: 'bypass' }, { log })
    await host.close()
    expect(warnings.join('\n')).toMatch(/BYPASS/)
  })

  test('an unknown permission mode given in code is a start-up error', async () => {
    await expect(permissionHost(root, {}, { permissionMode: 'yolo' as never })).rejects.toMatchObject({ code: 'E_CONFIG_INVALID', message: expect.stringMatching(/^createHost\(\{ permissionMode \}\) must be one of ask, accept-edits, auto, plan, bypass; got "yolo"/) })
  })

  test('with no one to ask, a call that asks is denied and the result says how to allow it (at the CLI)', async () => {
    const host = await permissionHost(root, { mode: 'ask' }, { audience: 'person' })
    const [edit, barrier, destructive] = await host.run([CALLS.edit!, CALLS.barrier!, CALLS.destructive!])
    await host.close()
    expect(ran).toEqual([])
    expect(edit).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(edit!.content).toMatch(/did not run/)
    expect(edit!.content).toContain('permissions.allow: ["write_note(src/a.txt)"]')
    expect(edit!.content).toContain('--permission-mode accept-edits or auto or bypass')
    expect(edit!.content).toContain('--yes')
    expect(barrier!.content).toContain('permissions.allow: ["terminal(ls -la)"]')
    expect(barrier!.content).toContain('--permission-mode auto or bypass')
    // a destructive call runs without asking only with an allow rule or in bypass
    expect(destructive!.content).toContain('--permission-mode bypass')
    expect(destructive!.content).not.toContain('auto or')
  })
})
