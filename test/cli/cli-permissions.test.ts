import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { main } from '../../src/cli/main.js'
import { cliPermissionOptions, createTerminalApprove, parseAnswer } from '../../src/cli/terminal-approve.js'
import { approveEverything, registry, type ApprovalRequest } from '../../src/index.js'
import { makeRoot } from '../fixtures/permissions/tools.js'
import { outputOf, TOOLHOST_CLI } from '../toolhost-cli.js'

// The CLI's side of permissions: with no terminal a call that asks is denied (exit 1) and the
// message says how to allow it; --yes approves; a terminal prompt reads one answer per call.
const BIN = TOOLHOST_CLI
const CONFIG = path.resolve('test/fixtures/permissions/cli.yaml')
const PLUGINS = path.resolve('test/fixtures/permissions/plugins')

function toolhost(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // stdin is a pipe, not a TTY: nobody can be asked
  const child = spawn(process.execPath, [BIN, ...args], { cwd: path.resolve('.'), stdio: ['pipe', 'pipe', 'pipe'] })
  child.stdin.end()
  return outputOf(child)
}

describe('CLI without a terminal', () => {
  let root: string
  let cleanup: () => void
  beforeEach(() => ({ root, cleanup } = makeRoot()))
  afterEach(() => cleanup())

  test('a call that asks is denied with E_DENIED saying how to allow it (exit 1); --yes runs it (exit 0)', async () => {
    const common = ['--config', CONFIG, '--root', root, '--plugins', PLUGINS]
    const denied = await toolhost(['call', 'save_note', '{"path":"a.txt","text":"hi"}', ...common])
    expect(denied.code).toBe(1)
    expect(denied.stderr).toContain('E_DENIED')
    expect(denied.stderr).toContain('did not run')
    expect(denied.stderr).toContain('permissions.allow: ["save_note(a.txt)"]')
    expect(denied.stderr).toContain('--permission-mode accept-edits')
    expect(denied.stderr).toContain('--yes')
    expect(existsSync(path.join(root, 'a.txt'))).toBe(false)

    const approved = await toolhost(['call', 'save_note', '{"path":"a.txt","text":"hi"}', '--yes', ...common])
    expect(approved.stderr).not.toContain('E_DENIED')
    expect(approved.code).toBe(0)
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('hi')
    const audit = readFileSync(path.join(root, '.toolhost', 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { decision: string; by: string; answeredBy?: string })
    expect(audit.map((l) => `${l.decision}/${l.by}`)).toEqual(['ask/mode', 'deny/no-approver', 'ask/mode', 'allow-once/person'])
    expect(audit[3]!.answeredBy).toBe('--yes')
  }, 60_000)
})

describe('CLI permission flags, in process', () => {
  let root: string
  let cleanup: () => void
  beforeEach(() => ({ root, cleanup } = makeRoot()))
  afterEach(() => {
    registry.clear()
    cleanup()
  })

  async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = ''
    let err = ''
    const code = await main(['--config', CONFIG, '--root', root, '--plugins', PLUGINS, ...args], { out: (t) => (out += t + '\n'), err: (t) => (err += t + '\n') })
    registry.clear() // the plugin registers again on the next main()
    return { code, out, err }
  }

  test.each([
    [['--permission-mode', 'plan'], 1, /plan mode/],
    [['--permission-mode', 'accept-edits'], 0, /saved a\.txt/],
    [['--permission-mode', 'auto'], 0, /saved a\.txt/],
  ])('%j', async (flags, code, text) => {
    const result = await cli('call', 'save_note', '{"path":"a.txt","text":"hi"}', ...flags)
    expect(result.code).toBe(code)
    expect(result.out + result.err).toMatch(text)
  })

  test('--yes approves asks but never a deny rule', async () => {
    const result = await cli('call', 'save_note', '{"path":"src/../.env","text":"x"}', '--yes')
    expect(result.code).toBe(1)
    expect(result.err).toContain('permissions.deny[0] "save_note(.env)"')
    expect(existsSync(path.join(root, '.env'))).toBe(false)
  })

  test('a read-only call runs in the default mode', async () => {
    expect(await cli('call', 'shout', '{"text":"hi"}')).toMatchObject({ code: 0, out: 'HI\n' })
  })

  test('a bad --permission-mode is a usage error', async () => {
    expect((await cli('call', 'shout', '{"text":"hi"}', '--permission-mode', 'yolo')).code).toBe(2)
  })
})

