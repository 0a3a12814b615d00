// Hooks as a model and an operator meet them: config.yaml's commands and code hooks before and after
// a call, read through the results the model gets, the handler's arguments, the audit log and the
// schedule.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import type { HookConfig } from '../../src/config/types.js'
import type { CallHooks } from '../../src/hooks/hook-types.js'
import { createDeferred } from '../../src/contract/deferred.js'
import { defineTool, registry } from '../../src/index.js'
import { permissionHost, recordingApprover, type RunLog, useFixtureWorkspace } from '../fixtures/permissions/tools.js'

const HOOK = path.resolve(import.meta.dirname, '../fixtures/hooks/hook.mjs')
const hook = (mode: string, value?: string): string => `node ${JSON.stringify(HOOK)} ${mode}${value === undefined ? '' : ` '${value}'`}`

describe('hooks', () => {
  let root: string
  let ran: RunLog
  useFixtureWorkspace((w) => ({ root, ran } = w))

  async function hostWith(hooks: { before_call?: HookConfig[]; after_call?: HookConfig[] }, options: { code?: CallHooks; permissions?: Record<string, unknown>; approve?: ReturnType<typeof recordingApprover> } = {}) {
    return permissionHost(root, options.permissions ?? { mode: 'bypass' }, {
      config: { env_file: '', permissions: options.permissions ?? { mode: 'bypass' }, hooks },
      ...(options.code ? { hooks: options.code } : {}),
      ...(options.approve ? { approve: options.approve.approve } : {}),
    })
  }
  const hookCalls = (): Array<Record<string, unknown>> => readFileSync(path.join(root, 'hook-calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)

  test('a before-hook gets the call as JSON on stdin, runs in the workspace root, and exit 0 lets the call run', async () => {
    const host = await hostWith({ before_call: [{ tools: 'write_note', command: hook('allow') }] })
    const result = await host.call({ id: 'c1', name: 'write_note', arguments: '{"path":"a.txt","content":"hi"}' })
    await host.close()
    expect(result).toMatchObject({ ok: true, content: 'write_note ran' })
    expect(hookCalls()).toEqual([{ event: 'before_call', id: 'c1', tool: 'write_note', arguments: { path: 'a.txt', content: 'hi' } }])
  })

  test('exit 2 denies the call: the model reads the hook\'s stderr as the reason, and nothing runs', async () => {
    const host = await hostWith({ before_call: [{ tools: ['write_*', 'delete_tree'], command: hook('exit2', 'notes are frozen until Monday') }] })
    const [write, read] = await host.run([
      { id: 'w', name: 'write_note', arguments: { path: 'a.txt' } },
      { id: 'r', name: 'read_note', arguments: { path: 'a.txt' } },
    ])
    await host.close()
    expect(write).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(write!.content).toBe('write_note did not run: the hook hooks.before_call[0] denied it: notes are frozen until Monday')
    expect(read).toMatchObject({ ok: true })
    expect(ran.map((r) => r.tool)).toEqual(['read_note'])
  })

  test('{"decision":"deny"} on stdout denies too, with its reason', async () => {
    const host = await hostWith({ before_call: [{ tools: 'terminal', command: hook('answer', '{"decision":"deny","reason":"use the build tool instead"}') }] })
    const result = await host.call({ id: 't', name: 'terminal', arguments: { command: 'make' } })
    await host.close()
    expect(result.content).toBe('terminal did not run: the hook hooks.before_call[0] denied it: use the build tool instead')
    expect(ran).toEqual([])
  })

  test.each([
    ['crashes', hook('crash'), 'write_note did not run: its hook hooks.before_call[0] exited with code 1: boom, so the call was denied; this is a fault in the hook, not in your call'],
    ['times out', hook('hang'), 'write_note did not run: its hook hooks.before_call[0] did not answer within 1000 ms, so the call was denied; this is a fault in the hook, not in your call'],
    ['answers something that is not JSON', hook('answer', 'looks fine to me'), 'write_note did not run: its hook hooks.before_call[0] answered "looks fine to me", which is not a JSON object (write logs to stderr), so the call was denied; this is a fault in the hook, not in your call'],
    ['cannot be started', 'exec /nonexistent/hook-binary', 'write_note did not run: its hook hooks.before_call[0] exited with code 127'],
  ])('a hook that %s denies the call and says so', async (_name, command, message) => {
    // Only the hanging hook meets its limit (a node start takes its time on a busy machine).
    const host = await hostWith({ before_call: [{ tools: 'write_note', command, timeout_ms: command.includes('hang') ? 1000 : 30_000 }] })
    const result = await host.call({ id: 'c', name: 'write_note', arguments: { path: 'a.txt' } })
    await host.close()
    expect(result).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(result.content.slice(0, message.length)).toBe(message)
    expect(ran).toEqual([])
  })

  test('a rewrite is what the handler gets, and the schedule reserves the rewritten path before anything runs', async () => {
    // The hook moves the write from a.txt to b.txt: the read of b.txt must then wait for it; the read of a.txt need not.
    const host = await hostWith({ before_call: [{ tools: 'write_note', command: hook('answer', '{"arguments":{"path":"b.txt","content":"moved"}}') }] })
    const results = await host.run(
      [
        { id: 'w', name: 'write_note', arguments: { path: 'a.txt', content: 'x' } },
        { id: 'ra', name: 'read_note', arguments: { path: 'a.txt' } },
        { id: 'rb', name: 'read_note', arguments: { path: 'b.txt' } },
      ],
      { trace: true },
    )
    await host.close()
    expect(ran.find((r) => r.tool === 'write_note')!.args).toEqual({ path: 'b.txt', content: 'moved' })
    expect(results.map((r) => [r.id, r.waitedFor])).toEqual([['w', []], ['ra', []], ['rb', ['w']]])
  })

  test('a rewrite the schema refuses is E_ARGS_INVALID naming the field, and nothing runs', async () => {
    const host = await hostWith({ before_call: [{ tools: 'write_note', command: hook('answer', '{"arguments":{"path":7}}') }] })
    const result = await host.call({ id: 'c', name: 'write_note', arguments: { path: 'a.txt' } })
    await host.close()
    expect(result).toMatchObject({ ok: false, error: { code: 'E_ARGS_INVALID' } })
    expect(result.content).toMatch(/^write_note did not run: its hook hooks.before_call\[0\] rewrote the arguments into invalid ones \(.*path.*string.*\); this is a fault in the hook, not in your call$/)
    expect(ran).toEqual([])
  })

  test('"ask" asks the person even in a mode that would run the call; without anyone to ask it is denied', async () => {
    const person = recordingApprover()
    const asked = await hostWith({ before_call: [{ tools: 'read_note', command: hook('answer', '{"decision":"ask","reason":"reads customer data"}') }] }, { permissions: { mode: 'auto' }, approve: person })
    const result = await asked.call({ id: 'c', name: 'read_note', arguments: { path: 'a.txt' } })
    await asked.close()
    expect(result).toMatchObject({ ok: true })
    expect(person.batches[0]![0]).toMatchObject({ callId: 'c', askedBy: 'hook', reason: 'the hook hooks.before_call[0] asks for approval: reads customer data' })
    const alone = await hostWith({ before_call: [{ tools: 'read_note', command: hook('answer', '{"decision":"ask"}') }] }, { permissions: { mode: 'auto' } })
    const denied = await alone.call({ id: 'd', name: 'read_note', arguments: { path: 'a.txt' } })
    await alone.close()
    expect(denied).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(denied.content).toContain('the hook hooks.before_call[0] asks for approval')
  })

  test('model input never reaches a shell: arguments are only on stdin', async () => {
    const host = await hostWith({ before_call: [{ tools: '*', command: hook('allow') }] })
    await host.call({ id: 'x', name: 'terminal', arguments: { command: '$(touch pwned); `touch pwned2`' } })
    await host.close()
    expect(existsSync(path.join(root, 'pwned'))).toBe(false)
    expect(existsSync(path.join(root, 'pwned2'))).toBe(false)
    expect(hookCalls()[0]).toMatchObject({ arguments: { command: '$(touch pwned); `touch pwned2`' } })
  })

  test('an after-hook reads the result and may rewrite its text or withhold it', async () => {
    const host = await hostWith({ after_call: [{ tools: 'read_note', command: hook('upper') }, { tools: 'write_note', command: hook('exit2', 'the write went to a frozen folder') }] })
    const [read, write] = await host.run([
      { id: 'r', name: 'read_note', arguments: { path: 'a.txt' } },
      { id: 'w', name: 'write_note', arguments: { path: 'b.txt' } },
    ])
    await host.close()
    expect(read).toMatchObject({ ok: true, content: 'READ_NOTE RAN' })
    expect(write).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(write!.content).toBe('write_note ran, but the hook hooks.after_call[1] withheld its result: the write went to a frozen folder')
    expect(ran.map((r) => r.tool).sort()).toEqual(['read_note', 'write_note'])
    expect(hookCalls().find((c) => c.id === 'r')).toEqual({ event: 'after_call', id: 'r', tool: 'read_note', arguments: { path: 'a.txt' }, result: { ok: true, content: 'read_note ran' } })
  })

  test('each hook decision is a line of the audit log', async () => {
    const host = await hostWith({ before_call: [{ tools: 'write_note', command: hook('exit2', 'frozen') }, { tools: 'read_note', command: hook('answer', '{"arguments":{"path":"b.txt"}}') }], after_call: [{ tools: 'read_note', command: hook('allow') }] })
    await host.run([
      { id: 'w', name: 'write_note', arguments: { path: 'a.txt' } },
      { id: 'r', name: 'read_note', arguments: { path: 'a.txt' } },
    ])
    await host.close()
    const lines = readFileSync(path.join(root, '.toolhost/audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    // The two calls' before-hooks run at once: their lines come in the order the hooks finish.
    const hooks = lines.filter((l) => l.by === 'hook').map((l) => [l.callId, l.hook, l.decision, l.reason])
    const order = (hook: unknown): string => `${String(hook).startsWith('before') ? 0 : 1} ${String(hook)}`
    hooks.sort((a, b) => order(a[1]).localeCompare(order(b[1])))
    expect(hooks).toEqual([
      ['w', 'before_call hooks.before_call[0]', 'deny', 'write_note did not run: the hook hooks.before_call[0] denied it: frozen'],
      ['r', 'before_call hooks.before_call[1]', 'allow', 'rewrote the arguments'],
      ['r', 'after_call hooks.after_call[0]', 'allow', 'passed the result'],
    ])
  })

  test('hooks come from a reloaded config at once (live), and code hooks run after them', async () => {
    const order: string[] = []
    const code: CallHooks = {
      beforeCall: [{ tools: 'lookup', name: 'the lookup guard', run: (call) => (order.push('code'), call.arguments.q === 'secrets' ? { decision: 'deny', reason: 'not that' } : undefined) }],
      afterCall: [{ tools: 'lookup', run: (call) => ({ content: `${call.result!.content} (checked)` }) }],
    }
    const host = await hostWith({}, { code })
    expect((await host.call({ id: 'a', name: 'lookup', arguments: { q: 'x' } })).content).toBe('lookup ran (checked)')
    expect((await host.call({ id: 'b', name: 'lookup', arguments: { q: 'secrets' } })).content).toBe('lookup did not run: the hook the lookup guard denied it: not that')
    host.applyLiveConfig({ ...host.config, hooks: { before_call: [{ tools: 'lookup', command: hook('exit2', 'lookups are off') }], after_call: [] } })
    expect((await host.call({ id: 'c', name: 'lookup', arguments: { q: 'x' } })).content).toBe('lookup did not run: the hook hooks.before_call[0] denied it: lookups are off')
    await host.close()
    expect(order).toEqual(['code', 'code'])
  })

  test('an interrupt stops a hook still running: its process is killed and the call is E_ABORTED', async () => {
    const host = await hostWith({ before_call: [{ tools: 'write_note', command: hook('hang'), timeout_ms: 60_000 }] })
    const controller = new AbortController()
    const pending = host.call({ id: 'c', name: 'write_note', arguments: { path: 'a.txt' } }, { signal: controller.signal })
    // The gate: the hook has read its call (it appends it to hook-calls.jsonl before it hangs).
    while (!existsSync(path.join(root, 'hook-calls.jsonl'))) await new Promise((resolve) => setTimeout(resolve, 20))
    controller.abort()
    const result = await pending
    await host.close()
    expect(result).toMatchObject({ ok: false, error: { code: 'E_ABORTED' }, content: 'write_note did not run: it was interrupted (the run, or the host closing) while its hook hooks.before_call[0] ran' })
    expect(ran).toEqual([])
  })

  test('host.close() stops a hook still running: its batch is refused, nothing runs after the host closed', async () => {
    const entered = createDeferred<void>()
    const code: CallHooks = { beforeCall: [{ tools: 'lookup', timeoutMs: 600_000, run: (_call, signal) => (entered.resolve(), new Promise((resolve) => signal.addEventListener('abort', () => resolve(undefined)))) }] }
    const host = await hostWith({}, { code })
    const pending = host.run([
      { id: 'l', name: 'lookup', arguments: { q: 'x' } },
      { id: 'r', name: 'read_note', arguments: { path: 'a.txt' } },
    ])
    await entered.promise
    await host.close()
    const [looked, read] = await pending
    expect(looked).toMatchObject({ ok: false, error: { code: 'E_ABORTED' } })
    expect(read).toMatchObject({ ok: false, error: { code: 'E_ABORTED' }, content: "the call was not run: the host closed while its batch's hooks ran" })
    expect(ran).toEqual([])
  })

  test('a code hook that throws or hangs fails closed', async () => {
    const code: CallHooks = {
      beforeCall: [
        { tools: 'fetch_url', run: () => { throw new Error('kaput') } },
        { tools: 'lookup', timeoutMs: 50, run: () => new Promise(() => {}) },
      ],
    }
    const host = await hostWith({}, { code })
    const [fetched, looked] = await host.run([
      { id: 'f', name: 'fetch_url', arguments: { url: 'https://example.com' } },
      { id: 'l', name: 'lookup', arguments: { q: 'x' } },
    ])
    await host.close()
    expect(fetched!.content).toBe('fetch_url did not run: its hook the code hook beforeCall[0] threw (kaput), so the call was denied; this is a fault in the hook, not in your call')
    expect(looked!.content).toBe('lookup did not run: its hook the code hook beforeCall[1] did not answer within 50 ms, so the call was denied; this is a fault in the hook, not in your call')
    expect(ran).toEqual([])
  })

  test('config.yaml hooks are checked at start-up, naming the key', async () => {
    await expect(hostWith({ before_call: [{ tools: 'x', command: '' }] })).rejects.toThrow(/hooks\.before_call\.0\.command/)
    await expect(hostWith({ before_call: [{ command: 'true' } as never] })).rejects.toThrow(/hooks\.before_call\.0/)
  })

  test('a tool with no hook of its own is not held up by hooks on others', async () => {
    registry.register(defineTool({ name: 'plain', description: 'No hooks.', parameters: { type: 'object' }, parallelSafe: true, handler: () => 'plain ran' }))
    const host = await hostWith({ before_call: [{ tools: 'write_note', command: hook('allow') }] })
    expect((await host.call({ id: 'p', name: 'plain', arguments: {} })).content).toBe('plain ran')
    await host.close()
    expect(existsSync(path.join(root, 'hook-calls.jsonl'))).toBe(false)
  })
})
