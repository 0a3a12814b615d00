// `serve.host: 0.0.0.0` printed a console URL that answered 403 (issue 31, a new user's frictions):
// the server answers only serve.public_url's Host there, so the URLs printed come from it.
import { spawn } from 'node:child_process'
import http from 'node:http'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { consoleBase, publicNote } from '../../src/cli/served-urls.js'
import { makeTempDir, REPO } from '../mcp/serve-helpers.js'
import { TOOLHOST_CLI } from '../toolhost-cli.js'

describe('the URLs serve --http prints', () => {
  test.each([
    ['a wildcard bind with a public URL: the public URL\'s folder', 'http://0.0.0.0:4321/mcp', 'https://tools.example.test/mcp', 'https://tools.example.test'],
    ['a public URL under a path: the console beside its /mcp', 'http://0.0.0.0:4321/mcp', 'https://example.test/toolhost/mcp', 'https://example.test/toolhost'],
    ['a loopback bind without one: the listening origin', 'http://127.0.0.1:4321/mcp', '', 'http://127.0.0.1:4321'],
  ])('console: %s', (_why, listening, publicUrl, expected) => {
    expect(consoleBase(listening, publicUrl)).toBe(expected)
  })

  test.each([
    ['no public URL: nothing to add', 'http://127.0.0.1:4321/mcp', '', ''],
    ['the public URL is the listening one: nothing to add', 'http://127.0.0.1:4321/mcp', 'http://127.0.0.1:4321/mcp', ''],
    ['a wildcard bind: the URL clients reach', 'http://0.0.0.0:4321/mcp', 'https://tools.example.test/mcp', ' (the bind address; clients reach it at https://tools.example.test/mcp, serve.public_url)'],
  ])('MCP line: %s', (_why, listening, publicUrl, expected) => {
    expect(publicNote(listening, publicUrl)).toBe(expected)
  })
})

/** GET `target`'s path and query from 127.0.0.1:`port` with `target`'s Host, as a proxy in front would send it. */
function statusThroughProxy(port: number, target: URL): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: target.pathname + target.search, headers: { host: target.host } }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end()
  })
}

test('serve.host 0.0.0.0: the printed console URL is serve.public_url\'s, and it answers (was http://0.0.0.0:…, 403)', { timeout: 60_000 }, async () => {
  const tmp = makeTempDir('toolhost-served-urls-')
  const config = path.join(tmp.dir, 'config.yaml')
  writeFileSync(config, 'env_file: ""\nplugins:\n  builtins: false\nserve:\n  host: 0.0.0.0\n  console: always\n  public_url: https://tools.example.test/mcp\n  auth:\n    static_token_env: SERVED_URLS_TOKEN\n')
  const child = spawn(process.execPath, [TOOLHOST_CLI, 'serve', '--http', '0', '--root', tmp.dir, '--config', config], { cwd: REPO, env: { ...process.env, SERVED_URLS_TOKEN: 'b'.repeat(40) }, stdio: ['ignore', 'pipe', 'pipe'] })
  try {
    let stderr = ''
    const [mcpLine, consoleUrl] = await new Promise<[string, string]>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8')
        const mcp = /^toolhost: MCP Streamable HTTP at .*$/m.exec(stderr)
        const printed = /^toolhost: console at (\S+)$/m.exec(stderr)
        if (mcp && printed) resolve([mcp[0], printed[1]!])
      })
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)))
    })
    expect(mcpLine).toMatch(/^toolhost: MCP Streamable HTTP at http:\/\/0\.0\.0\.0:\d+\/mcp \(the bind address; clients reach it at https:\/\/tools\.example\.test\/mcp, serve\.public_url\)$/)
    const url = new URL(consoleUrl)
    expect(url.origin).toBe('https://tools.example.test')
    expect(url.searchParams.get('token')).toMatch(/^[0-9a-f]{48}$/)
    const port = Number(/0\.0\.0\.0:(\d+)/.exec(mcpLine)![1])
    expect(await statusThroughProxy(port, url)).not.toBe(403)
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    if (child.exitCode === null) child.kill('SIGTERM')
    await exited
    tmp.remove()
  }
})
