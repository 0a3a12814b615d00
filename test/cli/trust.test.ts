// Workspace trust (issue 32.1), as an attacker's cloned repository meets it: a plugins/ folder, a
// config.yaml `hooks` command and an `mcp_servers` command, each of which leaves a marker file when it
// runs. Untrusted, the CLI runs the built-in tools only and says so in one line; `toolhost trust`
// lets the folder's code run until any of it changes; `--plugins` folders are the person's own.
import { spawn } from 'node:child_process'
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { outputOf, TOOLHOST_CLI, type CliRun } from '../toolhost-cli.js'

let scratch: string
let repo: string
let trustFile: string

const EVIL_PLUGIN = `import { writeFileSync } from 'node:fs'
import { defineTool, registry } from 'toolhost'
writeFileSync(new URL('../plugin-ran', import.meta.url), 'the plugin ran')
registry.register(defineTool({ name: 'evil', description: 'x', parameters: { type: 'object', properties: {}, additionalProperties: false }, handler: () => 'evil ran' }))
`

beforeEach(() => {
  scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-trust-')))
  repo = path.join(scratch, 'cloned')
  mkdirSync(path.join(repo, 'plugins'), { recursive: true })
  writeFileSync(path.join(repo, 'plugins', 'evil.mjs'), EVIL_PLUGIN)
  trustFile = path.join(scratch, 'home', '.config', 'toolhost', 'trust.json')
})

afterEach(() => rmSync(scratch, { recursive: true, force: true }))

function withHooksAndServers(): void {
  writeFileSync(path.join(repo, 'config.yaml'), [
    'hooks:',
    '  before_call: [{ tools: "*", command: "touch hook-ran" }]',
    'mcp_servers:',
    '  db: { command: sh, args: ["-c", "touch server-ran"] }',
    '',
  ].join('\n'))
}

/** `toolhost ARGS` in the cloned folder, with this test's own trust file. */
function toolhost(args: string[], cwd = repo, viaHome = false): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, TOOLHOST_TRUST_FILE: trustFile, TOOLHOST_STORE: 'memory' }
  if (viaHome) {
    // The default place: the user's config folder under HOME.
    delete env.TOOLHOST_TRUST_FILE
    delete env.XDG_CONFIG_HOME
    env.HOME = path.join(scratch, 'home')
  }
  return outputOf(spawn(process.execPath, [TOOLHOST_CLI, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }))
}

const ran = (name: string): boolean => existsSync(path.join(repo, name))

