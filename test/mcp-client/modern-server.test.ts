/**
 * toolhost as the client of a 2026-07-28 server: `toolhost serve` itself (SDK v2) as an
 * `mcp_servers` entry. The revision is negotiated (`server/discover`), the server's tools join the
 * registry, and its questions — an approval asked as `input_required` — go to this host's asker;
 * the SDK retries the call with the answer. The same server configured `protocol: legacy` is
 * spoken to as a 2025 server (its questions come as `elicitation/create`). The 2025 servers written
 * with SDK v1 are in connect-servers.test.ts.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createHost, type AskRequest, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { TOOLHOST_CLI } from '../toolhost-cli.js'
import { FIXTURE_CONFIG, makeTempDir } from '../mcp/serve-helpers.js'

const tmp = makeTempDir('toolhost-mcp-client-modern-')
const SERVE = [TOOLHOST_CLI, 'serve', '--root', tmp.dir, '--config', FIXTURE_CONFIG, '--permission-mode', 'ask']
const asked: AskRequest[] = []
let decision = 'allow-once'
let host: Host

beforeAll(async () => {
  host = await createHost({
    root: tmp.dir,
    log: silentLogger,
    loadPlugins: false,
    ask: async (request) => (asked.push(request), { decision }),
    config: {
      plugins: { dirs: [] },
      env_file: '',
      permissions: { mode: 'bypass' },
      mcp_servers: {
        // Pinned: `auto` would first start a sibling serve for the probe, slow on a busy machine.
        inner: { command: process.execPath, args: SERVE, protocol: '2026-07-28' },
        // The same server spoken to as a 2025 one: its questions come as elicitation/create.
        old: { command: process.execPath, args: SERVE, protocol: 'legacy' },
      },
    },
  })
}, 60_000)

afterAll(async () => {
  await host?.close()
  tmp.remove()
})

test('the revision is 2026-07-28 (2025 when configured legacy) and the server\'s tools are registered', () => {
  const [inner, old] = host.services.mcpClients ?? []
  expect(inner).toMatchObject({ server: 'inner', connected: true, protocol: '2026-07-28' })
  expect(inner!.tools).toEqual(expect.arrayContaining(['mcp_inner_zap', 'mcp_inner_peek', 'mcp_inner_clarify']))
  expect(old).toMatchObject({ server: 'old', connected: true, protocol: '2025-11-25' })
}, 60_000)

test.each(['inner', 'old'])('%s: its approval question reaches this host\'s asker; the answer decides', async (server) => {
  asked.length = 0
  decision = 'allow-once'
  const [allowed] = await host.run([{ id: 'a', name: `mcp_${server}_zap`, arguments: { path: 'a.txt' } }])
  expect(allowed).toMatchObject({ ok: true, content: 'zapped a.txt' })
  expect(asked).toHaveLength(1)
  expect(asked[0]!.question).toContain('Allow zap')
  expect(asked[0]!.schema).toMatchObject({ properties: { decision: { enum: ['allow-once', 'allow-session', 'deny'] } } })
  decision = 'deny'
  const [denied] = await host.run([{ id: 'b', name: `mcp_${server}_zap`, arguments: { path: 'b.txt' } }])
  expect(denied).toMatchObject({ ok: false, error: { code: 'E_TOOL_FAILED' } })
  expect(denied!.content).toContain('E_DENIED')
}, 60_000)
