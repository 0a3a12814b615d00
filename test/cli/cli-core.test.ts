import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { main } from '../../src/cli/main.js'
import { registry } from '../../src/registry/registry.js'
import { outputOf, TOOLHOST_CLI } from '../toolhost-cli.js'

// The CLI as a user runs it: `toolhost …` in a child process (from the sources, test/toolhost-cli.ts), against fixture plugins,
// a fixture config (no plugin folders of its own, no .env, permissions bypassed) and a temp root.
// Each spawn starts tsx afresh (seconds on a busy machine), so the many small variations of exit
// codes and messages run in-process through the same `main(argv, io)` the binary calls.
const BIN = TOOLHOST_CLI
const CONFIG = path.resolve('test/fixtures/config/cli.yaml')
const OK = path.resolve('test/fixtures/plugins/ok')
const GATED = path.resolve('test/fixtures/plugins/gated')
const BROKEN = path.resolve('test/fixtures/plugins/broken')
const BASICS = path.resolve('plugins')

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

let root: string

function toolhost(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  // An `undefined` in `env` removes the variable from the child's environment.
  const childEnv: NodeJS.ProcessEnv = { ...process.env, TOOLHOST_WEBHOOK_URL: '', TOOLHOST_FIXTURE_TOKEN: '', ...env }
  for (const [name, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[name]
  return outputOf(spawn(process.execPath, [BIN, ...args], {
    cwd: path.resolve('.'),
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  }))
}

const withFixtures = (...rest: string[]): string[] => [...rest, '--config', CONFIG, '--root', root]

/** `main` in this process, with its output captured. */
async function inProcess(argv: string[]): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const code = await main(argv, { out: (text) => (stdout += text + '\n'), err: (text) => (stderr += text + '\n') })
  return { code, stdout, stderr }
}

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolhost-cli-'))
})

// In-process runs share this process's registry: each starts from an empty one.
beforeEach(() => registry.clear())

afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('toolhost list', () => {
  test('--json: {tools:[{name, toolset, description, available, reason?}]}, hidden tools listed with why', async () => {
    const run = await toolhost(withFixtures('list', '--json', '--plugins', OK, '--plugins', GATED), { TOOLHOST_FIXTURE_TOKEN: 'on' })
    expect(run.code).toBe(0)
    const { tools } = JSON.parse(run.stdout) as { tools: Array<Record<string, unknown>> }
    const names = tools.map((t) => t.name)
    expect(names).toEqual([...names].sort())
    expect(tools.find((t) => t.name === 'greet')).toEqual({ name: 'greet', toolset: 'fixture', description: 'Greets someone by name.', available: true })
    expect(tools.find((t) => t.name === 'gated_env')).toMatchObject({ available: true })
    expect(tools.find((t) => t.name === 'check_throws')).toEqual({
      name: 'check_throws',
      toolset: 'checks',
      description: 'Availability fixture check_throws.',
      available: false,
      reason: 'check threw: the service is down',
    })
    expect(tools.find((t) => t.name === 'check_slow')).toMatchObject({ available: false, reason: 'check took longer than 200 ms' })
    expect(tools.find((t) => t.name === 'gated_two_vars')).toMatchObject({ available: false, reason: 'missing env vars TOOLHOST_FIXTURE_A, TOOLHOST_FIXTURE_B' })
    for (const tool of tools) expect(Object.keys(tool).sort()).toEqual(tool.available ? ['available', 'description', 'name', 'toolset'] : ['available', 'description', 'name', 'reason', 'toolset'])
  })

  test('human output: a table with why each hidden tool is hidden', async () => {
    const run = await toolhost(withFixtures('list', '--plugins', GATED))
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^gated_env +gated +hidden: missing env var TOOLHOST_FIXTURE_TOKEN$/m)
    expect(run.stdout).toMatch(/^check_async_true +checks +available$/m)
    expect(run.stdout).toMatch(/\d+ of \d+ tools available/)
  })
})

