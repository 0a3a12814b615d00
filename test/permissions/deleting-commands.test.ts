// Issue 24 #14: in bypass mode with a deny rule for `rm -rf`, `find … -delete` ran. A deny (or ask)
// rule written as an `rm` command names every command that deletes files that way — `find -delete`,
// `git clean`, `git rm -r`, `rsync --delete`, `xargs rm`, `busybox rm`, rm's other spellings — and a
// rule on plain `rm` names single-file deleters too (`unlink`, `rmdir`, `shred`, `truncate`).
// Judged through host.explain (nothing runs), then one call through host.run to read what the model
// is told.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createHost, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'

type Outcome = 'allow' | 'ask' | 'deny'

// [command, bypass + deny `terminal(rm -rf *)`, bypass + deny `terminal(rm *)`, bypass + deny `terminal(rm -rf /home/*)`]
const TABLE: [string, Outcome, Outcome, Outcome][] = [
  // rm itself, however its options are written
  ['rm -rf build', 'deny', 'deny', 'allow'],
  ['rm -r -f build', 'deny', 'deny', 'allow'],
  ['rm -fr build', 'deny', 'deny', 'allow'],
  ['rm -R build', 'deny', 'deny', 'allow'],
  ['rm --recursive --force build', 'deny', 'deny', 'allow'],
  ['rm build -rf', 'deny', 'deny', 'allow'],
  ['rm -rf /home/u', 'deny', 'deny', 'deny'],
  ['busybox rm -rf build', 'deny', 'deny', 'allow'],
  ['echo build | xargs rm -rf', 'deny', 'deny', 'deny'],
  ['find . -name build -exec rm -r {} +', 'deny', 'deny', 'deny'],
  // the other recursive deleters
  ['find build -delete', 'deny', 'deny', 'allow'],
  ['find /home/u -name "*.tmp" -delete', 'deny', 'deny', 'deny'],
  ['find "$HOME" -delete', 'deny', 'deny', 'deny'],
  ['sh -c "find build -delete"', 'deny', 'deny', 'allow'],
  ['git clean -fdx', 'deny', 'deny', 'allow'],
  ['git -C sub clean -f', 'deny', 'deny', 'allow'],
  ['git rm -r src', 'deny', 'deny', 'allow'],
  ['rsync -a --delete empty/ build/', 'deny', 'deny', 'allow'],
  ['srm -r vault', 'deny', 'deny', 'allow'],
  // single-file deleters: not recursive, so only a rule on plain rm names them
  ['rm notes.txt', 'allow', 'deny', 'allow'],
  ['unlink notes.txt', 'allow', 'deny', 'allow'],
  ['rmdir empty', 'allow', 'deny', 'allow'],
  ['shred -u secret.txt', 'allow', 'deny', 'allow'],
  ['truncate -s 0 app.log', 'allow', 'deny', 'allow'],
  ['git rm notes.txt', 'allow', 'deny', 'allow'],
  // nothing is deleted
  ['find . -name build', 'allow', 'allow', 'allow'],
  ['git clean -n', 'allow', 'allow', 'allow'],
  ['git rm --cached -r src', 'allow', 'allow', 'allow'],
  ['rsync -a src/ dst/', 'allow', 'allow', 'allow'],
  ['truncate -s +1M disk.img', 'allow', 'allow', 'allow'],
  ['echo rm -rf build', 'allow', 'allow', 'allow'],
  ['ls -la && git status', 'allow', 'allow', 'allow'],
]

const RULES = ['terminal(rm -rf *)', 'terminal(rm *)', 'terminal(rm -rf /home/*)'] as const
let root: string
const hosts = new Map<string, Host>()

beforeAll(async () => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-deleting-')))
  for (const rule of [...RULES, 'ask: terminal(rm -rf *)']) {
    const ask = rule.startsWith('ask: ')
    const permissions = ask ? { mode: 'auto', ask: [rule.slice(5)] } : { mode: 'bypass', deny: [rule] }
    hosts.set(rule, await createHost({ root, config: { plugins: { dirs: [] }, env_file: '', permissions, terminal: { dangerous_patterns: [] } }, plugins: ['plugins'], log: silentLogger, approve: async (requests) => requests.map(() => ({ decision: 'deny' as const })) }))
  }
})

afterAll(async () => {
  for (const host of hosts.values()) await host.close()
  rmSync(root, { recursive: true, force: true })
})

async function decide(rule: string, command: string): Promise<{ outcome: Outcome | undefined; reason: string | undefined }> {
  const plan = await hosts.get(rule)!.explain([{ id: 'c', name: 'terminal', arguments: { command } }])
  return { outcome: plan.calls[0]?.permission?.outcome, reason: plan.calls[0]?.permission?.reason }
}

describe('a deny rule written as an rm command names every command that deletes that way (bypass mode)', () => {
  test.each(TABLE)('%j: rm -rf * → %s, rm * → %s, rm -rf /home/* → %s', async (command, ...expected) => {
    const outcomes = await Promise.all(RULES.map(async (rule) => (await decide(rule, command)).outcome))
    expect(outcomes).toEqual(expected)
  })

  test('an ask rule names the class too (auto mode, dangerous patterns emptied so only the rule asks)', async () => {
    expect(await decide('ask: terminal(rm -rf *)', 'find build -delete')).toEqual({ outcome: 'ask', reason: 'the permission rule permissions.ask[0] "terminal(rm -rf *)" asks for it (`find build -delete` deletes files recursively, and a rule written as an rm command names every command that deletes files that way)' })
    expect((await decide('ask: terminal(rm -rf *)', 'unlink notes.txt')).outcome).toBe('allow')
  })

  test('the model reads which rule refused find -delete, and why an rm rule names it', async () => {
    const [result] = await hosts.get('terminal(rm -rf *)')!.run([{ id: 'c', name: 'terminal', arguments: { command: 'find build -delete' } }])
    expect(result).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(result!.content).toBe('terminal did not run: the permission rule permissions.deny[0] "terminal(rm -rf *)" denies it (`find build -delete` deletes files recursively, and a rule written as an rm command names every command that deletes files that way). Do not retry it; do something else, or ask the user to change the rule')
  })

  test('an allow rule on rm stays literal: it never covers another deleter', async () => {
    const host = await createHost({ root, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'ask', allow: ['terminal(rm -rf *)'] }, terminal: { dangerous_patterns: [] } }, plugins: ['plugins'], log: silentLogger, approve: async (requests) => requests.map(() => ({ decision: 'deny' as const })) })
    try {
      const plan = await host.explain([{ id: 'a', name: 'terminal', arguments: { command: 'rm -rf build' } }, { id: 'b', name: 'terminal', arguments: { command: 'find build -delete' } }])
      expect(plan.calls.map((c) => c.permission?.outcome)).toEqual(['allow', 'ask'])
    } finally {
      await host.close()
    }
  })
})
