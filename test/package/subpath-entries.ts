// The subpath exports (toolhost/workspace, /processes, /mcp, /console, /otel, /ai-sdk, /openai-agents) and the commands that
// serve files from the package (serve's console page, --trace-file), proven from the installed
// tarball. Registered by package.test.ts, so they share its one consumer install.
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { ASSET_NAMES } from '../../src/console/console-assets.js'
import type { TraceDocument } from '../../src/observe/trace-file.js'
import { checkTrace } from '../observe/trace-checks.js'
import { childEnv, FRAMEWORK_PEERS, run, runTraced, typeCheck, type PackageKit, type Run } from './package-kit.js'

const SLOW = 180_000

/** The subpaths package.json exports, besides '.' (the main entry has its own tests). */
export const SUBPATHS = ['toolhost/workspace', 'toolhost/processes', 'toolhost/mcp', 'toolhost/console', 'toolhost/otel', 'toolhost/ai-sdk', 'toolhost/openai-agents'] as const

// GETs the console at the printed address: the token is exchanged for the session cookie (303), then
// the page and each file it loads are fetched with it. Prints what came back as JSON.
const FETCH_CONSOLE = `export async function fetchConsole(url, names) {
  const login = await fetch(url, { redirect: 'manual' })
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]
  const files = {}
  for (const name of names) {
    const response = await fetch(new URL(name === 'index.html' ? '/' : '/console/' + name, url), { headers: { cookie } })
    files[name] = { status: response.status, type: response.headers.get('content-type'), body: await response.text() }
  }
  const denied = await fetch(new URL('/', url))
  return { login: login.status, location: login.headers.get('location'), denied: denied.status, files }
}
`

const CONSOLE_AND_OTEL = `import { createHost } from 'toolhost'
import { attachConsole } from 'toolhost/console'
import { instrumentHost } from 'toolhost/otel'
import { fetchConsole } from './fetch-console.mjs'

// A tracer that records the spans it is asked for: every method of a span returns the span.
const spans = []
const tracer = {
  startSpan(name) {
    const span = new Proxy({}, { get: (_, key) => (key === 'end' ? () => spans.push(name) : key === 'isRecording' ? () => true : () => span) })
    return span
  },
}
const host = await createHost({ root: '.', audit: false, config: { plugins: { builtins: ['basics'] } } })
const stop = instrumentHost(host, { tracer })
const web = await attachConsole(host)
const seen = await fetchConsole(web.url, ${JSON.stringify(ASSET_NAMES)})
const results = await host.run([{ id: 'a', name: 'echo', arguments: { text: 'hi' } }, { id: 'b', name: 'current_time', arguments: {} }])
stop()
await host.close()
console.log(JSON.stringify({ url: web.url, ...seen, ok: results.map((r) => r.ok), spans }))
`

const MCP_ROUND_TRIP = `import { createHost } from 'toolhost'
import { McpSessions, serveConnection } from 'toolhost/mcp'
// The MCP SDK is toolhost's own dependency; a user would install it to write a client.
import { Client, InMemoryTransport } from '@modelcontextprotocol/client'

const host = await createHost({ root: '.', audit: false, config: { plugins: { builtins: ['basics'] } } })
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
const close = serveConnection(host, new McpSessions(), serverSide)
const client = new Client({ name: 'package-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
await client.connect(clientSide)
const { tools } = await client.listTools()
const called = await client.callTool({ name: 'echo', arguments: { text: 'over MCP' } })
// Read before close: the v2 client forgets the connection's era and server when it closes.
const era = client.getProtocolEra()
const server = client.getServerVersion()
await client.close()
await close()
await host.close()
console.log(JSON.stringify({ era, server, tools: tools.map((t) => t.name).sort(), content: called.content }))
`