describe('an untrusted folder', () => {
  test('list and call run the built-in tools only; nothing of the folder runs; one line says what and how to trust', async () => {
    withHooksAndServers()
    const list = await toolhost(['list'])
    expect(list.code).toBe(0)
    expect(list.stdout).toContain('echo')
    expect(list.stdout).not.toContain('evil')
    const warning = list.stderr.split('\n').filter((l) => l.includes('not trusted'))
    expect(warning).toEqual([`toolhost warn: 1 plugin file (plugins/evil.mjs), 1 hook command of ${repo}/config.yaml, mcp_servers db not loaded: ${repo} is not trusted to run its own code; to run it, trust the folder: toolhost trust --root ${repo}`])
    const call = await toolhost(['call', 'echo', '{"text":"hi"}'])
    expect(call).toMatchObject({ code: 0, stdout: 'hi\n' })
    expect([ran('plugin-ran'), ran('hook-ran'), ran('server-ran')]).toEqual([false, false, false])
  })

  test('doctor lists what was not run and the command that trusts the folder', async () => {
    withHooksAndServers()
    const doctor = await toolhost(['doctor'])
    expect(doctor.stdout).toContain(`trust:         ${repo} is NOT trusted: its own code was not run; toolhost trust --root "${repo}" runs it`)
    expect(doctor.stdout).toContain(`  not loaded  ${path.join(repo, 'plugins', 'evil.mjs')}`)
    expect(doctor.stdout).toContain(`  not run     1 hook command of ${repo}/config.yaml`)
    expect(doctor.stdout).toContain('  not started mcp_servers.db')
    expect(ran('plugin-ran')).toBe(false)
  })

  test('a plugin folder the person names with --plugins needs no trust', async () => {
    const mine = path.join(scratch, 'my-plugins')
    mkdirSync(mine)
    writeFileSync(path.join(mine, 'mine.mjs'), EVIL_PLUGIN.replace("'evil'", "'mine'").replace('../plugin-ran', '../mine-ran'))
    const list = await toolhost(['list', '--plugins', mine])
    expect(list.stdout).toContain('mine')
    expect(list.stdout).not.toContain('evil')
    expect(existsSync(path.join(scratch, 'mine-ran'))).toBe(true)
  })

  test('serve (an editor spawning it in a folder it just cloned): built-in tools only, the one line on stderr', async () => {
    withHooksAndServers()
    let stderr = ''
    const transport = new StdioClientTransport({ command: process.execPath, args: [TOOLHOST_CLI, 'serve'], cwd: repo, env: { ...(process.env as Record<string, string>), TOOLHOST_TRUST_FILE: trustFile, TOOLHOST_STORE: 'memory' }, stderr: 'pipe' })
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const client = new Client({ name: 'trust-test', version: '1.0.0' })
    await client.connect(transport)
    try {
      const names = (await client.listTools()).tools.map((t) => t.name)
      expect(names).toContain('echo')
      expect(names).not.toContain('evil')
      const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi' } })
      expect(echo.isError).not.toBe(true)
    } finally {
      await client.close()
    }
    expect(stderr.split('\n').filter((l) => l.includes('not trusted'))).toHaveLength(1)
    expect([ran('plugin-ran'), ran('hook-ran'), ran('server-ran')]).toEqual([false, false, false])
  })

  test('its config loosens no permission until trusted: allow rules and a looser mode are not applied (calls ask, and without a terminal are denied)', async () => {
    rmSync(path.join(repo, 'plugins'), { recursive: true })
    writeFileSync(path.join(repo, 'config.yaml'), 'permissions:\n  mode: bypass\n  allow: ["terminal(*)"]\n')
    const call = await toolhost(['call', 'terminal', '{"command": "touch terminal-ran"}'])
    expect(call.code).toBe(1)
    expect(call.stderr).toContain('error E_DENIED')
    expect(call.stderr).toContain(`toolhost warn: permissions.mode bypass, 1 permissions.allow rule not loaded: ${repo} is not trusted`)
    expect(ran('terminal-ran')).toBe(false)
    expect((await toolhost(['doctor'])).stdout).toContain('  not applied permissions.mode bypass (calls ask as in ask mode)')
  })

  test('once trusted, or with the person\'s own --permission-mode, they apply', async () => {
    rmSync(path.join(repo, 'plugins'), { recursive: true })
    writeFileSync(path.join(repo, 'config.yaml'), 'permissions:\n  mode: bypass\n  allow: ["terminal(*)"]\n')
    expect((await toolhost(['call', 'terminal', '{"command": "touch flag-ran"}', '--permission-mode', 'bypass'])).code).toBe(0)
    await toolhost(['trust'])
    expect((await toolhost(['call', 'terminal', '{"command": "touch terminal-ran"}'])).code).toBe(0)
    expect(ran('terminal-ran')).toBe(true)
  })

  test('with the built-in tools off, "no tools" says why: the folder is not trusted', async () => {
    writeFileSync(path.join(repo, 'config.yaml'), 'plugins: { builtins: false }\n')
    const list = await toolhost(['list'])
    expect(list.stderr).toContain("toolhost: no tools: the built-in tools are off (plugins.builtins: false in")
    expect(list.stderr).toContain("; the folder's 1 plugin file was not loaded: it is not trusted (toolhost trust runs them).")
  })

  test('a folder that brings no code of its own says nothing about trust', async () => {
    rmSync(path.join(repo, 'plugins'), { recursive: true })
    const list = await toolhost(['list'])
    expect(list.stderr).not.toContain('trust')
  })
})

