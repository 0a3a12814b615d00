/**
 * MCP approvals × the console (issues 13 and 15): a client that declares elicitation but whose
 * elicitation fails (an error, a dropped request) has not refused anything. The call is denied
 * saying no one could be asked, never "the user denied", and an open console is asked instead.
 * In-process: the SDK client over the in-memory transport.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ElicitRequestSchema, McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import { ConsoleApprovals } from '../../src/console/console-approvals.js'
import { createHost, defineTool, ToolRegistry, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { McpSessions } from '../../src/mcp/sessions.js'
import { connectInMemory, makeTempDir } from './serve-helpers.js'

const tmp = makeTempDir('toolhost-mcp-approvals-')
afterAll(() => tmp.remove())
let host: Host | undefined
let client: Client | undefined

afterEach(async () => {
  await client?.close()
  await host?.close()
  client = undefined
  host = undefined
})

async function open(): Promise<{ host: Host; client: Client }> {
  const registry = new ToolRegistry()
  registry.register(defineTool({ name: 'zap', description: 'Writes (asks in ask mode).', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, pathScoped: true, handler: (args: { path: string }) => `zapped ${args.path}` }))
  const sessions = new McpSessions()
  host = await createHost({ root: tmp.dir, log: silentLogger, loadPlugins: false, registry, audience: 'model', config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'ask', audit_log: '' } }, approve: sessions.approve })
  ;({ client } = await connectInMemory(host, sessions, { elicitation: {} }))
  client.setRequestHandler(ElicitRequestSchema, () => {
    throw new McpError(ErrorCode.InternalError, 'the client lost its dialog')
  })
  return { host, client }
}

const text = (result: Awaited<ReturnType<Client['callTool']>>): string => (result.content as Array<{ text: string }>)[0]!.text

describe('an MCP client whose elicitation fails', () => {
  test('the call is denied saying no one could be asked and why; nobody refused it', async () => {
    const { client } = await open()
    const result = await client.callTool({ name: 'zap', arguments: { path: 'a.txt' } })
    expect(result.isError).toBe(true)
    expect(text(result)).toContain('E_DENIED')
    expect(text(result)).toMatch(/no one could be asked \(asking this MCP client failed: .*the client lost its dialog.*\); nobody refused it/)
    expect(text(result)).not.toMatch(/the user denied/)
  })

  test('an open console is asked instead, and its answer decides', async () => {
    const { host, client } = await open()
    const consoleApprovals = new ConsoleApprovals({ timeoutMs: 60_000, isOpen: () => true })
    consoleApprovals.onChange(() => {
      for (const pending of consoleApprovals.pending()) consoleApprovals.answer(pending.id, 'allow-once')
    })
    host.authoriser.attachStandby!(consoleApprovals)
    const result = await client.callTool({ name: 'zap', arguments: { path: 'b.txt' } })
    expect(result.isError).toBe(false)
    expect(text(result)).toBe('zapped b.txt')
  })
})
