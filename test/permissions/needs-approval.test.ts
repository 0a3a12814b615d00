// needsApproval: a tool's per-call switch for a person's approval, as the permission system's "ask"
// by the tool; read through what the approver is asked, what the model gets, explain and the CLI.
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { defineTool, registry, type ToolContext } from '../../src/index.js'
import { permissionHost, recordingApprover, useFixtureWorkspace } from '../fixtures/permissions/tools.js'
import { outputOf, TOOLHOST_CLI } from '../toolhost-cli.js'

const PLUGINS = path.resolve(import.meta.dirname, '../fixtures/permissions/approval-plugins')

describe('needsApproval', () => {
  let root: string
  useFixtureWorkspace((w) => ({ root } = w))

  function registerDeploy(needsApproval: boolean | ((args: { env: string }, ctx: ToolContext) => boolean)): void {
    registry.register(defineTool<{ env: string }>({
      name: 'deploy',
      description: 'Deploy (fixture).',
      parameters: { type: 'object', properties: { env: { type: 'string' } }, required: ['env'], additionalProperties: false },
      parallelSafe: true,
      needsApproval,
      handler: (args) => `deployed to ${args.env}`,
    }))
  }

  test('true: the person is asked, by the tool, even in auto mode and with an allow rule; the answer decides', async () => {
    registerDeploy(true)
    const person = recordingApprover((r) => (r.args.env === 'prod' ? { decision: 'deny', message: 'not on a Friday' } : { decision: 'allow-once' }))
    const host = await permissionHost(root, { mode: 'auto', allow: ['deploy'] }, { approve: person.approve })
    const [staging, prod] = await host.run([
      { id: 's', name: 'deploy', arguments: { env: 'staging' } },
      { id: 'p', name: 'deploy', arguments: { env: 'prod' } },
    ])
    await host.close()
    expect(person.batches[0]!.map((r) => [r.callId, r.askedBy, r.reason])).toEqual([
      ['s', 'tool', "deploy needs a person's approval for this call (needsApproval)"],
      ['p', 'tool', "deploy needs a person's approval for this call (needsApproval)"],
    ])
    expect(staging).toMatchObject({ ok: true, content: 'deployed to staging' })
    expect(prod).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(prod!.content).toContain('not on a Friday')
  })

  test('with no one to ask the call is denied, and the model reads why', async () => {
    registerDeploy(true)
    const host = await permissionHost(root, { mode: 'auto' }, { audience: 'model' })
    const result = await host.call({ id: 'd', name: 'deploy', arguments: { env: 'prod' } })
    await host.close()
    expect(result).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(result.content).toContain("deploy needs a person's approval for this call (needsApproval)")
  })

  test('with no one to ask, the advice never names an allow rule: it would not skip the tool\'s ask (nor a hook\'s, nor an ask rule)', async () => {
    registerDeploy(true)
    const host = await permissionHost(root, { mode: 'ask', allow: ['deploy'], ask: ['terminal'] }, { audience: 'person', hooks: { beforeCall: [{ tools: 'write_note', name: 'the review hook', run: () => ({ decision: 'ask', reason: 'notes are reviewed' }) }] } })
    const [deploy, note, shell, read] = await host.run([
      { id: 'd', name: 'deploy', arguments: { env: 'prod' } },
      { id: 'n', name: 'write_note', arguments: { path: 'a.txt' } },
      { id: 't', name: 'terminal', arguments: { command: 'ls' } },
      { id: 'w', name: 'delete_tree', arguments: { path: 'old' } },
    ])
    await host.close()
    expect(deploy!.content).toBe("deploy did not run: it needs approval (deploy needs a person's approval for this call (needsApproval)) and no one could be asked; nobody refused it. An allow rule does not skip it (deploy itself asks). To allow it: pass --yes to approve every call that asks, or run with --permission-mode bypass.")
    expect(note!.content).toMatch(/An allow rule does not skip it \(a before_call hook asks\)/)
    expect(shell!.content).toMatch(/An allow rule does not skip it \(the ask rule permissions\.ask\[0\] asks\)/)
    // The mode's ask (and a destructive call's) is what an allow rule settles: that advice stays.
    expect(read!.content).toMatch(/To allow it: add permissions\.allow: \["delete_tree\(old\)"\] to config\.yaml/)
  })

  test('a deny rule and bypass mode come first', async () => {
    registerDeploy(true)
    const denied = await permissionHost(root, { mode: 'auto', deny: ['deploy'] })
    expect((await denied.call({ id: 'd', name: 'deploy', arguments: { env: 'x' } })).content).toContain('permissions.deny[0]')
    await denied.close()
    const bypass = await permissionHost(root, { mode: 'bypass' })
    expect(await bypass.call({ id: 'b', name: 'deploy', arguments: { env: 'x' } })).toMatchObject({ ok: true })
    await bypass.close()
  })

  test('a function decides per call, from the arguments and the context', async () => {
    const seen: string[] = []
    registerDeploy((args, ctx) => (seen.push(ctx.workspace.root), args.env === 'prod'))
    const person = recordingApprover()
    const host = await permissionHost(root, { mode: 'auto' }, { approve: person.approve })
    const results = await host.run([
      { id: 's', name: 'deploy', arguments: { env: 'staging' } },
      { id: 'p', name: 'deploy', arguments: { env: 'prod' } },
    ])
    await host.close()
    expect(person.asked()).toEqual(['p'])
    expect(results.map((r) => r.ok)).toEqual([true, true])
    expect(seen).toEqual([root, root])
  })

  test('a function that throws or answers something else refuses that call alone', async () => {
    registerDeploy(((args: { env: string }) => {
      if (args.env === 'boom') throw new Error('no env table')
      return 'yes' as unknown as boolean
    }))
    const host = await permissionHost(root, { mode: 'bypass' })
    const [threw, odd, other] = await host.run([
      { id: 't', name: 'deploy', arguments: { env: 'boom' } },
      { id: 'o', name: 'deploy', arguments: { env: 'x' } },
      { id: 'r', name: 'read_note', arguments: { path: 'a.txt' } },
    ])
    await host.close()
    expect(threw!.content).toBe('deploy did not run: deciding its permission failed (no env table); try again, or ask the user to check the permission settings')
    expect(odd!.content).toBe('deploy did not run: deciding its permission failed (its needsApproval answered "yes" instead of true or false); try again, or ask the user to check the permission settings')
    expect(other).toMatchObject({ ok: true })
  })

  test('defineTool refuses a needsApproval that is neither a boolean nor a function', () => {
    expect(() => defineTool({ name: 'x', description: 'x', parameters: { type: 'object' }, needsApproval: 'always' as never, handler: () => '' })).toThrow(/`needsApproval` must be true, false or a function/)
  })

  test('host.explain shows it as ask by the tool', async () => {
    registerDeploy((args) => args.env === 'prod')
    const host = await permissionHost(root, { mode: 'auto' }, { approve: recordingApprover().approve })
    const plan = await host.explain([
      { id: 's', name: 'deploy', arguments: { env: 'staging' } },
      { id: 'p', name: 'deploy', arguments: { env: 'prod' } },
    ])
    await host.close()
    expect(plan.calls.map((c) => c.permission)).toEqual([
      { outcome: 'allow', by: 'mode', reason: 'permission mode auto runs every call that is not destructive' },
      { outcome: 'ask', by: 'tool', reason: "deploy needs a person's approval for this call (needsApproval)" },
    ])
  })

  test('toolhost explain prints it', async () => {
    const batch = path.join(root, 'batch.json')
    writeFileSync(batch, JSON.stringify([{ id: 'd1', name: 'deploy', arguments: { env: 'prod' } }, { id: 's1', name: 'scale', arguments: { replicas: 3 } }, { id: 's2', name: 'scale', arguments: { replicas: 50 } }]))
    const config = path.join(root, 'config.yaml')
    writeFileSync(config, 'env_file: ""\nplugins:\n  dirs: []\n  builtins: false\npermissions:\n  mode: auto\n')
    const child = spawn(process.execPath, [TOOLHOST_CLI, 'explain', batch, '--yes', '--config', config, '--root', root, '--plugins', PLUGINS], { stdio: ['pipe', 'pipe', 'pipe'] })
    child.stdin.end()
    const { code, stdout } = await outputOf(child)
    expect(code).toBe(0)
    expect(stdout).toContain("d1 deploy: touches nothing shared\n    permission: ask (tool: deploy needs a person's approval for this call (needsApproval))")
    expect(stdout).toContain('s1 scale: touches nothing shared\n    permission: allow (mode: permission mode auto runs every call that is not destructive)')
    expect(stdout).toContain("s2 scale: touches nothing shared\n    permission: ask (tool: scale needs a person's approval for this call (needsApproval))")
  }, 120_000)
})
