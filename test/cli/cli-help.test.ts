import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { COMMANDS } from '../../src/cli/args.js'
import { main } from '../../src/cli/main.js'
import { registry } from '../../src/registry/registry.js'
import { REPO, TOOLHOST_CLI } from '../toolhost-cli.js'

// What a person sees at the CLI: versions and help, one-line usage errors, the demo, doctor's .env
// report, an empty tool list, and plugin failures, each read from the output the person gets.
const CONFIG = path.join(REPO, 'test/fixtures/config/cli.yaml')
const BROKEN = path.join(REPO, 'test/fixtures/plugins/broken')

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

async function inProcess(argv: string[]): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const code = await main(argv, { out: (text) => (stdout += text + '\n'), err: (text) => (stderr += text + '\n') })
  return { code, stdout, stderr }
}

function spawned(args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TOOLHOST_CLI, ...args], { cwd, env: { ...process.env, TOOLHOST_LOG: 'warn' } }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
    })
  })
}

let dir: string
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-cli-help-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))
beforeEach(() => registry.clear())

describe('version and help', () => {
  test('--version and -v print the package version, and nothing else', async () => {
    const { version } = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }
    expect(await inProcess(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' })
    expect((await inProcess(['-v'])).stdout).toBe(`${version}\n`)
  })

  test.each(Object.keys(COMMANDS))('toolhost help %s and toolhost %s --help print that command\'s help and exit 0', async (command) => {
    const help = await inProcess(['help', command])
    expect(help.code).toBe(0)
    expect(help.stdout.split('\n')[0]).toBe(COMMANDS[command]!.synopsis)
    expect(help.stdout).toContain(COMMANDS[command]!.more)
    expect(await inProcess([command, '--help'])).toEqual(help)
  })

  test('--help lists every command', async () => {
    const help = await inProcess(['--help'])
    expect(help.code).toBe(0)
    for (const command of Object.values(COMMANDS)) expect(help.stdout).toContain(command.synopsis)
  })
})

describe('usage errors are one line with a pointer to the help', () => {
  test.each([
    { args: ['list', '--frobnicate'], line: 'toolhost: E_USAGE: unknown option --frobnicate; see toolhost list --help' },
    { args: ['--frobnicate'], line: 'toolhost: E_USAGE: unknown option --frobnicate; see toolhost --help' },
    { args: ['lsit'], line: 'toolhost: E_USAGE: unknown command "lsit" (did you mean list?); see toolhost --help' },
    { args: ['help', 'lsit'], line: 'toolhost: E_USAGE: unknown command "lsit" (did you mean list?); see toolhost --help' },
    { args: ['call', '--root'], line: 'toolhost: E_USAGE: --root needs a value: --root DIR; see toolhost call --help' },
    { args: ['serve', '--http'], line: 'toolhost: E_USAGE: --http needs a value: --http PORT (0 picks a free one); see toolhost serve --help' },
    { args: ['list', '--root', '--json'], line: 'toolhost: E_USAGE: --root needs a value: --root DIR; see toolhost list --help' },
    { args: ['explain', 'a.json', 'b.json'], line: 'toolhost: E_USAGE: explain takes one argument (FILE|-); unexpected "b.json"; see toolhost explain --help' },
    { args: ['list', 'extra'], line: 'toolhost: E_USAGE: list takes no arguments; unexpected "extra"; see toolhost list --help' },
    { args: ['list', '--json=yes'], line: 'toolhost: E_USAGE: --json takes no value: write --json alone; see toolhost list --help' },
  ])('toolhost $args.0 $args.1', async ({ args, line }) => {
    expect(await inProcess(args)).toEqual({ code: 2, stdout: '', stderr: `${line}\n` })
  })
})

describe('what a person reads', () => {
  test('list prints each plugin load failure once, on stderr (spawned)', async () => {
    const run = await spawned(['list', '--config', CONFIG, '--root', dir, '--plugins', BROKEN], dir)
    expect(run.code).toBe(0)
    const failures = run.stderr.split('\n').filter((line) => line.includes('failed to load'))
    expect(failures).toHaveLength(5)
    for (const file of ['bad-name.ts', 'bad-schema.ts', 'dup-b.ts', 'half.ts', 'syntax-error.mjs']) {
      expect(failures.filter((line) => line.includes(`broken/${file} failed to load`))).toHaveLength(1)
    }
  })

  test('counts of one read in the singular: "0 of 1 tool available", "plan (1 call)"', async () => {
    const config = path.join(dir, 'one-tool.yaml')
    writeFileSync(config, 'plugins:\n  dirs: []\n  builtins: [basics]\nenv_file: ""\ndispatch:\n  duration_estimates: ""\n')
    const batch = path.join(dir, 'one-call.json')
    writeFileSync(batch, JSON.stringify([{ type: 'tool_use', id: 't1', name: 'echo', input: { text: 'hi' } }]))
    expect((await inProcess(['explain', batch, '--config', config, '--root', dir])).stdout).toMatch(/^graph mode plan \(1 call\):/)
    const one = path.join(dir, 'one-builtin.yaml')
    writeFileSync(one, 'plugins:\n  dirs: []\n  builtins: [notify]\nenv_file: ""\n')
    registry.clear()
    expect((await inProcess(['list', '--config', one, '--root', dir])).stdout).toContain('0 of 1 tool available')
  })

  test('an empty tool list says why and what to do', async () => {
    const config = path.join(dir, 'no-tools.yaml')
    writeFileSync(config, 'plugins:\n  dirs: [my-tools]\n  builtins: false\nenv_file: ""\n')
    const run = await inProcess(['list', '--config', config, '--root', dir])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('0 of 0 tools available')
    expect(run.stderr).toBe(`toolhost: no tools: the built-in tools are off (plugins.builtins: false in ${config}); no plugin file was found (no folder ${path.join(dir, 'my-tools')}). Write one with npx toolhost new-plugin NAME (into ./plugins), or name a folder with --plugins DIR.\n`)
  })

  test('doctor names the variables the .env file set, never their values', async () => {
    const root = mkdtempSync(path.join(dir, 'env-'))
    const secret = 'sk-live-do-not-print-1234567890'
    writeFileSync(path.join(root, '.env'), `TOOLHOST_DOCTOR_A=${secret}\nTOOLHOST_DOCTOR_B="${secret}-b"\nTOOLHOST_DOCTOR_SET=from-file\n`)
    writeFileSync(path.join(root, 'config.yaml'), 'plugins:\n  dirs: []\n  builtins: false\n')
    process.env.TOOLHOST_DOCTOR_SET = 'already'
    try {
      const run = await inProcess(['doctor', '--config', path.join(root, 'config.yaml')])
      expect(run.stdout).toContain(`env file:      ${path.join(root, '.env')} (set TOOLHOST_DOCTOR_A, TOOLHOST_DOCTOR_B)`)
      expect(run.stdout + run.stderr).not.toContain(secret)
      expect(run.stdout + run.stderr).not.toContain('from-file')
    } finally {
      delete process.env.TOOLHOST_DOCTOR_A
      delete process.env.TOOLHOST_DOCTOR_B
      delete process.env.TOOLHOST_DOCTOR_SET
    }
  })
})

describe('toolhost demo', () => {
  // Regression: the demo once failed every call outside the repository, and the README's batch
  // command wrote into examples/workspace.
  test('says what it will show, runs the batch on a scratch copy with only the two planned failures, touches nothing, and names runnable commands (spawned, from an unrelated folder)', async () => {
    const workspace = path.join(REPO, 'examples/workspace')
    const before = snapshot(workspace)
    const run = await spawned(['demo'], dir)
    expect(run.code, run.stderr).toBe(0)
    const lines = run.stdout.split('\n')
    expect(lines[0]).toBe('toolhost demo: first the tools toolhost comes with, then one batch of')
    expect(lines.slice(0, 5).join('\n')).not.toMatch(/permission|E_DENIED|accept-edits/i)
    expect(run.stdout).toMatch(/^ok +call_write_todo write_file$/m)
    expect(run.stdout).toMatch(/^error call_typo ecko E_TOOL_UNKNOWN$/m)
    expect(run.stdout).toMatch(/^error call_bad_args wait E_ARGS_INVALID$/m)
    expect(run.stdout.match(/^error /gm)).toHaveLength(2)
    const tryLine = lines.find((l) => l.startsWith('Try: '))!
    for (const command of tryLine.slice(5).split('  ·  ')) expect(command).toMatch(/^npx toolhost /)
    expect(tryLine).toContain(`npx toolhost explain ${path.join(REPO, 'examples/demo-batch.json')}`)
    // Issue 31: the explain it suggests shows what would run, not its writes denied.
    const explain = tryLine.slice(5).split('  ·  ').find((c) => c.startsWith('npx toolhost explain '))!
    const planned = await spawned(explain.split(' ').slice(2), dir)
    expect(planned.stdout).toMatch(/call_write_todo write_file/)
    expect(planned.stdout).not.toMatch(/permission: deny/)
    expect(snapshot(workspace)).toEqual(before)
    expect(snapshot(dir)).not.toHaveProperty('docs/todo.md')
  }, 60_000)
})

describe('toolhost demo in a project of its own', () => {
  // Friction seen in a fresh project: the demo loaded the project's plugins/ against its scratch
  // copy and asked to trust that temporary folder. It reads nothing of the current folder.
  test('leaves the current folder\'s config.yaml, .env and plugins alone: no trust question, only the built-in tools', async () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'toolhost-demo-project-'))
    try {
      mkdirSync(path.join(project, 'plugins'))
      writeFileSync(path.join(project, 'plugins/hi.mjs'), "import { defineTool } from 'toolhost'\nexport default defineTool({ name: 'project_hi', description: 'Says hi.', parameters: { type: 'object', properties: {}, additionalProperties: false }, handler: () => 'hi' })\n")
      writeFileSync(path.join(project, 'config.yaml'), 'dispatch:\n  max_workers: not-a-number\n')
      writeFileSync(path.join(project, '.env'), 'TOOLHOST_WEBHOOK_URL=http://127.0.0.1:9/hook\n')
      const run = await spawned(['demo'], project)
      expect(run.code, run.stderr).toBe(0)
      expect(run.stderr).not.toMatch(/trust|not loaded|config\.yaml/i)
      expect(run.stdout).not.toContain('project_hi')
      expect(run.stdout).toMatch(/^notify_webhook +notify +hidden: missing env var TOOLHOST_WEBHOOK_URL$/m)
    } finally {
      rmSync(project, { recursive: true, force: true })
    }
  }, 60_000)
})

function snapshot(folder: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name)
      if (entry.isDirectory()) walk(full)
      else out[path.relative(folder, full)] = readFileSync(full, 'utf8')
    }
  }
  walk(folder)
  return out
}