describe('toolhost list with a duplicate tool name (issue 24.6)', () => {
  test('the table is followed by which file kept the name and which lost it; --json has them as duplicates', async () => {
    const human = await inProcess(withFixtures('list', '--plugins', BROKEN))
    expect(human.code).toBe(0)
    expect(human.stdout).toContain(`\nduplicate tool names (the file loaded first keeps the name):\n  dup_tool: kept from ${BROKEN}/dup-a.ts; ${BROKEN}/dup-b.ts lost it and loaded none of its tools (dup-a.ts sorts before dup-b.ts, and the files of a folder load sorted by path); rename one of them\n`)
    registry.clear()
    const json = JSON.parse((await inProcess(withFixtures('list', '--json', '--plugins', BROKEN))).stdout) as { duplicates: unknown }
    expect(json.duplicates).toEqual([{ name: 'dup_tool', kept: `${BROKEN}/dup-a.ts`, lost: `${BROKEN}/dup-b.ts`, why: 'dup-a.ts sorts before dup-b.ts, and the files of a folder load sorted by path' }])
  })

  test('--json has no duplicates key when there are none', async () => {
    const json = JSON.parse((await inProcess(withFixtures('list', '--json', '--plugins', OK))).stdout) as Record<string, unknown>
    expect(Object.keys(json)).toEqual(['tools'])
  })
})

describe('toolhost doctor', () => {
  test('reports every failing plugin with its error, and exits 1', async () => {
    const run = await toolhost(withFixtures('doctor', '--plugins', BROKEN))
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(`config:        ${CONFIG}`)
    expect(run.stdout).toMatch(/plugins: +3 loaded, 5 failed/)
    expect(run.stdout).toMatch(/FAILED .*broken\/half\.ts: half\.ts gave up after registering one tool/)
    expect(run.stdout).toMatch(/FAILED .*broken\/dup-b\.ts: tool "dup_tool" is registered twice/)
    expect(run.stdout).toMatch(/FAILED .*broken\/syntax-error\.mjs: SyntaxError/)
    expect(run.stdout).toMatch(/ok +.*broken\/a-good\.ts \(broken_first\)/)
    // Which file kept a duplicate name, which lost and why (issue 24.6); doctor exits 1 for it.
    expect(run.stdout).toContain('duplicates:    1 tool name registered by two files; the file loaded first keeps it\n')
    expect(run.stdout).toContain(`  dup_tool: kept from ${BROKEN}/dup-a.ts; ${BROKEN}/dup-b.ts lost it and loaded none of its tools (dup-a.ts sorts before dup-b.ts, and the files of a folder load sorted by path); rename one of them\n`)
    // A schema's faults come all at once, each in plain words at its place in the schema (issue 24.7).
    const badSchema = run.stdout.split('\n').find((line) => line.includes('broken/bad-schema.ts:'))
    expect(badSchema).toContain('tool "bad_schema"')
    expect(badSchema).toContain('has an invalid parameters schema: 3 problems: ')
    expect(badSchema).toContain('(1) `properties.when.format`: unknown format "date-tme" (did you mean "date-time"?)')
    expect(badSchema).toContain('`required` names "txet", which `properties` does not declare (did you mean "text"?)')
    expect(badSchema).toContain('`properties.text`: unknown keyword "maxLenght" (did you mean "maxLength"?)')
  })

  test('shows the env file and plugin folders that do not exist (in-process)', async () => {
    const run = await inProcess(withFixtures('doctor', '--plugins', OK, '--plugins', 'no/such/folder'))
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('env file:      (disabled)')
    // Issue 31: which store, and whether it answers.
    expect(run.stdout).toMatch(/^store: +memory \(this process\), reachable$/m)
    // Issue 29: which engine search_files runs (the binary of the @vscode/ripgrep dependency here).
    expect(run.stdout).toMatch(/^search: +ripgrep \d+\.\d+\.\d+ \(@vscode\/ripgrep: \/.+\/rg(\.exe)?\)$/m)
    expect(run.stdout).toContain(`root:          ${root}`)
    expect(run.stdout).toContain(`missing folder ${path.resolve('no/such/folder')}`)
    expect(run.stdout).toMatch(/ok +.*fixtures\/plugins\/ok\/greet\.ts \(greet\)/)
  })

  test('shows the permission rules and an MCP server that is down, and exits 1 (in-process)', async () => {
    const config = path.join(root, 'doctor-mcp.yaml')
    writeFileSync(config, [
      'plugins: { dirs: [] }',
      'env_file: ""',
      'permissions: { mode: plan, allow: [echo], deny: ["read_file(**/*.pem)", terminal] }',
      'mcp_servers: { ghost: { command: /no/such/mcp-server } }',
    ].join('\n'))
    const run = await inProcess(['doctor', '--config', config, '--root', root])
    expect(run.stdout).toMatch(/permissions: +plan, 3 rules \(allow 1, ask 0, deny 2\)/)
    expect(run.stdout).toMatch(/mcp servers: +0 of 1 connected/)
    expect(run.stdout).toMatch(/DOWN +ghost \(0 tools\)/)
    expect(run.code).toBe(1)
  })

  test('all plugins fine: exit 0, hidden tools listed with why', async () => {
    const run = await toolhost(withFixtures('doctor', '--plugins', GATED))
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/hidden +check_false: check returned false/)
  })
})

