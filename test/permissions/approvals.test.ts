import { existsSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { createDeferred } from '../../src/contract/deferred.js'
import { defineTool, registry, type ApproveHandler, type ToolCall } from '../../src/index.js'
import { permissionHost, recordingApprover, type RunLog, useFixtureWorkspace } from '../fixtures/permissions/tools.js'

describe('asking for approval', () => {
  let root: string
  let ran: RunLog
  useFixtureWorkspace((w) => ({ root, ran } = w))

  test('only the calls that ask wait; the rest run before the person answers, and the asks come together', async () => {
    const events: string[] = []
    const freeDone = createDeferred<void>()
    let freeFinished = 0
    registry.register(
      defineTool({
        name: 'free',
        description: 'Read-only, parallel-safe.',
        parameters: { type: 'object', properties: { n: { type: 'integer' } } },
        parallelSafe: true,
        readOnly: () => true,
        handler: (args) => {
          events.push(`free ${String(args.n)}`)
          if (++freeFinished === 2) freeDone.resolve()
          return 'ok'
        },
      }),
    )
    let calls = 0
    // The gate: the person answers only once both free calls have finished. If the free calls
    // waited for the approval, this would never resolve.
    const approve: ApproveHandler = async (requests) => {
      calls++
      events.push(`asked ${requests.map((r) => r.callId).join(',')}`)
      await freeDone.promise
      events.push('answered')
      return requests.map(() => ({ decision: 'allow-once' as const }))
    }
    const host = await permissionHost(root, { mode: 'ask' }, { approve })
    const batch: ToolCall[] = [
      { id: 'w1', name: 'write_note', arguments: { path: 'src/a.txt' } },
      { id: 'f1', name: 'free', arguments: { n: 1 } },
      { id: 'w2', name: 'write_note', arguments: { path: 'src/b.txt' } },
      { id: 'f2', name: 'free', arguments: { n: 2 } },
      // conflicts with the gated w1 (same path): waits for it, although it needs no approval
      { id: 'r1', name: 'read_note', arguments: { path: 'src/a.txt' } },
    ]
    const results = await host.run(batch)
    await host.close()
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true])
    expect(calls).toBe(1)
    expect(events[0]).toBe('asked w1,w2')
    expect(events.indexOf('answered')).toBeGreaterThan(events.indexOf('free 1'))
    expect(events.indexOf('answered')).toBeGreaterThan(events.indexOf('free 2'))
    expect(ran.map((r) => r.tool).sort()).toEqual(['read_note', 'write_note', 'write_note'])
    // r1 ran after w1 (it waited for the gated write), never before the answer
    const order = ran.map((r) => `${r.tool}:${String(r.args.path)}`)
    expect(order.indexOf('read_note:src/a.txt')).toBeGreaterThan(order.indexOf('write_note:src/a.txt'))
  })

  test('closing the host refuses calls still waiting for a person, instead of waiting for ever', async () => {
    const asked = createDeferred<void>()
    let sawAbort = false
    // A person who never answers (but whose handler sees the abort).
    const approve: ApproveHandler = (_requests, signal) => {
      signal.addEventListener('abort', () => (sawAbort = true), { once: true })
      asked.resolve()
      return new Promise(() => undefined)
    }
    const host = await permissionHost(root, { mode: 'ask' }, { approve })
    const pending = host.run([{ id: 'w', name: 'write_note', arguments: { path: 'src/a.txt' } }])
    await asked.promise
    await host.close()
    const [result] = await pending
    expect(result).toMatchObject({ id: 'w', ok: false, error: { code: 'E_DENIED' } })
    expect(result!.content).toMatch(/host closed before the person answered/)
    expect(sawAbort).toBe(true)
    expect(ran).toEqual([])
  })

  test('explain previews each decision (allow, ask, deny and who decided) without asking, running or auditing', async () => {
    const person = recordingApprover()
    const host = await permissionHost(root, { mode: 'ask', deny: ['write_note(secret/**)'] }, { approve: person.approve })
    const plan = await host.explain([
      { id: 'r', name: 'read_note', arguments: { path: 'src/a.txt' } },
      { id: 'w', name: 'write_note', arguments: { path: 'src/a.txt' } },
      { id: 's', name: 'write_note', arguments: { path: 'src/../secret/k.txt' } },
    ])
    await host.close()
    expect(plan.calls.map((c) => [c.id, c.permission?.outcome, c.permission?.by])).toEqual([
      ['r', 'allow', 'mode'],
      ['w', 'ask', 'mode'],
      ['s', 'deny', 'rule'],
    ])
    expect(plan.calls[2]!.permission!.reason).toMatch(/secret/)
    expect(person.batches).toEqual([])
    expect(ran).toEqual([])
    expect(existsSync(path.join(root, '.toolhost', 'audit.jsonl'))).toBe(false)
  })

  test('the request says what, with which arguments, and why', async () => {
    const person = recordingApprover()
    const host = await permissionHost(root, { mode: 'accept-edits' }, { approve: person.approve })
    await host.run([
      { id: 't', name: 'terminal', arguments: { command: 'rm -rf build' } },
      { id: 'e', name: 'write_note', arguments: { path: 'src/a.txt' } },
    ])
    await host.close()
    expect(person.batches).toHaveLength(1)
    expect(person.batches[0]).toEqual([
      { callId: 't', tool: 'terminal', args: { command: 'rm -rf build' }, subject: 'rm -rf build', reason: 'terminal says this call is destructive', askedBy: 'tool', destructive: true },
    ])
  })

  test('each answer applies to its own call: allow once, deny with a message for the model', async () => {
    const person = recordingApprover((r) => (r.callId === 'no' ? { decision: 'deny', message: 'use src/b.txt instead' } : { decision: 'allow-once' }))
    const host = await permissionHost(root, { mode: 'ask' }, { approve: person.approve })
    const [yes, no] = await host.run([
      { id: 'yes', name: 'write_note', arguments: { path: 'src/a.txt' } },
      { id: 'no', name: 'write_note', arguments: { path: 'src/c.txt' } },
    ])
    await host.close()
    expect(yes).toMatchObject({ ok: true })
    expect(no).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(no!.content).toContain('did not run')
    expect(no!.content).toContain('the user denied this call: use src/b.txt instead')
    expect(ran.map((r) => r.args.path)).toEqual(['src/a.txt'])
  })

  test('allow for the session covers later calls of the same tool and subject only', async () => {
    const person = recordingApprover(() => ({ decision: 'allow-session' }))
    const host = await permissionHost(root, { mode: 'ask', ask: ['write_note(src/**)'] }, { approve: person.approve })
    await host.run([
      { id: '1', name: 'write_note', arguments: { path: 'src/a.txt' } },
      { id: '2', name: 'terminal', arguments: { command: 'make build' } },
    ])
    const later = await host.run([
      { id: '3', name: 'write_note', arguments: { path: 'src/../src/a.txt' } }, // same canonical path
      { id: '4', name: 'write_note', arguments: { path: 'src/b.txt' } }, // another path
      { id: '5', name: 'terminal', arguments: { command: 'make  build' } }, // same command
      { id: '6', name: 'terminal', arguments: { command: 'make clean' } }, // another command
      { id: '7', name: 'copy_note', arguments: { from: 'x', to: 'src/a.txt' } }, // another tool
    ])
    await host.close()
    expect(later.every((r) => r.ok)).toBe(true)
    expect(person.batches.map((b) => b.map((r) => r.callId))).toEqual([['1', '2'], ['4', '6', '7']])
  })

  test('allow for the session covers only the caller it was answered for (issue 31: another MCP session wrote the same file unasked)', async () => {
    const person = recordingApprover(() => ({ decision: 'allow-session' }))
    const host = await permissionHost(root, { mode: 'ask', ask: ['write_note(src/**)'] }, { approve: person.approve })
    const write = (id: string): ToolCall => ({ id, name: 'write_note', arguments: { path: 'src/a.txt' } })
    await host.run([write('1')], { principal: 'mcp:http:session-one (editor)' })
    await host.run([write('2')], { principal: 'mcp:http:session-one (editor)' }) // covered: not asked
    await host.run([write('3')], { principal: 'mcp:http:session-two (editor)' }) // another session: asked
    await host.run([write('4')], { principal: 'mcp:client-7/alice (agent)' }) // another principal: asked
    await host.run([write('5')]) // the embedding's own call: asked
    await host.close()
    expect(person.batches.map((b) => b.map((r) => r.callId))).toEqual([['1'], ['3'], ['4'], ['5']])
  })

  test.each<[string, ApproveHandler, RegExp]>([
    ['rejects', async () => Promise.reject(new Error('prompt crashed')), /asking for approval failed \(prompt crashed\)/],
    ['answers too few', async () => [], /gave no valid answer/],
    ['answers nonsense', async (rs) => rs.map(() => ({ decision: 'sure' }) as never), /gave no valid answer/],
    ['does not answer a list', async () => 'yes' as never, /did not answer with a list/],
  ])('a handler that %s denies the calls it was asked about, and the rest still run', async (_name, approve, message) => {
    const host = await permissionHost(root, { mode: 'ask' }, { approve })
    const [asked, read] = await host.run([
      { id: 'w', name: 'write_note', arguments: { path: 'src/a.txt' } },
      { id: 'r', name: 'read_note', arguments: { path: 'src/z.txt' } },
    ])
    await host.close()
    expect(asked).toMatchObject({ ok: false, error: { code: 'E_DENIED', message: expect.stringMatching(message) } })
    expect(read).toMatchObject({ ok: true })
    expect(ran.map((r) => r.tool)).toEqual(['read_note'])
  })

  test('an interrupt while the person is deciding skips the asked calls', async () => {
    const controller = new AbortController()
    const seen = createDeferred<AbortSignal>()
    const approve: ApproveHandler = (_requests, signal) => {
      seen.resolve(signal)
      return new Promise(() => undefined) // never answers
    }
    const host = await permissionHost(root, { mode: 'ask' }, { approve })
    const pending = host.run([{ id: 'w', name: 'write_note', arguments: { path: 'src/a.txt' } }], { signal: controller.signal })
    expect((await seen.promise).aborted).toBe(false)
    controller.abort()
    const [result] = await pending
    await host.close()
    expect(result).toMatchObject({ ok: false, error: { code: 'E_ABORTED' } })
    expect(ran).toEqual([])
  })
})
