/**
 * The official MCP conformance suite's prompt, resource and completion scenarios (conformance
 * 0.1.16) against the conformance fixture plugins (test/fixtures/conformance/plugins/prompts.ts,
 * resources.ts) served through `answerMcpPromptsResources`, by a minimal stateless Streamable HTTP
 * server on the SDK v1: the answers and the fixtures pass on their own, apart from the MCP server
 * (test/mcp/conformance.test.ts runs them through `toolhost serve`).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { loadPlugins } from '../../src/loader/load-plugins.js'
import { answerMcpPromptsResources, mcpPromptResourceCapabilities } from '../../src/registry/mcp-prompts-resources.js'
import { registry } from '../../src/registry/registry.js'

const REPO = path.resolve(import.meta.dirname, '../..')
const CONFORMANCE_CLI = path.join(REPO, 'node_modules/@modelcontextprotocol/conformance/dist/index.js')
/** Conformance 0.1.14+ imports `fs.globSync` (Node 22) at load: the shim supplies it on Node 20. */
const NODE20_SHIM = path.join(REPO, 'test/fixtures/conformance/node20-fs-shim.mjs')
const FIXTURES = ['prompts.ts', 'resources.ts'].map((f) => path.join(REPO, 'test/fixtures/conformance/plugins', f))
const SCENARIOS = [
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'completion-complete',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
]

const METHODS = [
  [ListPromptsRequestSchema, 'prompts/list'],
  [GetPromptRequestSchema, 'prompts/get'],
  [ListResourcesRequestSchema, 'resources/list'],
  [ListResourceTemplatesRequestSchema, 'resources/templates/list'],
  [ReadResourceRequestSchema, 'resources/read'],
  [CompleteRequestSchema, 'completion/complete'],
] as const

function createMcpServer(): Server {
  const server = new Server({ name: 'toolhost-prompts-test', version: '0.0.0' }, { capabilities: { ...mcpPromptResourceCapabilities(), resources: { listChanged: true, subscribe: true } } })
  for (const [schema, method] of METHODS) {
    server.setRequestHandler(schema as typeof ListPromptsRequestSchema, async (request, extra) => {
      const answer = await answerMcpPromptsResources(registry.promptsAndResources, method, request.params, { signal: extra.signal })
      if ('error' in answer) throw new McpError(answer.error.code, answer.error.message, answer.error.data)
      return answer.result as never
    })
  }
  server.setRequestHandler(SubscribeRequestSchema, async () => ({}))
  server.setRequestHandler(UnsubscribeRequestSchema, async () => ({}))
  return server
}

let http: HttpServer
let url: string
const out = mkdtempSync(path.join(os.tmpdir(), 'toolhost-prompts-conformance-'))

beforeAll(async () => {
  const report = await loadPlugins([], registry, { files: FIXTURES })
  expect(report.failed).toEqual([])
  http = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' }).end()
      return
    }
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      // Stateless: a server and a transport per request.
      const server = createMcpServer()
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
      res.on('close', () => {
        void transport.close()
        void server.close()
      })
      void server.connect(transport).then(() => transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown))
    })
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
})

afterAll(async () => {
  for (const file of FIXTURES) registry.unregisterSource(file)
  await new Promise((resolve) => http.close(resolve))
  rmSync(out, { recursive: true, force: true })
})

test.each(SCENARIOS)('conformance scenario %s passes', { timeout: 60_000 }, async (scenario) => {
  const dir = path.join(out, scenario)
  const output = await new Promise<string>((resolve) => {
    execFile(process.execPath, ['--import', NODE20_SHIM, CONFORMANCE_CLI, 'server', '--url', url, '--scenario', scenario, '-o', dir], { timeout: 50_000 }, (_error, stdout, stderr) => resolve(`${stdout}\n${stderr}`))
  })
  const runs = readdirSync(dir).filter((d) => d.startsWith(`server-${scenario}-`))
  expect(runs, output.slice(-2000)).toHaveLength(1)
  const checks = JSON.parse(readFileSync(path.join(dir, runs[0]!, 'checks.json'), 'utf8')) as { id: string; status: string; errorMessage?: string }[]
  expect(checks.length).toBeGreaterThan(0)
  expect(checks.filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO').map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ''}`)).toEqual([])
})