const TOOL_HELPERS = `import { createHost, defineTool, ToolRegistry } from 'toolhost'
import { compileLinearRegex, workspaceFor } from 'toolhost/workspace'
import { isDangerousForOpenHosts, ProcessRegistry } from 'toolhost/processes'

const registry = new ToolRegistry()
registry.register(defineTool({
  name: 'line_count', description: 'Count the lines of a text file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
  readOnly: () => true,
  handler: async (args, ctx) => {
    const ws = workspaceFor(ctx)
    return String((await ws.readFile(ws.resolve(args.path, 'read'))).toString('utf8').split('\\n').length)
  },
}))
const host = await createHost({ root: '.', audit: false, registry, loadPlugins: false })
const results = await host.run([{ id: 'a', name: 'line_count', arguments: { path: 'notes.txt' } }, { id: 'b', name: 'line_count', arguments: { path: '../outside.txt' } }])
const options = ProcessRegistry.optionsFromConfig(host.config, host.root)
await host.close()
let refused
try {
  compileLinearRegex('(a)\\\\1')
} catch (error) {
  refused = error.name
}
const processes = await ProcessRegistry.open(options)
const started = await processes.spawn('echo from a process')
const waited = await processes.wait(started.id, { timeoutMs: 30000 })
await processes.close()
console.log(JSON.stringify({
  counted: results.map((r) => (r.ok ? { ok: true, content: r.content } : { ok: false, code: r.error.code })),
  regex: [compileLinearRegex('^a+$').test('aaa'), refused],
  dangerous: [isDangerousForOpenHosts('rm -rf build'), isDangerousForOpenHosts('ls -l')],
  process: { outcome: waited.outcome, exitCode: waited.process.exitCode, tail: waited.process.tail },
}))
`

const FRAMEWORKS = `import { createHost } from 'toolhost'
import { aiSdkTools } from 'toolhost/ai-sdk'
import { agentsTools } from 'toolhost/openai-agents'
import { RunContext } from '@openai/agents'

const host = await createHost({ root: '.', audit: false, config: { plugins: { builtins: ['basics'] } } })
const aiTools = await aiSdkTools(host)
const aiResult = await aiTools.echo.execute({ text: 'from the AI SDK' }, { toolCallId: 'ai_1', messages: [] })
const agents = await agentsTools(host)
const echo = agents.find((t) => t.name === 'echo')
const agentsOutput = await echo.invoke(new RunContext(), JSON.stringify({ text: 'from Agents' }), { toolCall: { type: 'function_call', callId: 'ag_1', name: 'echo', arguments: '{}' } })
await host.close()
console.log(JSON.stringify({ aiNames: Object.keys(aiTools).sort(), aiResult, agentNames: agents.map((t) => t.name).sort(), agentsOutput }))
`

/**
 * One small strict consumer per subpath, importing nothing else of toolhost (so its declarations
 * must stand alone: nothing the main entry's .d.ts would bring in can cover for them). Each uses the
 * entry's API, and its `@ts-expect-error` line proves the types are real: were the misuse not an
 * error, tsc would report the directive as unused.
 */
