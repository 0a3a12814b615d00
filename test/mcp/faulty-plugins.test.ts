// `toolhost serve` survives a plugin's stray rejection and timer throw (issue 12, item 4): before,
// Node's default ended the process and every session with it. Over stdio and HTTP, the stray errors
// are logged naming the plugin, and the next call of the session is answered.
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { describe, expect, test } from 'vitest'
import { connectStdio, eventually, makeTempDir, REPO, startHttpServer } from './serve-helpers.js'

const CONFIG = path.join(REPO, 'test/fixtures/hostile/config.yaml')
const FAULTY = path.join(REPO, 'test/fixtures/hostile/plugins/faulty.ts')
type Text = { text: string }

describe('a plugin\'s stray errors do not end serve', { timeout: 60_000 }, () => {
  test('over stdio: the stray errors are logged naming the plugin, and the session goes on', async () => {
    const tmp = makeTempDir('toolhost-serve-stray-')
    const { client, stderr } = await connectStdio(['--config', CONFIG], { root: tmp.dir })
    try {
      const stray = await client.callTool({ name: 'stray', arguments: {} })
      expect((stray.content as Text[])[0]!.text).toBe('stray answered')
      await eventually(() => (stderr().includes('timer throw from the fixture') ? true : undefined), 'the timer throw to be logged')
      const after = await client.callTool({ name: 'echo', arguments: { text: 'alive' } })
      expect((after.content as Text[])[0]!.text).toBe('alive')
      expect(stderr()).toContain(`an uncaught exception from plugin ${FAULTY}`)
      expect(stderr()).toContain(`an unhandled promise rejection from plugin ${FAULTY}`)
    } finally {
      await client.close()
      tmp.remove()
    }
  })

  test('over HTTP: the server answers the next call after the stray errors', async () => {
    const tmp = makeTempDir('toolhost-serve-stray-http-')
    const server = await startHttpServer(['--config', CONFIG], tmp.dir)
    const client = new Client({ name: 'toolhost-test', version: '1.0.0' })
    try {
      await client.connect(new StreamableHTTPClientTransport(server.url))
      const stray = await client.callTool({ name: 'stray', arguments: {} })
      expect((stray.content as Text[])[0]!.text).toBe('stray answered')
      await eventually(() => (server.stderr().includes('timer throw from the fixture') ? true : undefined), 'the timer throw to be logged')
      const after = await client.callTool({ name: 'echo', arguments: { text: 'alive' } })
      expect((after.content as Text[])[0]!.text).toBe('alive')
      expect(server.stderr()).toContain(`an uncaught exception from plugin ${FAULTY}`)
    } finally {
      await client.close()
      await server.stop()
      tmp.remove()
    }
  })
})
