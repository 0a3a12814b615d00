// What the wall lets through: names with dots, symlinks that stay inside, absolute paths inside, a
// root reached through a symlinked parent; and what it denies inside the root (workspace.deny).
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { isCaseInsensitiveFs } from '../../src/workspace/paths.js'
import { registry, type Host } from '../../src/index.js'
import { compileDenyList } from '../../src/workspace/deny-list.js'
import { Workspace } from '../../src/workspace/workspace.js'
import { call, hostOn, makeSandbox, SECRET, type Sandbox } from './sandbox.js'

let sb: Sandbox
let host: Host

beforeAll(async () => {
  sb = makeSandbox('toolhost-allowed-')
  const { root } = sb
  mkdirSync(path.join(root, 'dir'))
  writeFileSync(path.join(root, 'dir', 'inner.txt'), 'inner\n')
  writeFileSync(path.join(root, '..test'), 'dots before\n')
  writeFileSync(path.join(root, 'a..b'), 'dots inside\n')
  symlinkSync(path.join(root, 'dir', 'inner.txt'), path.join(root, 'link-in'))
  symlinkSync('dir', path.join(root, 'link-dir-in'))
  symlinkSync('link-dir-in', path.join(root, 'chain-in'))
  writeFileSync(path.join(root, '.env'), `KEY=${SECRET}\n`)
  mkdirSync(path.join(root, '.git'))
  writeFileSync(path.join(root, '.git', 'config'), `[remote] url=${SECRET}\n`)
  mkdirSync(path.join(root, 'app'))
  writeFileSync(path.join(root, 'app', '.env'), `NESTED=${SECRET}\n`)
  writeFileSync(path.join(root, '.env.example'), 'KEY=put-your-key-here\n')
  symlinkSync('.env', path.join(root, 'env-link'))
  mkdirSync(path.join(root, '.toolhost', 'results'), { recursive: true })
  writeFileSync(path.join(root, '.toolhost', 'results', 'call_1-m1abc2d-x4y5z6.txt'), 'a saved full result\n')
  writeFileSync(path.join(root, '.toolhost', 'audit.jsonl'), `${SECRET}\n`)
  registry.clear()
  host = await hostOn(root)
})

afterAll(async () => {
  await host.close()
  registry.clear()
  sb.cleanup()
})

describe('legitimate paths work', () => {
  test.each([
    ['a name starting with dots', '..test', 'dots before'],
    ['a name with dots inside', 'a..b', 'dots inside'],
    ['.. that stays inside', 'dir/../dir/inner.txt', 'inner'],
    ['./ prefix', './dir/inner.txt', 'inner'],
    ['a symlink to a file inside', 'link-in', 'inner'],
    ['a symlinked folder inside', 'link-dir-in/inner.txt', 'inner'],
    ['chained symlinks inside', 'chain-in/inner.txt', 'inner'],
    ['an absolute path inside the root', () => path.join(sb.root, 'dir', 'inner.txt'), 'inner'],
  ])('read_file: %s', async (_name, input, expected) => {
    const result = await call(host, 'read_file', { path: typeof input === 'function' ? input() : input })
    expect(result.ok, result.content).toBe(true)
    expect(result.content).toContain(expected)
  })

  test.each([
    ['a new name with dots', '..new', '..new'],
    ['a new folder with dots', 'x..y/z.txt', 'x..y/z.txt'],
    ['through a symlinked folder inside', 'link-dir-in/made.txt', 'dir/made.txt'],
    ['new folders beneath a symlinked folder inside', 'chain-in/n1/n2/made.txt', 'dir/n1/n2/made.txt'],
  ])('write_file: %s', async (_name, input, landed) => {
    const result = await call(host, 'write_file', { path: input, content: `${input}\n` })
    expect(result.ok, result.content).toBe(true)
    expect(readFileSync(path.join(sb.root, landed), 'utf8')).toBe(`${input}\n`)
  })

  test('writing through a symlink to a file inside changes its target and keeps the link', async () => {
    symlinkSync('dir/target.txt', path.join(sb.root, 'to-target'))
    writeFileSync(path.join(sb.root, 'dir', 'target.txt'), 'before\n')
    const result = await call(host, 'write_file', { path: 'to-target', content: 'after\n' })
    expect(result.ok, result.content).toBe(true)
    expect(readFileSync(path.join(sb.root, 'dir', 'target.txt'), 'utf8')).toBe('after\n')
    expect(readFileSync(path.join(sb.root, 'to-target'), 'utf8')).toBe('after\n')
  })

  test('a root reached through a symlinked parent folder works, and still walls', async () => {
    const via = path.join(sb.base, 'via')
    symlinkSync(sb.base, via)
    const other = await hostOn(path.join(via, 'root'))
    try {
      expect((await call(other, 'read_file', { path: 'dir/inner.txt' })).content).toContain('inner')
      expect((await call(other, 'write_file', { path: 'via-root.txt', content: 'ok\n' })).ok).toBe(true)
      expect(readFileSync(path.join(sb.root, 'via-root.txt'), 'utf8')).toBe('ok\n')
      const out = await call(other, 'read_file', { path: path.join(via, 'root-sibling', 'secret.txt') })
      expect(out.error?.code).toBe('E_PATH_OUTSIDE_ROOT')
      expect(out.content).not.toContain(SECRET)
    } finally {
      await other.close()
    }
  })
})