describe('toolhost call', () => {
  test('--json: one result {id, name, ok, content}; exit 0', async () => {
    const run = await toolhost(withFixtures('call', 'echo', '{"text":"x"}', '--json', '--plugins', BASICS))
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual({ id: 'call_1', name: 'echo', ok: true, content: 'x' })
  })

  // A name given is a call, even an empty one (a generated or hostile name): it gets its coded
  // result, not a usage error (only a missing name is one).
  test('call with an empty name: E_TOOL_UNKNOWN in its result, exit 1', async () => {
    const run = await toolhost(withFixtures('call', '', '{}', '--json', '--plugins', BASICS))
    expect(run.code).toBe(1)
    expect(JSON.parse(run.stdout)).toMatchObject({ id: 'call_1', ok: false, error: { code: 'E_TOOL_UNKNOWN', message: expect.stringMatching(/^there is no tool named ""/) } })
  })

  test('human output: the content on stdout', async () => {
    const run = await toolhost(withFixtures('call', 'greet', '{"name":"Ada"}', '--plugins', OK))
    expect(run).toMatchObject({ code: 0, stdout: 'hello Ada\n' })
  })

  test.each([
    { args: ['greet', '{"name":1}'], code: 'E_ARGS_INVALID' },
    { args: ['greet', 'not json'], code: 'E_ARGS_INVALID' },
    { args: ['gret', '{}'], code: 'E_TOOL_UNKNOWN' },
    { args: ['check_false'], code: 'E_TOOL_UNAVAILABLE' },
  ])('a failing call ($code) exits 1 with the error in the result (in-process)', async ({ args, code }) => {
    const run = await inProcess(withFixtures('call', ...args, '--json', '--plugins', OK, '--plugins', GATED))
    expect(run.code).toBe(1)
    const result = JSON.parse(run.stdout) as { ok: boolean; error: { code: string; message: string } }
    expect(result).toMatchObject({ ok: false, error: { code } })
    expect(result.error.message.length).toBeGreaterThan(10)
  })

  test('without --json a failure goes to stderr', async () => {
    const run = await toolhost(withFixtures('call', 'gret', '{}', '--plugins', OK))
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('error E_TOOL_UNKNOWN: there is no tool named "gret". Did you mean "greet"?')
  })
})

