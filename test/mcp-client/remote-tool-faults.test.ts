/**
 * An MCP server in mcp_servers whose one tool the host cannot take (issue 12, new variant: an input
 * schema nested 5,000 deep overflowed the stack while it was made strict, and the whole server was
 * "cannot connect", its ordinary tools with it). Now that tool alone is left out, with a note.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { createHost, ToolRegistry } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { REPO } from '../mcp/serve-helpers.js'

const root = mkdtempSync(path.join(os.tmpdir(), 'toolhost-remote-faults-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function hostWithServer(mcpServers: Record<string, Record<string, unknown>>): ReturnType<typeof createHost> {
  return createHost({
    root,
    registry: new ToolRegistry(),
    log: silentLogger,
    env: {},
    config: { env_file: '', plugins: { dirs: [], builtins: false }, permissions: { mode: 'bypass' }, mcp_servers: mcpServers },
  })
}

test('a remote tool with a schema nested past the stack is left out; the server\'s other tools are offered', { timeout: 60_000 }, async () => {
  const host = await hostWithServer({ deep: { command: process.execPath, args: [path.join(REPO, 'test/fixtures/mcp/deep-schema-server.mjs')], env: { DEPTH: '5000' }, parallel_safe: true } })
  try {
    const [connection] = host.services.mcpClients ?? []
    expect(connection).toMatchObject({ server: 'deep', connected: true, tools: ['mcp_deep_ok'] })
    expect(connection!.problems.join('\n')).toContain('deep not registered')
    const [result] = await host.run([{ id: 'c', name: 'mcp_deep_ok', arguments: {} }])
    expect(result).toMatchObject({ ok: true, content: 'called ok' })
  } finally {
    await host.close()
  }
})

// Only the 15 s connect limit can end this wait within the test's 50 s; before, the SDK's 60 s did
// (no elapsed time is asserted: the test's own limit is what fails it).
test('a server that never answers tools/list holds start-up no longer than the connect limit', { timeout: 50_000 }, async () => {
  const host = await hostWithServer({ silent: { command: process.execPath, args: [path.join(REPO, 'test/fixtures/mcp/silent-server.mjs')] } })
  try {
    const [connection] = host.services.mcpClients ?? []
    expect(connection).toMatchObject({ server: 'silent', connected: false })
    expect(connection!.problems.join('\n')).toMatch(/cannot connect: .*timed out/i)
  } finally {
    await host.close()
  }
})