describe('toolhost trust', () => {
  test('trusts the folder by its real path, in a 0600 file outside it; its code then runs', async () => {
    const viaLink = path.join(scratch, 'link-to-cloned')
    symlinkSync(repo, viaLink)
    const trust = await toolhost(['trust'], viaLink, true)
    expect(trust.code).toBe(0)
    expect(trust.stdout).toContain(`trusted ${repo}: 1 plugin file (plugins/evil.mjs)`)
    expect(statSync(trustFile).mode & 0o777).toBe(0o600)
    expect(statSync(path.dirname(trustFile)).mode & 0o777).toBe(0o700)
    const stored = JSON.parse(readFileSync(trustFile, 'utf8')) as { workspaces: Record<string, { digest: string; by: string }> }
    expect(Object.keys(stored.workspaces)).toEqual([repo])
    expect(stored.workspaces[repo]!.by).toBe('toolhost trust')
    const call = await toolhost(['call', 'evil', '--yes'])
    expect(call).toMatchObject({ code: 0, stdout: 'evil ran\n' })
    expect(call.stderr).not.toContain('not trusted')
    expect(ran('plugin-ran')).toBe(true)
  })

  // Each change is its own test: each spawns the CLI a few times (a shared machine is slow).
  test('a changed plugin file needs trust again (as direnv allow)', async () => {
    await toolhost(['trust'])
    appendFileSync(path.join(repo, 'plugins', 'evil.mjs'), '// one more line\n')
    expect((await toolhost(['list'])).stderr).toContain('not trusted')
    await toolhost(['trust'])
    expect((await toolhost(['list'])).stdout).toContain('evil')
  })

  test('a new hook or server needs trust again', async () => {
    await toolhost(['trust'])
    withHooksAndServers()
    const list = await toolhost(['list'])
    expect(list.stdout).not.toContain('evil')
    expect(list.stderr).toContain('1 hook command')
    expect(ran('hook-ran')).toBe(false)
  })

  test('a helper beside the plugins is code too: a new one needs trust again', async () => {
    await toolhost(['trust'])
    writeFileSync(path.join(repo, 'plugins', 'helper.cjs'), 'module.exports = 1\n')
    expect((await toolhost(['list'])).stderr).toContain('not trusted')
  })

  test('new-plugin in a trusted folder takes the trust along (the person asked for it there); in an untrusted one it trusts nothing', async () => {
    await toolhost(['trust'])
    const added = await toolhost(['new-plugin', 'weather'])
    expect(added.code, added.stderr).toBe(0)
    expect(added.stdout).toContain(`trusted ${repo} again, with plugins/weather.mjs`)
    const list = await toolhost(['list'])
    expect(list.stdout).toMatch(/^weather\b/m)
    expect(list.stdout).toMatch(/^evil\b/m)
    expect(list.stderr).not.toContain('not trusted')
    // Untrusted: what the folder held stays withheld, and so does the new file.
    await toolhost(['trust', '--revoke'])
    const again = await toolhost(['new-plugin', 'forecast'])
    expect(again.stdout).not.toContain('trusted')
    expect((await toolhost(['list'])).stderr).toContain('not trusted')
  })

  test('--revoke forgets the folder', async () => {
    await toolhost(['trust'])
    const revoke = await toolhost(['trust', '--revoke'])
    expect(revoke.stdout).toContain(`revoked: ${repo}`)
    expect((await toolhost(['list'])).stdout).not.toContain('evil')
  })

  test('a trust file others may write, or one that is a link, trusts nothing and is named', async () => {
    await toolhost(['trust'])
    chmodSync(trustFile, 0o666)
    const list = await toolhost(['list'])
    expect(list.stdout).not.toContain('evil')
    expect(list.stderr).toContain(`toolhost warn: ${trustFile}: the trust file is set aside (others may write it (mode 666); chmod 600 it); no folder is trusted until it is fixed`)
    // Nor is it overwritten: its owner decides.
    expect((await toolhost(['trust'])).stderr).toContain('fix or delete it')
    // A link (to a file that would trust the folder) is set aside too.
    chmodSync(trustFile, 0o600)
    const real = path.join(scratch, 'elsewhere.json')
    writeFileSync(real, readFileSync(trustFile), { mode: 0o600 })
    rmSync(trustFile)
    symlinkSync(real, trustFile)
    const viaLink = await toolhost(['list'])
    expect(viaLink.stdout).not.toContain('evil')
    expect(viaLink.stderr).toContain('the trust file is set aside (it is a symbolic link)')
  })

  test('a .env of the folder cannot name another trust file', async () => {
    const planted = path.join(repo, 'planted-trust.json')
    writeFileSync(planted, JSON.stringify({ version: 1, workspaces: {}, folders: ['/'] }), { mode: 0o600 })
    writeFileSync(path.join(repo, '.env'), `TOOLHOST_TRUST_FILE=${planted}\n`)
    const list = await toolhost(['list'], repo, true)
    expect(list.stdout).not.toContain('evil')
    expect(ran('plugin-ran')).toBe(false)
  })
})
