/**
 * MCP 2026-07-28 with the v2 SDK client, in-process over the stdio serving path (`serveConnection`
 * on an in-memory pair): the version negotiated by `server/discover`, tools/list sorted, per-request
 * `_meta` (log level, capabilities), progress, list changes over `subscriptions/listen`, and
 * questions as multi round-trip requests — `ctx.ask` (the handler runs again and gets the answer),
 * approvals (allow once / for the session / deny with a reason), a client without elicitation, and
 * the sealed `requestState` refused when tampered with, bound to another call, or replayed.
 */
import type { Client } from '@modelcontextprotocol/client'
import { LOG_LEVEL_META_KEY } from '@modelcontextprotocol/client'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import { ConsoleApprovals } from '../../src/console/console-approvals.js'
import { createHost, defineTool, ToolRegistry, type AskSchema, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { McpSessions } from '../../src/mcp/sessions.js'
import { notifyOnToolChanges } from '../../src/mcp/server.js'
import { connectV2InMemory, eventually, makeTempDir } from './serve-helpers.js'

const tmp = makeTempDir('toolhost-mcp-modern-')
afterAll(() => tmp.remove())

const NONE = { type: 'object', properties: {}, additionalProperties: false } as const
const FORM: AskSchema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'] }

interface Opened { host: Host; client: Client; registry: ToolRegistry; runs: Map<string, number>; close: () => Promise<void> }
let opened: Opened | undefined

afterEach(async () => {
  await opened?.close()
  opened = undefined
})

async function open(options: { elicitation?: boolean; mode?: 'ask' | 'bypass'; answer?: (message: string, schema: Record<string, unknown>) => Record<string, unknown> | 'decline' } = {}): Promise<Opened> {
  const registry = new ToolRegistry()
  const runs = new Map<string, number>()
  const ran = (name: string): void => void runs.set(name, (runs.get(name) ?? 0) + 1)
  registry.register(defineTool({ name: 'zeta', description: 'Sorted last.', parameters: NONE, readOnly: () => true, handler: () => 'z' }))
  registry.register(defineTool({ name: 'alpha', description: 'Sorted first.', parameters: NONE, readOnly: () => true, handler: () => 'a' }))
  registry.register(defineTool({
    name: 'chatty', description: 'Logs at every level and reports progress.', parameters: NONE, readOnly: () => true,
    handler: (_args, ctx) => {
      ctx.report.log.debug('a debug line')
      ctx.report.log.info('an info line')
      ctx.report.log.error('an error line')
      ctx.report.progress('half', 50, 100)
      return 'done'
    },
  }))
  registry.register(defineTool({
    name: 'interview', description: 'Asks a form, then a text question; counts its runs.', parameters: NONE, readOnly: () => true,
    handler: async (_args, ctx) => {
      ran('interview')
      const form = await ctx.ask!({ question: 'Who are you?', schema: FORM })
      const colour = await ctx.ask!('Favourite colour?')
      return JSON.stringify({ form, colour })
    },
  }))
  registry.register(defineTool({
    name: 'zap', description: 'Pretends to delete a path.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    pathScoped: true, destructive: () => true, handler: (args: { path: string }) => {
      ran('zap')
      return `zapped ${args.path}`
    },
  }))
  registry.register(defineTool({ name: 'clarify', description: 'Asks the person.', parameters: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] }, readOnly: () => true, handler: async (args: { question: string }, ctx) => ctx.ask!(args.question) }))
  const sessions = new McpSessions()
  const host = await createHost({
    root: tmp.dir, log: silentLogger, loadPlugins: false, registry, audience: 'model',
    config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: options.mode ?? 'bypass', audit_log: '' } },
    ask: (request, signal) => sessions.ask(request, signal), approve: sessions.approve,
  })
  const stopNotify = notifyOnToolChanges(host, sessions, 5)
  const { client, close } = await connectV2InMemory(host, sessions, { capabilities: options.elicitation === false ? {} : { elicitation: { form: {} } } })
  if (options.elicitation !== false) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { message: string; requestedSchema: Record<string, unknown> }
      const answer = options.answer?.(params.message, params.requestedSchema) ?? { decision: 'allow-once' }
      return answer === 'decline' ? { action: 'decline' } : { action: 'accept', content: answer as Record<string, string> }
    })
  }
  opened = { host, client, registry, runs, close: async () => { stopNotify(); await close(); await host.close() } }
  return opened
}

