/**
 * `toolhost serve --http` with its console at `/`: the start-up line with the token, and an MCP
 * client that cannot be asked (no elicitation) whose call waits for the console while one is open.
 */
import { spawn } from 'node:child_process'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { FIXTURE_CONFIG, makeTempDir, REPO } from '../mcp/serve-helpers.js'
import { login, openEvents, request } from './console-kit.js'
import { TOOLHOST_CLI } from '../toolhost-cli.js'

type Text = { type: string; text: string }

describe('toolhost serve --http: the console beside /mcp', { timeout: 60_000 }, () => {
  const tmp = makeTempDir('toolhost-console-serve-')
  let mcpUrl: URL
  let consoleUrl: string
  let stop: () => Promise<void>
  let client: Client

  beforeAll(async () => {
    const child = spawn(process.execPath, [TOOLHOST_CLI, 'serve', '--http', '0', '--root', tmp.dir, '--config', FIXTURE_CONFIG, '--permission-mode', 'ask'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8')
        const mcp = /MCP Streamable HTTP at (\S+)/.exec(stderr)
        const printed = /console at (\S+)/.exec(stderr)
        if (mcp && printed) {
          mcpUrl = new URL(mcp[1]!)
          consoleUrl = printed[1]!
          resolve()
        }
      })
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)))
    })
    stop = () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
    })
    client = new Client({ name: 'no-elicitation', version: '2.0.0' }) // declares no elicitation: cannot be asked
    await client.connect(new StreamableHTTPClientTransport(mcpUrl))
  }, 60_000)

  afterAll(async () => {
    await client?.close()
    await stop?.()
    tmp.remove()
  })

  test('prints the console address with its token on the MCP server\'s origin', () => {
    const url = new URL(consoleUrl)
    expect(url.origin).toBe(mcpUrl.origin)
    expect(url.pathname).toBe('/')
    expect(url.searchParams.get('token')).toMatch(/^[0-9a-f]{48}$/)
  })

  test('no console open: the client that cannot be asked gets the call denied, as before', async () => {
    const denied = await client.callTool({ name: 'zap', arguments: { path: 'a.txt' } })
    expect(denied.isError).toBe(true)
    expect((denied.content as Text[])[0]!.text).toMatch(/E_DENIED: zap did not run: it needs approval \(.*\) and no one could be asked \(this MCP client cannot answer questions: it has no elicitation capability\); nobody refused it/)
  })

  test('a console open: the same call waits for it, lists the client, and runs once approved there', async () => {
    const cookie = await login(consoleUrl)
    const origin = new URL(consoleUrl).origin
    const events = await openEvents(origin, cookie)
    const snapshot = await events.next<{ csrf: string; clients: Array<{ name: string; elicitation: boolean }> }>('snapshot')
    // What the client is offered: the console's clients say which tools it never sees.
    expect(snapshot.clients).toContainEqual(expect.objectContaining({ name: 'no-elicitation', elicitation: false, withheld: ['clarify'] }))
    const call = client.callTool({ name: 'zap', arguments: { path: 'b.txt' } })
    const { approvals } = await events.next<{ approvals: Array<{ id: string; tool: string }> }>('approvals', (d) => d.approvals.length === 1)
    expect(approvals[0]!.tool).toBe('zap')
    const answer = await request(`${origin}/console/api/approvals/${approvals[0]!.id}`, { method: 'POST', headers: { 'content-type': 'application/json', cookie, origin, 'x-toolhost-csrf': snapshot.csrf }, body: '{"decision":"allow-once"}' })
    expect(answer.status).toBe(200)
    const result = await call
    expect(result.isError).toBe(false)
    events.close()
  })

  test('an unknown tool over MCP: the client reads one clear error; the console shows it refused like other refused calls', async () => {
    const cookie = await login(consoleUrl)
    const origin = new URL(consoleUrl).origin
    const events = await openEvents(origin, cookie)
    await events.next('snapshot')
    const error = await client.callTool({ name: 'zapp', arguments: {} }).then(() => undefined, (e: unknown) => e as Error)
    expect(error!.message).toBe('MCP error -32602: E_TOOL_UNKNOWN: there is no tool named "zapp". Did you mean "zap"?')
    type Call = { name: string; state: string; code?: string; message?: string }
    const { calls } = await events.next<{ calls: Call[] }>('calls', (d) => d.calls.some((c) => c.name === 'zapp'))
    expect(calls.find((c) => c.name === 'zapp')).toMatchObject({ state: 'refused', code: 'E_TOOL_UNKNOWN', message: expect.stringContaining('there is no tool named "zapp"') })
    events.close()
  })

  test('/mcp still answers beside the console, and the console needs its cookie', async () => {
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    expect((await request(`${new URL(consoleUrl).origin}/`)).status).toBe(401)
  })
})