describe('workspace.deny (defaults: .env, .env.*, .git/**, .toolhost/**)', () => {
  const DENIED = ['.env', 'app/.env', '.env.local', '.git/config', '.git', '.git/hooks/pre-commit', '.toolhost/audit.jsonl', 'env-link', 'dir/../.env']
  test.each(DENIED)('read_file %s is refused without content', async (p) => {
    const result = await call(host, 'read_file', { path: p })
    expect(result.error?.code, result.content).toBe('E_PATH_OUTSIDE_ROOT')
    expect(result.content).toMatch(/deny list/)
    expect(result.content).not.toContain(SECRET)
  })
  test.each([...DENIED, '.toolhost/results/call_1-m1abc2d-x4y5z6.txt', '.toolhost/results/new.txt'])('write_file %s is refused and changes nothing', async (p) => {
    const before = readFileSync(path.join(sb.root, '.env'), 'utf8')
    const result = await call(host, 'write_file', { path: p, content: 'pwned\n' })
    // The host's own state is its control plane (issue 32.2): refused before the deny list is asked.
    expect(result.error?.code, result.content).toBe(p.startsWith('.toolhost/') ? 'E_CONTROL_PLANE' : 'E_PATH_OUTSIDE_ROOT')
    expect(readFileSync(path.join(sb.root, '.env'), 'utf8')).toBe(before)
    expect(readFileSync(path.join(sb.root, '.toolhost', 'results', 'call_1-m1abc2d-x4y5z6.txt'), 'utf8')).toBe('a saved full result\n')
  })
  // Issue 31: a template shipped for people to copy was refused as E_PATH_OUTSIDE_ROOT.
  test('read_file .env.example is read: a template, not a secret (issue 31)', async () => {
    const result = await call(host, 'read_file', { path: '.env.example' })
    expect(result.ok, result.content).toBe(true)
    expect(result.content).toContain('put-your-key-here')
  })
  test('search_files skips denied files', async () => {
    const result = await call(host, 'search_files', { pattern: 'SECRET' })
    expect(result.content).not.toContain(SECRET)
  })
  test('read_file may read saved results inside limits.results_dir', async () => {
    const result = await call(host, 'read_file', { path: '.toolhost/results/call_1-m1abc2d-x4y5z6.txt' })
    expect(result.ok, result.content).toBe(true)
    expect(result.content).toContain('a saved full result')
  })
  test('case variants are denied where the file system folds case', async () => {
    const result = await call(host, 'read_file', { path: '.ENV' })
    if (isCaseInsensitiveFs(sb.root)) {
      expect(result.error?.code).toBe('E_PATH_OUTSIDE_ROOT')
    } else {
      // Here .ENV is another (missing) file, not .env.
      expect(result.error?.code).toBe('E_NOT_FOUND')
    }
    expect(result.content).not.toContain(SECRET)
  })
  test('a results folder that is a symlink out of the root grants nothing', async () => {
    const ws = new Workspace(sb.root, { deny: ['.toolhost/**'], resultsDir: 'sneaky' })
    symlinkSync(sb.sibling, path.join(sb.root, 'sneaky'))
    expect(() => ws.resolve('sneaky/secret.txt', 'read')).toThrow(/leads outside/)
  })
})

describe('compileDenyList', () => {
  test.each([
    [['.env'], false, '.env', '.env'],
    [['.env'], false, 'a/b/.env', '.env'],
    [['.env'], false, '.ENV', undefined],
    [['.env'], true, '.ENV', '.env'],
    [['.git/**'], true, '.GIT/CONFIG', '.git/**'],
    [['.git/**'], false, '.git', '.git/**'],
    [['.git/**'], false, 'sub/.git/config', undefined],
    [['secrets'], false, 'secrets/deep/file', 'secrets'],
    [['*.pem'], false, 'keys/server.pem', '*.pem'],
    [['.env', '.env.*'], false, '.envrc', undefined],
    [['.env.*'], false, '.env.production', '.env.*'],
    [['.toolhost/**'], false, 'toolhost/x', undefined],
    [['.env'], false, '.', undefined],
    [['.env', '.env.*', '!.env.example'], false, '.env.example', undefined],
    [['.env', '.env.*', '!.env.example'], false, 'app/.env.example', undefined],
    [['.env', '.env.*', '!.env.example'], false, '.env.local', '.env.*'],
    [['.env.*', '!.env.example'], true, '.ENV.EXAMPLE', undefined],
    [['secrets', '!.env.example'], false, 'secrets/.env.example', 'secrets'],
    [['!.env.example'], false, '.env.example', undefined],
  ] as const)('%j (case-insensitive %s) on %s -> %s', (patterns, nocase, relative, expected) => {
    expect(compileDenyList(patterns, nocase).match(relative)).toBe(expected)
  })
})