const text = (result: { content?: unknown }): string => ((result.content as Array<{ text?: string }>)[0]?.text ?? '')

describe('a v2 client negotiates 2026-07-28 and gets the stateless server', () => {
  test('server/discover: the revision, the capabilities, no session; tools/list sorted by name', async () => {
    const { client } = await open()
    expect(client.getProtocolEra()).toBe('modern')
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    expect(client.getServerVersion()).toMatchObject({ name: 'toolhost' })
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } })
    const names = (await client.listTools()).tools.map((t) => t.name)
    expect(names).toEqual([...names].sort())
    expect(names[0]).toBe('alpha')
  })

  test('log lines follow the request\'s own _meta log level (none without one); progress arrives', async () => {
    const { client } = await open()
    const lines: string[] = []
    client.setNotificationHandler('notifications/message', (n) => void lines.push(`${n.params.level}:${String(n.params.data)}`))
    await client.callTool({ name: 'chatty', arguments: {} })
    expect(lines).toEqual([])
    const progress: number[] = []
    await client.callTool({ name: 'chatty', arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: 'error' } }, { onprogress: (p) => void progress.push(p.progress) })
    expect(lines).toEqual(['error:an error line'])
    lines.length = 0
    await client.callTool({ name: 'chatty', arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: 'debug' } })
    expect(lines).toEqual(['debug:a debug line', 'info:an info line', 'error:an error line'])
    expect(progress.length).toBeLessThanOrEqual(1) // the last progress may race the result (not asserted further)
  })

  test('an unknown tool is one InvalidParams error, E_TOOL_UNKNOWN, worded once, and the host saw it refused', async () => {
    const { client, host } = await open()
    const refused: string[] = []
    const stop = host.onEvent((event) => void (event.type === 'refused' && refused.push(`${event.name} ${event.code}`)))
    const error = await client.callTool({ name: 'alpah', arguments: {} }).then(() => undefined, (e: unknown) => e as { code: number; message: string; data: unknown })
    stop()
    expect(error).toMatchObject({ code: -32602, data: { code: 'E_TOOL_UNKNOWN' } })
    expect(error!.message).toBe('E_TOOL_UNKNOWN: there is no tool named "alpah". Did you mean "alpha"?')
    expect(refused).toEqual(['alpah E_TOOL_UNKNOWN'])
  })

  test('a registry change reaches the client over subscriptions/listen', async () => {
    const { client, registry } = await open()
    const changed: number[] = []
    client.setNotificationHandler('notifications/tools/list_changed', () => void changed.push(1))
    const subscription = await client.listen({ toolsListChanged: true })
    expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true })
    registry.register(defineTool({ name: 'late', description: 'Joins later.', parameters: NONE, handler: () => 'late' }))
    await eventually(() => (changed.length > 0 ? true : undefined), 'tools/list_changed on the listen stream')
    expect((await client.listTools({}, { cacheMode: 'refresh' })).tools.map((t) => t.name)).toContain('late')
    await subscription.close()
  })
})

