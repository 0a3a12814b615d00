import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { type ToolCall } from '../../src/index.js'
import { isCaseInsensitiveFs } from '../../src/workspace/paths.js'
import { findAllowRule, findBlockingRule } from '../../src/permissions/match-rules.js'
import { parseRule, parseRules } from '../../src/permissions/rules.js'
import type { CallSubject } from '../../src/permissions/subjects.js'
import { makeRoot, permissionHost, recordingApprover, type RunLog, useFixtureWorkspace } from '../fixtures/permissions/tools.js'

describe('parsing rules', () => {
  test.each([
    ['terminal', 'terminal', undefined],
    ['terminal(git status*)', 'terminal', 'git status*'],
    ['write_file(src/**)', 'write_file', 'src/**'],
    ['  read_file(**/*.pem)  ', 'read_file', '**/*.pem'],
    ['mcp_github_*', 'mcp_github_x', undefined],
    ['lookup({"q":"a(b)"})', 'lookup', '{"q":"a(b)"}'],
  ])('%j names %s with pattern %j', (text, tool, pattern) => {
    const rule = parseRule(text, 'allow', 0, 'config.yaml')
    expect(rule.namesTool(tool)).toBe(true)
    expect(rule.namesTool(tool + 'x')).toBe(text.includes('*') && !text.includes('(') ? true : false)
    expect(rule.pattern).toBe(pattern)
  })

  test.each([
    ['write_file(src/**', /closing "\)"/],
    ['write_file()', /pattern in "\(\)" is empty/],
    ['write file', /tool part/],
    ['', /tool part/],
    ['(src/**)', /tool part/],
    [42, /must be a string/],
  ])('%j is refused at start-up', (text, why) => {
    expect(() => parseRules({ allow: ['echo', text as string], ask: [], deny: [] }, 'config.yaml')).toThrowError(why)
    try {
      parseRules({ allow: ['echo', text as string], ask: [], deny: [] }, 'config.yaml')
    } catch (error) {
      expect(error).toMatchObject({ code: 'E_CONFIG_INVALID' })
      expect((error as Error).message).toContain('config.yaml: permissions.allow[1]')
      expect((error as Error).message).toContain(JSON.stringify(text))
    }
  })

  test('createHost fails on a bad rule, naming the list and index', async () => {
    const { root, cleanup } = makeRoot()
    try {
      await expect(permissionHost(root, { deny: ['terminal', 'write_file(src/**'] })).rejects.toMatchObject({
        code: 'E_CONFIG_INVALID',
        message: expect.stringContaining('permissions.deny[1]: "write_file(src/**"'),
      })
    } finally {
      cleanup()
    }
  })
})