const USES: Record<(typeof SUBPATHS)[number], string> = {
  'toolhost/workspace': `import { compileLinearRegex, workspaceFor, type ResolvedPath, type Workspace } from 'toolhost/workspace'
declare const ctx: Parameters<typeof workspaceFor>[0]
const ws: Workspace = workspaceFor(ctx)
const file: ResolvedPath = ws.resolve('notes.txt', 'read')
const text: string = (await ws.readFile(file)).toString('utf8')
// @ts-expect-error a path is resolved for 'read' or 'write'
ws.resolve('notes.txt', 'append')
console.log(text, compileLinearRegex('a+b', { maxComplexity: 100 }).test('aab'))
`,
  'toolhost/processes': `import { isDangerousForOpenHosts, ProcessRegistry, type ProcessInfo } from 'toolhost/processes'
declare const options: Parameters<typeof ProcessRegistry.open>[0]
const processes: ProcessRegistry = await ProcessRegistry.open(options)
const info: ProcessInfo = await processes.spawn('echo hi', { notifyOnComplete: true })
// @ts-expect-error background is a boolean
await processes.spawn('echo hi', { background: 'yes' })
console.log(info.id, isDangerousForOpenHosts('rm -rf build'))
await processes.close()
`,
  'toolhost/mcp': `import { McpSessions, serveStdio, type HttpEndpoint } from 'toolhost/mcp'
declare const host: Parameters<typeof serveStdio>[0]
const served: { closed: Promise<void>; close: () => Promise<void> } = await serveStdio(host, new McpSessions())
const endpoint: HttpEndpoint | undefined = undefined
// @ts-expect-error serveStdio needs the sessions
await serveStdio(host)
console.log(endpoint)
await served.closed
`,
  'toolhost/console': `import { attachConsole, type AttachedConsole } from 'toolhost/console'
declare const host: Parameters<typeof attachConsole>[0]
const web: AttachedConsole = await attachConsole(host, { port: 0 })
const pending: number = web.hub.approvals.pending().length
// @ts-expect-error the port is a number
const port: string = web.port
console.log(web.url, pending, port, web.hub.processes?.list().length)
await web.stop()
`,
  'toolhost/otel': `import { instrumentHost, withRemoteParent } from 'toolhost/otel'
declare const host: Parameters<typeof instrumentHost>[0]
const stop: () => void = instrumentHost(host)
// @ts-expect-error a tracer is an OpenTelemetry Tracer
instrumentHost(host, { tracer: 'toolhost' })
console.log(typeof withRemoteParent)
stop()
`,
  'toolhost/ai-sdk': `import type { ToolSet } from 'ai'
import { aiSdkTools, toAiSdkOutput } from 'toolhost/ai-sdk'
declare const host: Parameters<typeof aiSdkTools>[0]
const tools: ToolSet = await aiSdkTools(host, { toolsets: ['basics'] })
// @ts-expect-error toolsets is a list of names
await aiSdkTools(host, { toolsets: 'basics' })
console.log(Object.keys(tools), toAiSdkOutput({ id: 'c', name: 'echo', ok: true, content: 'hi' }).type)
`,
  'toolhost/openai-agents': `import type { Tool } from '@openai/agents'
import { agentsTools } from 'toolhost/openai-agents'
declare const host: Parameters<typeof agentsTools>[0]
const tools: Tool[] = await agentsTools(host, { strict: true })
// @ts-expect-error strict is a boolean
await agentsTools(host, { strict: 'yes' })
console.log(tools.map((t) => t.name))
`,
}

/**
 * What each subpath needs in a strict consumer with skipLibCheck false (docs/embedding.md says the
 * same), as the files of other packages whose own declarations tsc reports: with `lib` ES2023 alone,
 * and with "DOM" added. Never toolhost's .d.ts, never the consumer's code.
 */
const FOREIGN_ERRORS: Record<(typeof SUBPATHS)[number], { alone?: RegExp; withDom?: RegExp }> = {
  'toolhost/workspace': {},
  'toolhost/processes': {},
  // The v2 MCP SDK's declarations need no DOM lib.
  'toolhost/mcp': {},
  'toolhost/console': {},
  'toolhost/otel': {},
  // The peers' own declarations need the DOM lib and fail exactOptionalPropertyTypes (ai@6 also
  // lacks @types/json-schema): a file importing only the peer gets the same errors.
  'toolhost/ai-sdk': { alone: /^\.\.\/node_modules\/(ai|@ai-sdk\/[\w-]+)\/dist\//, withDom: /^\.\.\/node_modules\/(ai\/dist\/index\.d\.ts: TS2344|@ai-sdk\/provider\/dist\/index\.d\.ts: TS7016)$/ },
  'toolhost/openai-agents': { alone: /^\.\.\/node_modules\/(@openai\/agents-[\w-]+|@modelcontextprotocol\/sdk)\/dist\//, withDom: /^\.\.\/node_modules\/@openai\/agents-core\/dist\// },
}

/** tsc's error lines as `file: TScode`, files relative to the project. */
function errorSites(result: Run): string[] {
  return [...new Set([...result.stdout.matchAll(/^(\S+?)\(\d+,\d+\): error (TS\d+)/gm)].map((m) => `${m[1]}: ${m[2]}`))].sort()
}

/** `npx toolhost serve --http 0` in `dir` until `use` is done with the console address it printed. */
async function withServedConsole(dir: string, use: (url: string) => Promise<void>): Promise<void> {
  // Its own process group, so the test ends npx and the node it started together.
  const child = spawn('npx', ['--no-install', 'toolhost', 'serve', '--http', '0'], { cwd: dir, env: childEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  let stderr = ''
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
        const printed = /^toolhost: console at (\S+)$/m.exec(stderr)
        if (printed) resolve(printed[1]!)
      })
      child.once('exit', (code) => reject(new Error(`serve exited ${code} before printing the console address:\n${stderr}`)))
    })
    await use(url)
  } finally {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM')
    await exited
  }
}