describe('questions as multi round-trip requests', () => {
  test('ctx.ask: each question ends a round; the handler runs again and gets the answers in order', async () => {
    const asked: string[] = []
    const { client, runs } = await open({
      answer: (message) => {
        asked.push(message)
        return message === 'Who are you?' ? { name: 'Ada', age: 36 } : { answer: 'green' }
      },
    })
    const result = await client.callTool({ name: 'interview', arguments: {} })
    expect(result.isError).toBe(false)
    expect(JSON.parse(text(result))).toEqual({ form: { name: 'Ada', age: 36 }, colour: 'green' })
    expect(asked).toEqual(['Who are you?', 'Favourite colour?'])
    expect(runs.get('interview')).toBe(3) // ran, asked; ran again, asked; ran to the end
  })

  test('approvals: allow once runs the call; deny carries the reason; allow for the session asks once', async () => {
    let decision: Record<string, unknown> = { decision: 'allow-once' }
    const asked: string[] = []
    const { client, runs } = await open({ mode: 'ask', answer: (message, schema) => {
      asked.push(message)
      expect(Object.keys(schema.properties as object)).toEqual(['decision', 'reason'])
      return decision
    } })
    expect(text(await client.callTool({ name: 'zap', arguments: { path: 'a.txt' } }))).toBe('zapped a.txt')
    expect(runs.get('zap')).toBe(1) // the first round stopped before the handler
    decision = { decision: 'deny', reason: 'not on Fridays' }
    const denied = await client.callTool({ name: 'zap', arguments: { path: 'b.txt' } })
    expect(denied.isError).toBe(true)
    expect(text(denied)).toMatch(/E_DENIED.*not on Fridays/)
    decision = { decision: 'allow-session' }
    await client.callTool({ name: 'zap', arguments: { path: 'c.txt' } })
    asked.length = 0
    expect(text(await client.callTool({ name: 'zap', arguments: { path: 'c.txt' } }))).toBe('zapped c.txt')
    expect(asked).toEqual([])
    expect(runs.get('zap')).toBe(3)
  })

  test('a client without elicitation: no clarify, ctx.ask fails, approvals denied as no one could be asked, or answered by an open console', async () => {
    const { client, host } = await open({ elicitation: false, mode: 'ask' })
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('clarify')
    const interview = await client.callTool({ name: 'interview', arguments: {} })
    expect(text(interview)).toMatch(/E_TOOL_FAILED.*elicitation capability/)
    const denied = await client.callTool({ name: 'zap', arguments: { path: 'a.txt' } })
    expect(text(denied)).toMatch(/E_DENIED.*no one could be asked \(this MCP client cannot answer questions: it has no elicitation capability\); nobody refused it/)
    const consoleApprovals = new ConsoleApprovals({ timeoutMs: 60_000, isOpen: () => true })
    consoleApprovals.onChange(() => {
      for (const pending of consoleApprovals.pending()) consoleApprovals.answer(pending.id, 'allow-once')
    })
    host.authoriser.attachStandby!(consoleApprovals)
    expect(text(await client.callTool({ name: 'zap', arguments: { path: 'b.txt' } }))).toBe('zapped b.txt')
  })
})

describe('the sealed requestState (manual rounds)', () => {
  const retry = (client: Client, args: Record<string, unknown>, requestState: string, decision = 'allow-once') =>
    client.callTool({ name: 'zap', arguments: args, inputResponses: { 'approve-1': { action: 'accept', content: { decision } } }, requestState } as Parameters<Client['callTool']>[0], { allowInputRequired: true })

  async function firstRound(client: Client): Promise<string> {
    const first = await client.callTool({ name: 'zap', arguments: { path: 'x.txt' } }, { allowInputRequired: true }) as unknown as { resultType: string; inputRequests: Record<string, unknown>; requestState: string }
    expect(first.resultType).toBe('input_required')
    expect(Object.keys(first.inputRequests)).toEqual(['approve-1'])
    return first.requestState
  }

  test('the retry with the state runs the call once; the same state again is refused as replayed', async () => {
    const { client, runs } = await open({ mode: 'ask' })
    const state = await firstRound(client)
    expect(text(await retry(client, { path: 'x.txt' }, state))).toBe('zapped x.txt')
    await expect(retry(client, { path: 'x.txt' }, state)).rejects.toMatchObject({ code: -32602, data: { code: 'E_REQUEST_STATE_REPLAYED' } })
    expect(runs.get('zap')).toBe(1)
  })

  test('a tampered state, or one for other arguments, is refused and runs nothing', async () => {
    const { client, runs } = await open({ mode: 'ask' })
    const state = await firstRound(client)
    const [prefix, body, mac] = state.split('.') as [string, string, string]
    const forged = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>
    forged.call = 'another call'
    const tampered = `${prefix}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${mac}`
    await expect(retry(client, { path: 'x.txt' }, tampered)).rejects.toMatchObject({ code: -32602, data: { code: 'E_REQUEST_STATE_INVALID' } })
    await expect(retry(client, { path: 'elsewhere.txt' }, state)).rejects.toMatchObject({ code: -32602, data: { code: 'E_REQUEST_STATE_MISMATCH' } })
    expect(runs.get('zap')).toBeUndefined()
  })
})

