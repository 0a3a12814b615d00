// Shared set-up for the MCP server tests: spawn `toolhost serve` and connect the official SDK client.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV2, InMemoryTransport as InMemoryTransportV2, type ClientCapabilities as ClientCapabilitiesV2 } from '@modelcontextprotocol/client'
import type { Server } from '@modelcontextprotocol/server'
import type { Host } from '../../src/host/host.js'
import { createMcpServer, serveConnection } from '../../src/mcp/server.js'
import type { McpSessions } from '../../src/mcp/sessions.js'
import { TOOLHOST_CLI } from '../toolhost-cli.js'

export const REPO = path.resolve(import.meta.dirname, '../..')
export const FIXTURE_CONFIG = path.join(REPO, 'test/fixtures/mcp/config.yaml')

export function makeTempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Spawns `toolhost serve …` (from the sources) over stdio and connects a client (with elicitation if asked). */
export async function connectStdio(extraArgs: string[], options: { root: string; elicitation?: boolean; env?: Record<string, string> }): Promise<{ client: Client; stderr: () => string }> {
  let stderr = ''
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TOOLHOST_CLI, 'serve', '--root', options.root, ...extraArgs],
    cwd: REPO,
    env: { ...(process.env as Record<string, string>), ...options.env },
    stderr: 'pipe',
  })
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const client = new Client({ name: 'toolhost-test', version: '1.0.0' }, { capabilities: options.elicitation ? { elicitation: {} } : {} })
  await client.connect(transport)
  return { client, stderr: () => stderr }
}

/** Spawns `serve --http 0` and resolves with the URL it printed on stderr. */
export async function startHttpServer(extraArgs: string[], root: string): Promise<{ url: URL; stop: () => Promise<void>; stderr: () => string }> {
  const child = spawn(process.execPath, [TOOLHOST_CLI, 'serve', '--http', '0', '--root', root, ...extraArgs], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
      const m = /MCP Streamable HTTP at (\S+)/.exec(stderr)
      if (m) resolve(new URL(m[1]!))
    })
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)))
  })
  return {
    url,
    stderr: () => stderr,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

/** Polls `probe` until it returns a value (a file appearing, a notification arriving). */
export async function eventually<T>(probe: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = probe()
    if (value !== undefined) return value
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/**
 * A 2025 MCP session over `host` in this process (the SDK's in-memory transport pair): the official
 * v1 SDK client against `createMcpServer`, with the client capabilities asked for.
 */
export async function connectInMemory(host: Host, sessions: McpSessions, capabilities: ClientCapabilities = {}): Promise<{ client: Client; server: Server }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const server = createMcpServer(host, sessions)
  sessions.add(server)
  server.onclose = () => sessions.remove(server)
  await server.connect(serverSide)
  const client = new Client({ name: 'toolhost-test', version: '1.0.0' }, { capabilities })
  await client.connect(clientSide)
  return { client, server }
}

/**
 * The v2 SDK client over `host` in this process, as `serve` serves stdio (`serveConnection`): in
 * `auto` mode it negotiates 2026-07-28; `legacy` is the 2025 handshake.
 */
export async function connectV2InMemory(
  host: Host, sessions: McpSessions, options: { capabilities?: ClientCapabilitiesV2; mode?: 'auto' | 'legacy' } = {},
): Promise<{ client: ClientV2; close: () => Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransportV2.createLinkedPair()
  const close = serveConnection(host, sessions, serverSide)
  const client = new ClientV2({ name: 'toolhost-test-v2', version: '2.0.0' }, { capabilities: options.capabilities ?? {}, versionNegotiation: { mode: options.mode ?? 'auto' } })
  await client.connect(clientSide)
  return { client, close: async () => { await client.close(); await close() } }
}
