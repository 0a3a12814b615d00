// A non-loopback `serve --http` refuses to start without authentication, naming the file and key
// (issue 22, item 3); every other serve.auth fault is found at start-up too, never on a request.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { createHost } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { resolveServeAuth } from '../../src/http/serve-auth-settings.js'
import { serveHttp } from '../../src/mcp/http.js'
import { McpSessions } from '../../src/mcp/sessions.js'
import { makeTempDir } from '../mcp/serve-helpers.js'
import { REPO, TOOLHOST_CLI } from '../toolhost-cli.js'
import { ISSUER, serveConfig } from './auth-fixtures.js'

const TOKEN = 'a'.repeat(40)
const where = (hostname: string, env: NodeJS.ProcessEnv = {}) => ({ hostname, file: '/srv/config.yaml', env })
const faultOf = (run: () => unknown): { code?: string; message: string } => {
  try {
    run()
  } catch (error) {
    return error as { code?: string; message: string }
  }
  throw new Error('expected a refusal')
}

describe('resolveServeAuth', () => {
  test.each(['0.0.0.0', '::', '192.0.2.2', 'tools.example.test'])('serve.host %s without serve.auth refuses, naming the file and serve.auth', (hostname) => {
    const fault = faultOf(() => resolveServeAuth(serveConfig({}, { public_url: '' }), where(hostname)))
    expect(fault.code).toBe('E_CONFIG_INVALID')
    expect(fault.message).toMatch(/^\/srv\/config\.yaml: key `serve\.auth`: serve\.host .* is not a loopback address/)
    expect(fault.message).toContain('serve.auth.static_token_env')
  })

  test('a loopback bind needs nothing: auth is off', () => {
    expect(resolveServeAuth(serveConfig({}, { public_url: '' }), where('127.0.0.1')).enabled).toBe(false)
    expect(resolveServeAuth(serveConfig({}, { public_url: '' }), where('::1')).enabled).toBe(false)
  })

  test('a non-loopback bind with a static token is accepted, given the public URL', () => {
    const settings = resolveServeAuth(serveConfig({ static_token_env: 'T' }), where('0.0.0.0', { T: TOKEN }))
    expect(settings).toMatchObject({ enabled: true, staticToken: TOKEN })
    expect(settings.resource?.href).toBe('https://tools.example.test/mcp')
  })

  test.each([
    ['no public URL on a non-loopback bind', () => serveConfig({ static_token_env: 'T' }, { public_url: '' }), { T: TOKEN }, '0.0.0.0', 'serve.public_url'],
    ['the static token variable unset', () => serveConfig({ static_token_env: 'T' }), {}, '0.0.0.0', 'serve.auth.static_token_env'],
    ['a static token too short to be secret', () => serveConfig({ static_token_env: 'T' }), { T: 'short' }, '0.0.0.0', 'serve.auth.static_token_env'],
    ['a JWKS without issuers', () => serveConfig({ jwks_url: 'https://auth.example.test/jwks' }), {}, '0.0.0.0', 'serve.auth.authorization_servers'],
    ['a JWKS without the resource it verifies for', () => serveConfig({ jwks_url: 'https://auth.example.test/jwks', authorization_servers: [ISSUER] }, { public_url: '' }), {}, '127.0.0.1', 'serve.public_url'],
    ['a JWKS URL that is no URL', () => serveConfig({ jwks_url: 'jwks.json', authorization_servers: [ISSUER] }), {}, '0.0.0.0', 'serve.auth.jwks_url'],
    ['a public URL that is not http(s)', () => serveConfig({ static_token_env: 'T' }, { public_url: 'ftp://tools.example.test/mcp' }), { T: TOKEN }, '0.0.0.0', 'serve.public_url'],
    ['introspection without a client id', () => serveConfig({ introspection_url: 'https://auth.example.test/introspect', client_secret_env: 'S' }), { S: 'x' }, '0.0.0.0', 'serve.auth.client_id'],
    ['introspection without a secret variable', () => serveConfig({ introspection_url: 'https://auth.example.test/introspect', client_id: 'c' }), {}, '0.0.0.0', 'serve.auth.client_secret_env'],
    ['introspection with its secret variable unset', () => serveConfig({ introspection_url: 'https://auth.example.test/introspect', client_id: 'c', client_secret_env: 'S' }), {}, '0.0.0.0', 'serve.auth.client_secret_env'],
  ])('%s: refused naming the key', (_why, serve, env, hostname, key) => {
    const fault = faultOf(() => resolveServeAuth(serve(), where(hostname, env)))
    expect(fault.code).toBe('E_CONFIG_INVALID')
    expect(fault.message).toContain(`/srv/config.yaml: key \`${key}\``)
  })

  // Every fault at once (issue 31: they came one per restart): one error, a line per key, each naming the file.
  test.each([
    ['0.0.0.0 with neither auth nor a public URL', () => serveConfig({}, { public_url: '' }), {}, ['serve.auth', 'serve.public_url']],
    ['a JWKS without issuers or public URL, and a static token unset', () => serveConfig({ jwks_url: 'https://auth.example.test/jwks', static_token_env: 'T' }, { public_url: '' }), {}, ['serve.auth.static_token_env', 'serve.public_url', 'serve.auth.authorization_servers']],
    ['introspection with neither client id nor secret variable, and a public URL that is no URL', () => serveConfig({ introspection_url: 'https://auth.example.test/introspect' }, { public_url: 'tools' }), {}, ['serve.public_url', 'serve.auth.client_id', 'serve.auth.client_secret_env']],
  ])('%s: every key in one refusal', (_why, serve, env, keys) => {
    const fault = faultOf(() => resolveServeAuth(serve(), where('0.0.0.0', env)))
    expect(fault.code).toBe('E_CONFIG_INVALID')
    const lines = fault.message.split('\n')
    expect(lines.map((line) => /^\/srv\/config\.yaml: key `([^`]+)`: /.exec(line)?.[1])).toEqual(keys)
  })

  test('the refusal never shows a secret', () => {
    const fault = faultOf(() => resolveServeAuth(serveConfig({ static_token_env: 'T' }), where('0.0.0.0', { T: 'tiny-secret' })))
    expect(fault.message).not.toContain('tiny-secret')
  })
})

test('serveHttp on 0.0.0.0 without serve.auth rejects before listening', async () => {
  const tmp = makeTempDir('toolhost-auth-refuse-')
  const host = await createHost({ root: tmp.dir, loadPlugins: false, log: silentLogger, config: { env_file: '', serve: { host: '0.0.0.0' } } })
  try {
    await expect(serveHttp(host, new McpSessions(), { port: 0, hostname: '0.0.0.0' })).rejects.toMatchObject({ code: 'E_CONFIG_INVALID', message: expect.stringContaining('key `serve.auth`') })
  } finally {
    await host.close()
    tmp.remove()
  }
})

test('toolhost serve --http on serve.host 0.0.0.0 without auth exits 2 naming config.yaml and serve.auth', () => {
  const tmp = makeTempDir('toolhost-auth-cli-')
  try {
    const config = path.join(tmp.dir, 'config.yaml')
    writeFileSync(config, 'env_file: ""\nplugins:\n  builtins: false\nserve:\n  host: 0.0.0.0\n')
    const run = spawnSync(process.execPath, [TOOLHOST_CLI, 'serve', '--http', '0', '--root', tmp.dir, '--config', config], { cwd: REPO, encoding: 'utf8', timeout: 60_000 })
    expect(run.status).toBe(2)
    expect(run.stderr).toContain(`${config}: key \`serve.auth\``)
    // and, in the same refusal, the other key it needs there (issue 31)
    expect(run.stderr).toContain(`${config}: key \`serve.public_url\``)
    expect(run.stderr).not.toContain('MCP Streamable HTTP at')
  } finally {
    tmp.remove()
  }
})