export function describeSubpathEntries(getKit: () => PackageKit): void {
  const installed = (file: string): string => readFileSync(path.join(getKit().consumer, 'node_modules/toolhost', file), 'utf8')
  const expectConsoleServed = (seen: { login: number; location: string; denied: number; files: Record<string, { status: number; type: string; body: string }> }): void => {
    expect(seen).toMatchObject({ login: 303, location: '/', denied: 401 })
    for (const name of ASSET_NAMES) {
      expect(seen.files[name]?.status, name).toBe(200)
      // The very bytes of the installed package's dist/: the assets are found beside the module.
      expect(seen.files[name]?.body, name).toBe(installed(`dist/src/console/assets/${name}`))
    }
    expect(seen.files['index.html']?.type).toBe('text/html; charset=utf-8')
    expect(seen.files['index.html']?.body).toMatch(/<title>toolhost console<\/title>/)
  }

  describe('subpath exports from plain Node', () => {
    test('toolhost/console serves its page and files from dist with the token; toolhost/otel traces each call; neither loads the MCP SDK', async () => {
      const dir = getKit().project('console-otel')
      writeFileSync(path.join(dir, 'fetch-console.mjs'), FETCH_CONSOLE)
      writeFileSync(path.join(dir, 'app.mjs'), CONSOLE_AND_OTEL)
      const result = await runTraced(dir, 'app.mjs')
      expect(result.code, result.stderr).toBe(0)
      const out = JSON.parse(result.stdout) as Parameters<typeof expectConsoleServed>[0] & { url: string; ok: boolean[]; spans: string[] }
      expect(out.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/)
      expectConsoleServed(out)
      expect(out.ok).toEqual([true, true])
      expect(out.spans.sort()).toEqual(['execute_tool current_time', 'execute_tool echo'])
      expect(result.loaded.some((url) => url.endsWith('/node_modules/toolhost/dist/src/console/index.js'))).toBe(true)
      expect(result.loaded.filter((url) => /\/node_modules\/(tsx|@modelcontextprotocol)\//.test(url))).toEqual([])
    }, SLOW)

    test('toolhost/workspace and toolhost/processes: a file tool of a user on the wall, a process registry on its own', async () => {
      const dir = getKit().project('tool-helpers')
      writeFileSync(path.join(dir, 'notes.txt'), 'one\ntwo\nthree\n')
      writeFileSync(path.join(dir, 'app.mjs'), TOOL_HELPERS)
      const result = await runTraced(dir, 'app.mjs')
      expect(result.code, result.stderr).toBe(0)
      expect(JSON.parse(result.stdout)).toEqual({
        counted: [
          { ok: true, content: '4' },
          { ok: false, code: 'E_PATH_OUTSIDE_ROOT' },
        ],
        regex: [true, 'SyntaxError'],
        dangerous: [true, false],
        process: { outcome: 'exited', exitCode: 0, tail: 'from a process\n' },
      })
      expect(result.loaded.some((url) => url.endsWith('/node_modules/toolhost/dist/src/workspace/index.js'))).toBe(true)
      expect(result.loaded.some((url) => url.endsWith('/node_modules/toolhost/dist/src/processes/index.js'))).toBe(true)
    }, SLOW)

    test('toolhost/mcp answers a v2 MCP client on 2026-07-28: tools/list and tools/call over an in-memory transport', async () => {
      const dir = getKit().project('mcp-round-trip')
      writeFileSync(path.join(dir, 'app.mjs'), MCP_ROUND_TRIP)
      const result = await run(process.execPath, ['app.mjs'], dir)
      expect(result.code, result.stderr).toBe(0)
      expect(JSON.parse(result.stdout)).toEqual({
        era: 'modern',
        server: { name: 'toolhost', version: JSON.parse(installed('package.json')).version },
        tools: ['current_time', 'echo', 'wait'],
        content: [{ type: 'text', text: 'over MCP' }],
      })
    }, SLOW)

    test('toolhost/ai-sdk and toolhost/openai-agents run a call through the host with their peers installed', async () => {
      const dir = getKit().project('frameworks')
      writeFileSync(path.join(dir, 'app.mjs'), FRAMEWORKS)
      const result = await run(process.execPath, ['app.mjs'], dir)
      expect(result.code, result.stderr).toBe(0)
      expect(JSON.parse(result.stdout)).toEqual({
        aiNames: ['current_time', 'echo', 'wait'],
        aiResult: { id: 'ai_1', name: 'echo', ok: true, content: 'from the AI SDK' },
        agentNames: ['current_time', 'echo', 'wait'],
        agentsOutput: 'from Agents',
      })
    }, SLOW)

    test('without their optional peers, the adapters fail on import naming the missing package', async () => {
      const kit = getKit()
      const dir = kit.project('no-peers')
      // Its own node_modules: a copy of toolhost (so resolving from it never reaches the consumer's
      // folder) beside links to every other installed package except the peers.
      unlinkSync(path.join(dir, 'node_modules'))
      mkdirSync(path.join(dir, 'node_modules/@openai'), { recursive: true })
      cpSync(path.join(kit.consumer, 'node_modules/toolhost'), path.join(dir, 'node_modules/toolhost'), { recursive: true })
      const installed = readdirSync(path.join(kit.consumer, 'node_modules')).flatMap((name) => (name.startsWith('@') ? readdirSync(path.join(kit.consumer, 'node_modules', name)).map((sub) => `${name}/${sub}`) : [name]))
      for (const name of installed) {
        if (name === 'toolhost' || name.startsWith('.') || (FRAMEWORK_PEERS as readonly string[]).includes(name) || name.startsWith('@openai/')) continue
        mkdirSync(path.dirname(path.join(dir, 'node_modules', name)), { recursive: true })
        symlinkSync(path.join(kit.consumer, 'node_modules', name), path.join(dir, 'node_modules', name), 'dir')
      }
      writeFileSync(path.join(dir, 'app.mjs'), `for (const entry of ['toolhost', 'toolhost/ai-sdk', 'toolhost/openai-agents']) {
  try {
    await import(entry)
    console.log(entry + ': loaded')
  } catch (error) {
    console.log(entry + ': ' + error.code + ' ' + error.message.split('\\n')[0])
  }
}
`)
      const result = await run(process.execPath, ['app.mjs'], dir)
      expect(result.code, result.stderr).toBe(0)
      const adapters = path.join(dir, 'node_modules/toolhost/dist/src/frameworks')
      expect(result.stdout.split('\n').filter(Boolean)).toEqual([
        'toolhost: loaded',
        `toolhost/ai-sdk: ERR_MODULE_NOT_FOUND Cannot find package 'ai' imported from ${adapters}/ai-sdk.js`,
        `toolhost/openai-agents: ERR_MODULE_NOT_FOUND Cannot find package '@openai/agents' imported from ${adapters}/openai-agents.js`,
      ])
    }, SLOW)
  })

  describe('subpath exports from strict TypeScript (skipLibCheck false)', () => {
    const consumerFiles = (dir: string, entries: readonly (typeof SUBPATHS)[number][]): string[] => {
      mkdirSync(dir, { recursive: true })
      return entries.map((entry) => {
        const file = `${entry.replace('toolhost/', '')}.ts`
        writeFileSync(path.join(dir, file), USES[entry])
        return file
      })
    }
    const expectErrorsOnlyIn = (result: Run, patterns: readonly RegExp[]): void => {
      expect(errorSites(result).filter((site) => !patterns.some((pattern) => pattern.test(site))), result.stdout).toEqual([])
    }

    // Each entry alone: its declarations must not lean on what another entry's would bring in.
    test.each(SUBPATHS)('%s alone, under NodeNext and lib ES2023: errors only where docs/embedding.md says', async (entry) => {
      const dir = path.join(getKit().consumer, `types-${entry.replace('/', '-')}`)
      const files = consumerFiles(dir, [entry])
      const result = await typeCheck(dir, 'tsconfig.json', { module: 'NodeNext', moduleResolution: 'NodeNext' }, { files })
      const foreign = FOREIGN_ERRORS[entry].alone
      if (foreign === undefined) {
        expect(result.stdout + result.stderr).toBe('')
        expect(result.code).toBe(0)
      } else {
        // Still failing there (else docs/embedding.md should say the need is gone).
        expect(errorSites(result).length).toBeGreaterThan(0)
        expectErrorsOnlyIn(result, [foreign])
      }
    }, SLOW)

    test('every entry under Bundler resolution with the DOM lib, in one program: only the peers\' own errors', async () => {
      const dir = path.join(getKit().consumer, 'types-bundler')
      const files = consumerFiles(dir, SUBPATHS)
      const result = await typeCheck(dir, 'tsconfig.json', { module: 'ESNext', moduleResolution: 'Bundler', lib: ['ES2023', 'DOM'] }, { files })
      const foreign = SUBPATHS.flatMap((entry) => FOREIGN_ERRORS[entry].withDom ?? [])
      expectErrorsOnlyIn(result, foreign)
      for (const pattern of foreign) expect(errorSites(result).some((site) => pattern.test(site)), String(pattern)).toBe(true)
    }, SLOW)
  })

  describe('commands that serve files from the package', () => {
    test('npx toolhost serve --http 0 prints a console address whose page loads from the installed package', async () => {
      const dir = getKit().project('serve-console')
      writeFileSync(path.join(dir, 'fetch-console.mjs'), FETCH_CONSOLE)
      await withServedConsole(dir, async (url) => {
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/)
        writeFileSync(path.join(dir, 'get.mjs'), `import { fetchConsole } from './fetch-console.mjs'\nconsole.log(JSON.stringify(await fetchConsole(process.argv[2], ${JSON.stringify(ASSET_NAMES)})))\n`)
        const fetched = await run(process.execPath, ['get.mjs', url], dir)
        expect(fetched.code, fetched.stderr).toBe(0)
        expectConsoleServed(JSON.parse(fetched.stdout))
      })
    }, SLOW)

    test('npx toolhost run BATCH --trace-file writes a Chrome trace with one slice per call', async () => {
      const dir = getKit().project('trace-file')
      const batch = [
        { id: 'a', name: 'echo', arguments: { text: 'one' } },
        { id: 'b', name: 'wait', arguments: { ms: 20 } },
        { id: 'c', name: 'current_time', arguments: {} },
      ]
      writeFileSync(path.join(dir, 'batch.json'), JSON.stringify(batch))
      const result = await run('npx', ['--no-install', 'toolhost', 'run', 'batch.json', '--trace-file', 'trace.json'], dir)
      expect(result.code, result.stderr).toBe(0)
      const trace = JSON.parse(readFileSync(path.join(dir, 'trace.json'), 'utf8')) as TraceDocument
      const facts = checkTrace(trace, ['a', 'b', 'c'])
      expect([...facts.slices.values()].map((s) => s.name).sort()).toEqual(['current_time', 'echo', 'wait'])
    }, SLOW)
  })
}
