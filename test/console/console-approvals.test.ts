import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { createHost, defineTool, registry } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { makeRoot } from '../fixtures/permissions/tools.js'
import { ConsoleApprovals } from '../../src/console/console-approvals.js'
import { withStandby, type ApprovalAnswer, type ApprovalRequest, type ApproveHandler } from '../../src/permissions/approvals.js'

const request = (callId: string, tool = 'write_note'): ApprovalRequest => ({ callId, tool, args: { path: `${callId}.txt` }, subject: `${callId}.txt`, reason: `${tool} is not read-only (mode ask)`, askedBy: 'mode', destructive: false })
const never = new AbortController().signal

afterEach(() => vi.useRealTimers())

describe('ConsoleApprovals', () => {
  test('each request waits for its own answer; the batch resolves once all are answered, in order, as the console\'s', async () => {
    const approvals = new ConsoleApprovals({ timeoutMs: 60_000, isOpen: () => true })
    const answers = approvals.approve([request('c1'), request('c2')], never)
    const [first, second] = approvals.pending()
    expect([first!.callId, second!.callId]).toEqual(['c1', 'c2'])
    expect(first!.args).toBe('{"path":"c1.txt"}')
    expect(approvals.answer(second!.id, 'deny', '  not now ')).toBe(true)
    expect(approvals.pending().map((p) => p.callId)).toEqual(['c1'])
    expect(approvals.answer(second!.id, 'allow-once')).toBe(false) // already answered
    expect(approvals.answer(first!.id, 'allow-session')).toBe(true)
    expect(await answers).toEqual([{ decision: 'allow-session', by: 'console' }, { decision: 'deny', message: 'not now', by: 'console' }])
  })

  test('after timeoutMs the unanswered ones are answered cannot-ask with a message that says no one answered in time', async () => {
    vi.useFakeTimers()
    const approvals = new ConsoleApprovals({ timeoutMs: 90_000, isOpen: () => true })
    const answers = approvals.approve([request('c1'), request('c2')], never)
    approvals.answer(approvals.pending()[0]!.id, 'allow-once')
    await vi.advanceTimersByTimeAsync(90_000)
    const [one, two] = await answers
    expect(one).toEqual({ decision: 'allow-once', by: 'console' })
    expect(two).toMatchObject({ decision: 'cannot-ask', by: 'console-timeout' })
    expect((two as { why: string }).why).toMatch(/no one answered in the console within 90 s: permissions\.console_approvals\.timeout_ms/)
    expect(approvals.pending()).toEqual([])
  })

  test('an interrupted run takes its requests off the console at once', async () => {
    const approvals = new ConsoleApprovals({ timeoutMs: 60_000, isOpen: () => true })
    const controller = new AbortController()
    let changes = 0
    approvals.onChange(() => changes++)
    const answers = approvals.approve([request('c1')], controller.signal)
    controller.abort()
    expect(await answers).toEqual([{ decision: 'cannot-ask', why: 'it was interrupted while it waited for a decision in the console', by: 'console' }])
    expect(approvals.pending()).toEqual([])
    expect(changes).toBe(2) // asked, then taken off
  })
})

describe('withStandby: the host\'s approver, then the console for what it could not ask', () => {
  test('only the requests the first approver answered cannot-ask go to the standby, and only while it is present', async () => {
    const first: ApproveHandler = async (requests) => requests.map((r): ApprovalAnswer => (r.callId === 'elicited' ? { decision: 'allow-once', by: 'mcp-elicitation' } : { decision: 'cannot-ask', why: 'this client cannot be asked', by: 'mcp-no-elicitation' }))
    const asked: string[][] = []
    let present = true
    const standby = { isPresent: () => present, approve: (async (requests) => { asked.push(requests.map((r) => r.callId)); return requests.map(() => ({ decision: 'allow-once', by: 'console' })) }) as ApproveHandler }
    const approve = withStandby(first, standby)
    expect(await approve([request('elicited'), request('plain')], never)).toEqual([{ decision: 'allow-once', by: 'mcp-elicitation' }, { decision: 'allow-once', by: 'console' }])
    expect(asked).toEqual([['plain']])
    present = false
    expect(await approve([request('plain')], never)).toEqual([{ decision: 'cannot-ask', why: 'this client cannot be asked', by: 'mcp-no-elicitation' }])
    expect(asked).toHaveLength(1)
  })

  test('with no host approver, every request goes to the standby', async () => {
    const standby = { isPresent: () => true, approve: (async (requests) => requests.map(() => ({ decision: 'deny', by: 'console' }))) as ApproveHandler }
    expect(await withStandby(undefined, standby)([request('a'), request('b')], never)).toEqual([{ decision: 'deny', by: 'console' }, { decision: 'deny', by: 'console' }])
  })
})

describe('console approvals × a client that cannot be asked × the audit log', () => {
  test('no one answers in the console: denied saying no one answered (nobody refused), and the audit line names the console\'s time limit as what decided', async () => {
    const { root, cleanup } = makeRoot()
    try {
      registry.register(defineTool({ name: 'write_note', description: 'Writes a note.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, pathScoped: true, handler: () => 'wrote' }))
      // What an MCP client without elicitation answers (see McpSessions.approve).
      const client: ApproveHandler = async (requests) => requests.map(() => ({ decision: 'cannot-ask', why: 'this MCP client cannot answer questions: it has no elicitation capability', by: 'mcp-no-elicitation' }))
      const host = await createHost({ root, loadPlugins: false, log: silentLogger, env: {}, approve: client, config: { env_file: '', permissions: { mode: 'ask' } } })
      const consoleApprovals = new ConsoleApprovals({ timeoutMs: 20, isOpen: () => true })
      host.authoriser.attachStandby!(consoleApprovals)
      const [result] = await host.run([{ id: 'w1', name: 'write_note', arguments: { path: 'a.txt' } }])
      await host.close()
      expect(result).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
      expect(result!.content).toMatch(/no one could be asked \(no one answered in the console within 20 ms: permissions\.console_approvals\.timeout_ms\); nobody refused it\./)
      expect(result!.content).not.toMatch(/the user denied/)
      const audit = readFileSync(path.join(root, '.toolhost/audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(audit.filter((l) => l.callId === 'w1').map((l) => [l.decision, l.by, l.answeredBy])).toEqual([['ask', 'mode', undefined], ['deny', 'no-approver', 'console-timeout']])
    } finally {
      registry.clear()
      cleanup()
    }
  })
})