describe('usage and configuration errors exit 2', () => {
  test.each([
    { why: 'an unknown option', args: ['list', '--frobnicate'], stderr: /^toolhost: E_USAGE: unknown option --frobnicate; see toolhost list --help\n$/ },
    { why: 'an invalid config', args: ['list', '--config', 'test/fixtures/config/bad-enum.yaml'], stderr: /E_CONFIG_INVALID: .*bad-enum\.yaml: key `dispatch\.mode`/ },
  ])('$why (spawned)', async ({ args, stderr }) => {
    const run = await toolhost(args)
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(stderr)
  })

  test.each([
    { why: 'an unknown option', args: ['list', '--frobnicate'], stderr: /^toolhost: E_USAGE: unknown option --frobnicate; see toolhost list --help\n$/ },
    { why: 'an unknown command', args: ['frobnicate'], stderr: /unknown command "frobnicate"/ },
    { why: 'call without a name', args: ['call'], stderr: /E_USAGE: call needs a tool name/ },
    { why: 'call with unquoted JSON split by the shell', args: ['call', 'echo', '{"text":', '"a"}'], stderr: /E_USAGE: call takes a tool name and one JSON argument, got 2 arguments after the name; quote the JSON/ },
    { why: 'a bad --mode', args: ['list', '--mode', 'fast'], stderr: /E_USAGE: --mode must be one of graph, partition, batch, serial; got "fast"/ },
    { why: '--trace-file with a command that runs no calls (it wrote an empty trace)', args: ['list', '--trace-file', 'never-written.json'], stderr: /^toolhost: E_USAGE: --trace-file records the calls that run; use it with run, call, serve, demo \(not list\)\n$/ },
    { why: 'a missing --config file', args: ['list', '--config', 'test/fixtures/config/nope.yaml'], stderr: /E_CONFIG_INVALID: .*nope\.yaml: config file not found/ },
    { why: 'an invalid config', args: ['list', '--config', 'test/fixtures/config/bad-enum.yaml'], stderr: /E_CONFIG_INVALID: .*bad-enum\.yaml: key `dispatch\.mode`/ },
    { why: 'a missing --root', args: ['list', '--config', CONFIG, '--root', 'no/such/folder'], stderr: /E_CONFIG_INVALID: --root: the workspace root/ },
  ])('$why (in-process)', async ({ args, stderr }) => {
    const run = await inProcess(args)
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(stderr)
  })

  test('TOOLHOST_MAX_WORKERS with a bad value (in-process)', async () => {
    process.env.TOOLHOST_MAX_WORKERS = 'many'
    try {
      const run = await inProcess(withFixtures('list'))
      expect(run.code).toBe(2)
      expect(run.stderr).toContain('TOOLHOST_MAX_WORKERS must be an integer from 1 to 1024, got "many"')
    } finally {
      delete process.env.TOOLHOST_MAX_WORKERS
    }
  })

  test('--help prints the usage and exits 0; no command prints it and exits 2 (in-process)', async () => {
    const help = await inProcess(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('toolhost call NAME [JSON] [--json]')
    expect((await inProcess([])).code).toBe(2)
  })
})

test('a .env file in the root is loaded: the gated tool shows; the real environment wins over it', async () => {
  const envRoot = mkdtempSync(path.join(os.tmpdir(), 'toolhost-cli-env-'))
  const config = path.join(envRoot, 'config.yaml')
  try {
    writeFileSync(path.join(envRoot, '.env'), 'TOOLHOST_FIXTURE_TOKEN=from-dotenv\n')
    writeFileSync(config, 'plugins:\n  dirs: []\npermissions:\n  mode: bypass\n')
    const fromFile = await toolhost(['call', 'gated_env', '--config', config, '--plugins', GATED], { TOOLHOST_FIXTURE_TOKEN: undefined })
    expect(fromFile).toMatchObject({ code: 0, stdout: 'token=from-dotenv\n' })
    const fromEnv = await toolhost(['call', 'gated_env', '--config', config, '--plugins', GATED], { TOOLHOST_FIXTURE_TOKEN: 'from-env' })
    expect(fromEnv).toMatchObject({ code: 0, stdout: 'token=from-env\n' })
  } finally {
    rmSync(envRoot, { recursive: true, force: true })
  }
})