describe('resources for a 2026 client', () => {
  test('a running process\'s log, subscribed through subscriptions/listen, sends resources/updated; a miss is -32602 with the uri', async () => {
    const { client, host } = await open()
    const updated: string[] = []
    client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri))
    const { id } = await host.services.processes.spawn(`${JSON.stringify(process.execPath)} -e "console.log('first'); setInterval(() => console.log('more'), 50)"`)
    const uri = `toolhost://processes/${id}/log`
    const subscription = await client.listen({ resourceSubscriptions: [uri] })
    await eventually(() => (updated.includes(uri) ? true : undefined), 'notifications/resources/updated over subscriptions/listen')
    expect(((await client.readResource({ uri })).contents[0] as { text: string }).text).toMatch(/^first/)
    await host.services.processes.kill(id)
    await subscription.close()
    await expect(client.readResource({ uri: 'toolhost://results/none.txt' })).rejects.toMatchObject({ code: -32602, data: { uri: 'toolhost://results/none.txt' } })
  })
})

describe('the v2 client in legacy mode is a 2025 session', () => {
  test('it initialises, and its approvals come as elicitation/create (the call runs once)', async () => {
    const registry = new ToolRegistry()
    let ran = 0
    registry.register(defineTool({ name: 'zap', description: 'Pretends to delete.', parameters: NONE, destructive: () => true, handler: () => `zapped ${++ran}` }))
    const sessions = new McpSessions()
    const host = await createHost({ root: tmp.dir, log: silentLogger, loadPlugins: false, registry, audience: 'model', config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'ask', audit_log: '' } }, approve: sessions.approve })
    const { client, close } = await connectV2InMemory(host, sessions, { capabilities: { elicitation: { form: {} } }, mode: 'legacy' })
    opened = { host, client, registry, runs: new Map(), close: async () => { await close(); await host.close() } }
    const asked: string[] = []
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message)
      return { action: 'accept', content: { decision: 'allow-once' } }
    })
    expect(client.getProtocolEra()).toBe('legacy')
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25')
    expect(sessions.describe()).toEqual([{ name: 'toolhost-test-v2', version: '2.0.0', elicitation: true, calls: 0, withheld: [] }])
    expect(text(await client.callTool({ name: 'zap', arguments: {} }))).toBe('zapped 1')
    expect(asked).toHaveLength(1)
  })
})

describe('who called, in the audit log', () => {
  test('a call from an MCP client is written with principal mcp:<connection> (<client name>) on both revisions', async () => {
    const { readFileSync } = await import('node:fs')
    const path = await import('node:path')
    const audit = path.join(tmp.dir, 'principal-audit.jsonl')
    const registry = new ToolRegistry()
    registry.register(defineTool({ name: 'zap', description: 'Pretends to delete.', parameters: NONE, destructive: () => true, handler: () => 'zapped' }))
    const sessions = new McpSessions()
    const host = await createHost({ root: tmp.dir, log: silentLogger, loadPlugins: false, registry, audience: 'model', config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'ask', audit_log: audit } }, approve: sessions.approve, ask: (request, signal) => sessions.ask(request, signal) })
    opened = { host, client: undefined as unknown as Client, registry, runs: new Map(), close: async () => { await host.close() } }
    for (const mode of ['legacy', 'auto'] as const) {
      const { client, close } = await connectV2InMemory(host, sessions, { capabilities: { elicitation: { form: {} } }, mode })
      client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { decision: 'allow-once' } }))
      expect(text(await client.callTool({ name: 'zap', arguments: {} }))).toBe('zapped')
      await close()
    }
    await host.close()
    const lines = readFileSync(audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { tool?: string; principal?: string })
    const principals = lines.filter((l) => l.tool === 'zap').map((l) => l.principal)
    expect(principals.length).toBeGreaterThanOrEqual(2)
    for (const principal of principals) expect(principal).toMatch(/^mcp:stdio:[0-9a-f-]{36} \(toolhost-test-v2\)$/)
    // Issue 31: a 2026 round that has only sent input_required is no decision, never "the person denied".
    const decisions = (lines as { tool?: string; decision?: string; by?: string }[]).filter((l) => l.tool === 'zap').map((l) => `${l.decision} by ${l.by}`)
    expect(decisions).toContain('pending by asking')
    expect(decisions.filter((d) => d === 'allow-once by person')).toHaveLength(2) // once per revision
    expect(decisions.filter((d) => d.startsWith('deny'))).toEqual([])
  })
})