describe('rules against calls', () => {
  let root: string
  let ran: RunLog
  useFixtureWorkspace(
    (w) => ({ root, ran } = w),
    (root) => {
      mkdirSync(path.join(root, 'src'))
      mkdirSync(path.join(root, 'secrets'))
      writeFileSync(path.join(root, '.env'), 'TOKEN=1')
      writeFileSync(path.join(root, 'secrets', 'key.txt'), 'k')
      symlinkSync(path.join(root, '.env'), path.join(root, 'link-to-env'))
      symlinkSync('secrets', path.join(root, 'linkdir'))
    },
  )

  async function outcomes(permissions: Record<string, unknown>, calls: ToolCall[]): Promise<string[]> {
    const person = recordingApprover()
    const host = await permissionHost(root, permissions, { approve: person.approve })
    const results = await host.run(calls)
    await host.close()
    return results.map((r) => (r.ok ? (person.asked().includes(r.id) ? 'ask' : 'run') : `${r.error?.code}`))
  }

  const call = (name: string, args: Record<string, unknown>, id = 'c'): ToolCall => ({ id, name, arguments: args })

  // A deny rule on `.env` (mode bypass, so anything the rule does not catch runs).
  test.each([
    ['.env', 'E_DENIED'],
    ['src/../.env', 'E_DENIED'],
    ['./.env', 'E_DENIED'],
    ['src//..//./.env', 'E_DENIED'],
    ['<root>/.env', 'E_DENIED'],
    ['link-to-env', 'E_DENIED'],
    ['src/.env', 'run'],
    ['.env.local', 'run'],
  ])('deny write_note(.env): %s → %s', async (input, expected) => {
    const p = input.replace('<root>', root)
    expect(await outcomes({ mode: 'bypass', deny: ['write_note(.env)'] }, [call('write_note', { path: p })])).toEqual([expected])
  })

  test('a case variant is caught where the file system folds case, and is another file where it does not', async () => {
    const folds = isCaseInsensitiveFs(root)
    expect(await outcomes({ mode: 'bypass', deny: ['write_note(.env)'] }, [call('write_note', { path: '.ENV' })])).toEqual([folds ? 'E_DENIED' : 'run'])
  })

  test.each([
    ['secrets/key.txt', 'E_DENIED'],
    ['linkdir/key.txt', 'E_DENIED'],
    ['src/../secrets/new.txt', 'E_DENIED'],
    ['src/key.txt', 'run'],
  ])('deny read_note(secrets/**): %s → %s (symlinked folders resolve)', async (p, expected) => {
    expect(await outcomes({ mode: 'ask', deny: ['read_note(secrets/**)'] }, [call('read_note', { path: p })])).toEqual([expected])
  })

  test.each([
    ['server.pem', 'E_DENIED'],
    ['keys/deep/server.pem', 'E_DENIED'],
    ['.hidden/x.pem', 'E_DENIED'],
    ['server.pem.txt', 'run'],
  ])('deny read_note(**/*.pem) with dot files: %s → %s', async (p, expected) => {
    expect(await outcomes({ mode: 'ask', deny: ['read_note(**/*.pem)'] }, [call('read_note', { path: p })])).toEqual([expected])
  })

  test.each([
    ['src/a.txt', 'run'],
    ['src/deep/b.txt', 'run'],
    ['docs/a.txt', 'ask'],
    ['src/../docs/a.txt', 'ask'],
    ['../outside/src/a.txt', 'ask'],
  ])('allow write_note(src/**) in mode ask: %s → %s', async (p, expected) => {
    expect(await outcomes({ mode: 'ask', allow: ['write_note(src/**)'] }, [call('write_note', { path: p })])).toEqual([expected])
  })

  test('a relative allow pattern never covers a path outside the root; an absolute one can', async () => {
    const outside = path.join(path.dirname(root), 'elsewhere.txt')
    expect(await outcomes({ mode: 'ask', allow: ['write_note(**)'] }, [call('write_note', { path: outside })])).toEqual(['ask'])
    expect(await outcomes({ mode: 'ask', allow: [`write_note(${path.dirname(root).split(path.sep).join('/')}/*.txt)`] }, [call('write_note', { path: outside })])).toEqual(['run'])
  })

  test('a call touching several paths is allowed only when every path is covered, and denied when any is', async () => {
    const copy = (from: string, to: string) => call('copy_note', { from, to })
    expect(await outcomes({ mode: 'ask', allow: ['copy_note(src/**)'] }, [copy('src/a', 'src/b')])).toEqual(['run'])
    expect(await outcomes({ mode: 'ask', allow: ['copy_note(src/**)', 'copy_note(docs/**)'] }, [copy('src/a', 'docs/b')])).toEqual(['run'])
    expect(await outcomes({ mode: 'ask', allow: ['copy_note(src/**)'] }, [copy('src/a', 'docs/b')])).toEqual(['ask'])
    expect(await outcomes({ mode: 'bypass', deny: ['copy_note(.env)'] }, [copy('src/../.env', 'src/b')])).toEqual(['E_DENIED'])
  })

  test('deny beats ask beats allow', async () => {
    const rules = { mode: 'ask', allow: ['write_note', 'read_note'], ask: ['write_note(src/**)'], deny: ['write_note(src/secret/**)'] }
    expect(
      await outcomes(rules, [
        call('write_note', { path: 'src/secret/a' }, '1'),
        call('write_note', { path: 'src/a' }, '2'),
        call('write_note', { path: 'docs/a' }, '3'),
        call('read_note', { path: 'src/a' }, '4'),
      ]),
    ).toEqual(['E_DENIED', 'ask', 'run', 'run'])
  })

  test('an allow rule lets a destructive call run; the mode alone does not', async () => {
    expect(await outcomes({ mode: 'auto' }, [call('delete_tree', { path: 'build' })])).toEqual(['ask'])
    expect(await outcomes({ mode: 'auto', allow: ['delete_tree(build)'] }, [call('delete_tree', { path: 'build' })])).toEqual(['run'])
    expect(await outcomes({ mode: 'ask', allow: ['terminal(rm -rf build)'] }, [call('terminal', { command: 'rm -rf build' })])).toEqual(['run'])
  })

  const terminalRules = { mode: 'ask', allow: ['terminal(git status*)', 'terminal(npm test)'], deny: ['terminal(rm *)'] }
  test.each([
    ['git status', 'run'],
    ['git status -s', 'run'],
    ['  git   status  ', 'run'],
    ['git status && npm test', 'run'],
    ['git status; curl evil.example', 'ask'],
    // A pipe into a shell cannot be judged before it runs: every deny pattern of the tool names it.
    ['git status | sh', 'E_DENIED'],
    ['git status | head -5', 'ask'],
    ["'git' status -s", 'run'],
    ['git status 2>/dev/null', 'run'],
    ['git status $(curl evil.example)', 'ask'],
    ['git status `curl evil.example`', 'ask'],
    ['git status > ~/.bashrc', 'ask'],
    ['git statusx', 'run'],
    ['git log', 'ask'],
    ['rm x', 'E_DENIED'],
    ['git status && rm -rf src', 'E_DENIED'],
    ['npm test\nrm -rf src', 'E_DENIED'],
  ])('terminal rules: %j → %s', async (command, expected) => {
    expect(await outcomes(terminalRules, [call('terminal', { command })])).toEqual([expected])
  })

  test('a single string argument is matched as a value; several arguments as canonical JSON', async () => {
    const rules = { mode: 'ask', allow: ['fetch_url(https://example.com/*)', 'lookup({"n":1,"q":"x"})'] }
    expect(
      await outcomes(rules, [
        call('fetch_url', { url: 'https://example.com/a/b' }, '1'),
        call('fetch_url', { url: 'https://evil.example/https://example.com/' }, '2'),
        call('lookup', { q: 'x', n: 1 }, '3'),
        call('lookup', { n: 2, q: 'x' }, '4'),
      ]),
    ).toEqual(['run', 'ask', 'run', 'ask'])
  })

  test('a trailing * in the tool part names every tool with that prefix', async () => {
    const rules = { mode: 'bypass', deny: ['mcp_github_*'] }
    expect(await outcomes(rules, [call('mcp_github_delete_repo', {}, '1'), call('mcp_gitlab_list', {}, '2')])).toEqual(['E_DENIED', 'run'])
    expect(ran.map((r) => r.tool)).toEqual(['mcp_gitlab_list'])
  })

  test('a path-scoped call whose paths cannot be worked out is caught by deny patterns and never allowed by one', async () => {
    // NUL byte: canonicalPath refuses it, so the subject is unknown
    expect(await outcomes({ mode: 'bypass', deny: ['write_note(.env)'] }, [call('write_note', { path: 'a\u0000b' })])).toEqual(['E_DENIED'])
    expect(await outcomes({ mode: 'ask', allow: ['write_note(**)'] }, [call('write_note', { path: 'a\u0000b' })])).toEqual(['ask'])
  })
})

describe('matching on a case-folding file system', () => {
  const rules = parseRules({ allow: ['write_note(src/**)'], ask: [], deny: ['write_note(.env)'] }, 'config.yaml')
  const subject = (relative: string): CallSubject => ({ kind: 'paths', paths: [{ relative, absolute: `/w/${relative}`, access: 'write' }], keys: [], unresolved: undefined })
  test.each([
    ['.ENV', true, true],
    ['.Env', true, true],
    ['.ENV', false, false],
    ['.env', false, true],
  ])('deny .env vs %s (case-insensitive %s) → %s', (relative, folds, denied) => {
    expect(findBlockingRule(rules.deny, 'write_note', [subject(relative)], folds) !== undefined).toBe(denied)
  })
  test.each([
    ['SRC/a.ts', true, true],
    ['SRC/a.ts', false, false],
  ])('allow src/** vs %s (case-insensitive %s) → %s', (relative, folds, allowed) => {
    expect(findAllowRule(rules.allow, 'write_note', [subject(relative)], folds) !== undefined).toBe(allowed)
  })
})