describe('who approves on the CLI', () => {
  test.each([
    [{ yes: true, permissionMode: undefined }, true, 'everything'],
    [{ yes: true, permissionMode: undefined }, false, 'everything'],
    [{ yes: false, permissionMode: undefined }, true, 'terminal'],
    [{ yes: false, permissionMode: undefined }, false, 'nobody'],
  ])('%j on a terminal=%s → %s', (args, interactive, who) => {
    const options = cliPermissionOptions(args, interactive)
    if (who === 'everything') expect(options.approve).toBe(approveEverything)
    else if (who === 'nobody') expect(options.approve).toBeUndefined()
    else expect(typeof options.approve).toBe('function')
  })

  test('--permission-mode passes through', () => {
    expect(cliPermissionOptions({ yes: false, permissionMode: 'auto' }, false)).toEqual({ permissionMode: 'auto' })
  })
})

describe('the terminal prompt', () => {
  const request = (callId: string, extra: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
    callId,
    tool: 'write_file',
    args: { path: 'src/a.ts', content: 'x' },
    subject: 'src/a.ts',
    reason: 'write_file is not read-only for these arguments (mode ask)',
    askedBy: 'mode',
    destructive: false,
    ...extra,
  })

  test.each([
    ['y', { decision: 'allow-once', by: 'terminal' }],
    ['YES', { decision: 'allow-once', by: 'terminal' }],
    ['a', { decision: 'allow-session', by: 'terminal' }],
    ['n', { decision: 'deny', by: 'terminal' }],
    ['n use src/b.ts instead', { decision: 'deny', by: 'terminal', message: 'use src/b.ts instead' }],
    ['maybe', undefined],
    ['', undefined],
  ])('answer %j', (line, expected) => {
    expect(parseAnswer(line)).toEqual(expected)
  })

  test('shows every call that asks (tool, arguments, why) and reads one answer each, re-asking on nonsense', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    let shown = ''
    output.on('data', (chunk: Buffer) => (shown += chunk.toString()))
    input.write('y\nwhat?\na\nn not that one\n')
    const approve = createTerminalApprove({ input, output })
    const answers = await approve([request('c1'), request('c2', { tool: 'terminal', args: { command: 'rm -rf build' }, subject: 'rm -rf build', destructive: true, reason: 'terminal says this call is destructive' }), request('c3')], new AbortController().signal)
    expect(answers).toEqual([
      { decision: 'allow-once', by: 'terminal' },
      { decision: 'allow-session', by: 'terminal' },
      { decision: 'deny', by: 'terminal', message: 'not that one' },
    ])
    expect(shown).toContain('3 calls need your approval')
    expect(shown).toContain('[1/3] write_file  (call c1)')
    expect(shown).toContain('arguments: {"content":"x","path":"src/a.ts"}')
    expect(shown).toContain('[2/3] terminal  (call c2)  DESTRUCTIVE')
    expect(shown).toContain('why:       terminal says this call is destructive')
    expect(shown).toContain('"what?" is not an answer')
  })

  test('input that ends denies what is left', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    input.end('y\n')
    const answers = await createTerminalApprove({ input, output })([request('c1'), request('c2')], new AbortController().signal)
    expect(answers).toEqual([
      { decision: 'allow-once', by: 'terminal' },
      { decision: 'deny', by: 'terminal', message: 'the terminal closed before the user answered' },
    ])
  })

  test('an interrupt denies what is left', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const controller = new AbortController()
    output.on('data', () => controller.abort())
    const answers = await createTerminalApprove({ input, output })([request('c1')], controller.signal)
    expect(answers).toEqual([{ decision: 'deny', by: 'terminal', message: 'interrupted before the user answered' }])
  })
})
