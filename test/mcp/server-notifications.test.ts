/**
 * What a tool says while it runs reaches the MCP client that called it: ctx.report.log lines as
 * notifications/message (filtered by logging/setLevel), ctx.report.progress as notifications/progress
 * (a first 0 stays 0), and ctx.ask questions as elicitation (a schema is sent as it is; the
 * structured answer comes back). In-process: the SDK client over the in-memory transport.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { CallToolResultSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, type ElicitRequest, type LoggingMessageNotification, type Progress } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createHost, defineTool, ToolRegistry, type AskSchema, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { progressCounter } from '../../src/mcp/call-events.js'
import { McpSessions } from '../../src/mcp/sessions.js'
import { connectInMemory, makeTempDir } from './serve-helpers.js'

const FORM: AskSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    colour: { type: 'string', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }] },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] } },
    legacy: { type: 'string', enum: ['x', 'y'], enumNames: ['Ex', 'Why'] },
  },
  required: ['name'],
}

function fixtureRegistry(): ToolRegistry {
  const registry = new ToolRegistry()
  const none = { type: 'object', properties: {}, additionalProperties: false } as const
  registry.register(defineTool({
    name: 'chatty',
    description: 'Logs at every level, with and without fields.',
    parameters: none,
    handler: (_args, ctx) => {
      ctx.report.log.debug('a debug line')
      ctx.report.log.info('an info line')
      ctx.report.log.warn('a warning', { file: 'a.txt' })
      ctx.report.log.error('an error line')
      return 'done'
    },
  }))
  registry.register(defineTool({
    name: 'counts',
    description: 'Reports progress 0, then a message only, then 50 and 100 of 100.',
    parameters: none,
    handler: (_args, ctx) => {
      ctx.report.progress('start', 0, 100)
      ctx.report.progress('thinking')
      ctx.report.progress('half', 50, 100)
      ctx.report.progress('all', 100, 100)
      return 'counted'
    },
  }))
  registry.register(defineTool({
    name: 'form',
    description: 'Asks with a structured form and returns the answer.',
    parameters: none,
    handler: async (_args, ctx) => ({ answer: await ctx.ask!({ question: 'Fill in the form', schema: FORM }) }),
  }))
  registry.register(defineTool({
    name: 'question',
    description: 'Asks a text question (string form) and returns the answer.',
    parameters: none,
    handler: async (_args, ctx) => `heard: ${await ctx.ask!('What is your name?')}`,
  }))
  return registry
}

describe('ctx.report.log, ctx.report.progress and ctx.ask reach the MCP client of the call', () => {
  const tmp = makeTempDir('toolhost-mcp-notify-')
  const sessions = new McpSessions()
  let host: Host
  let client: Client
  const elicitations: ElicitRequest[] = []
  const logs: LoggingMessageNotification['params'][] = []

  beforeAll(async () => {
    host = await createHost({
      root: tmp.dir,
      log: silentLogger,
      loadPlugins: false,
      registry: fixtureRegistry(),
      config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' } },
      ask: (request, signal) => sessions.ask(request, signal),
    })
    ;({ client } = await connectInMemory(host, sessions, { elicitation: {} }))
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params))
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitations.push(request)
      const schema = (request.params as { requestedSchema: AskSchema }).requestedSchema
      if (schema.properties.answer) return { action: 'accept', content: { answer: 'Ada' } }
      return { action: 'accept', content: { name: 'Jane', age: 25, colour: 'g', tags: ['a', 'c'], legacy: 'y' } }
    })
  })

  afterAll(async () => {
    await client?.close()
    await host?.close()
    tmp.remove()
  })

  test('the server declares logging and resources; ctx.report.log lines arrive from info up by default', async () => {
    expect(client.getServerCapabilities()).toMatchObject({ logging: {}, resources: { subscribe: true, listChanged: true }, tools: { listChanged: true } })
    logs.length = 0
    await client.callTool({ name: 'chatty', arguments: {} })
    expect(logs).toEqual([
      { level: 'info', logger: 'chatty', data: 'an info line' },
      { level: 'warning', logger: 'chatty', data: { message: 'a warning', file: 'a.txt' } },
      { level: 'error', logger: 'chatty', data: 'an error line' },
    ])
  })

  test('logging/setLevel is honoured: debug shows everything, error only errors', async () => {
    await client.setLoggingLevel('debug')
    logs.length = 0
    await client.callTool({ name: 'chatty', arguments: {} })
    expect(logs.map((l) => l.level)).toEqual(['debug', 'info', 'warning', 'error'])
    await client.setLoggingLevel('error')
    logs.length = 0
    await client.callTool({ name: 'chatty', arguments: {} })
    expect(logs.map((l) => l.level)).toEqual(['error'])
    await client.setLoggingLevel('info')
  })

  test('regression (issue 13): a first progress of 0 is sent as 0, and values keep increasing', async () => {
    const seen: Progress[] = []
    await client.request({ method: 'tools/call', params: { name: 'counts', arguments: {} } }, CallToolResultSchema, { onprogress: (p) => void seen.push(p) })
    expect(seen.map((p) => [p.progress, p.total])).toEqual([[0, 100], [1, undefined], [50, 100], [100, 100]])
  })

  test('ctx.ask({ question, schema }) sends the schema as it is and returns the structured answer', async () => {
    elicitations.length = 0
    const result = await client.callTool({ name: 'form', arguments: {} })
    expect(elicitations).toHaveLength(1)
    expect(elicitations[0]!.params).toMatchObject({ message: 'Fill in the form', requestedSchema: FORM })
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: JSON.stringify({ answer: { name: 'Jane', age: 25, colour: 'g', tags: ['a', 'c'], legacy: 'y' } }) }] })
  })

  test('the text form still works: ctx.ask(question) asks for one answer field and returns text', async () => {
    const result = await client.callTool({ name: 'question', arguments: {} })
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'heard: Ada' }] })
  })
})

test.each([
  { reported: [0, 50, 100], sent: [0, 50, 100] },
  { reported: [undefined, undefined], sent: [1, 2] },
  { reported: [5, 5, 3, 10], sent: [5, 6, 7, 10] },
])('progressCounter: $reported is sent as $sent', ({ reported, sent }) => {
  const next = progressCounter()
  expect(reported.map((r) => next(r))).toEqual(sent)
})
