// Regression for issue 12 item 11: `terminal` safety was lexical. Each line deletes the folder `build`
// (or could, when it runs); the permission system judges it on a shell parse, without running it
// (host.explain). In `auto` every spelling asks; in `bypass` the deny rules refuse every spelling
// they name — and every one that cannot be resolved statically, which could be any command.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createHost, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'

type Outcome = 'allow' | 'ask' | 'deny'

// [command, outcome in auto, outcome in bypass with deny rules `terminal(rm *)` and `terminal(*-delete*)`]
const SPELLINGS: [string, Outcome, Outcome][] = [
  ['rm -rf build', 'ask', 'deny'],
  ['rm -r -f build', 'ask', 'deny'],
  ['rm -fr build', 'ask', 'deny'],
  ['rm -R build', 'ask', 'deny'],
  ['rm --recursive --force build', 'ask', 'deny'],
  ['rm --recursive build', 'ask', 'deny'],
  ['rm build -rf', 'ask', 'deny'],
  ['rm -rf -- build', 'ask', 'deny'],
  ["'rm' -rf build", 'ask', 'deny'],
  ['"rm" -rf build', 'ask', 'deny'],
  ['\\rm -rf build', 'ask', 'deny'],
  ['r\\m -rf build', 'ask', 'deny'],
  ['r""m -rf build', 'ask', 'deny'],
  ["$'rm' -rf build", 'ask', 'deny'],
  ["$'\\x72\\x6d' -rf build", 'ask', 'deny'],
  ['/bin/rm -rf build', 'ask', 'deny'],
  ['/usr/bin/rm -rf build', 'ask', 'deny'],
  ['command rm -rf build', 'ask', 'deny'],
  ['builtin command rm -rf build', 'ask', 'deny'],
  ['env rm -rf build', 'ask', 'deny'],
  ['env -i PATH=/bin /bin/rm -rf build', 'ask', 'deny'],
  ['nice -n 5 rm -rf build', 'ask', 'deny'],
  ['nohup rm -rf build', 'ask', 'deny'],
  ['timeout 10 rm -rf build', 'ask', 'deny'],
  ['sudo rm -rf build', 'ask', 'deny'],
  ['sudo -u root sh -c "rm -rf build"', 'ask', 'deny'],
  ['exec rm -rf build', 'ask', 'deny'],
  ['busybox rm -rf build', 'ask', 'deny'],
  ['rm -rf build 2>/dev/null', 'ask', 'deny'],
  ['rm -rf build &', 'ask', 'deny'],
  ['(rm -rf build)', 'ask', 'deny'],
  ['{ rm -rf build; }', 'ask', 'deny'],
  ['true && rm -rf build', 'ask', 'deny'],
  ['if true; then rm -rf build; fi', 'ask', 'deny'],
  ['for d in build; do rm -rf "$d"; done', 'ask', 'deny'],
  ['f() { rm -rf "$1"; }; f build', 'ask', 'deny'],
  ['F=-rf; rm $F build', 'ask', 'deny'],
  ['sh -c "rm -rf build"', 'ask', 'deny'],
  ["bash -c 'rm -rf build'", 'ask', 'deny'],
  ['sh -c \'sh -c "rm -rf build"\'', 'ask', 'deny'],
  ['trap "rm -rf build" EXIT', 'ask', 'deny'],
  ['watch -n 60 rm -rf build', 'ask', 'deny'],
  ['find . -name build -exec rm -rf {} +', 'ask', 'deny'],
  ['echo build | xargs rm -rf', 'ask', 'deny'],
  ['find build -delete', 'ask', 'deny'],
  ['rsync -a --delete empty/ build/', 'ask', 'deny'],
  // Cannot be resolved statically: destructive, and every deny pattern of the tool names it.
  ['X=rm; $X -rf build', 'ask', 'deny'],
  ['$(echo rm) -rf build', 'ask', 'deny'],
  ['`echo rm` -rf build', 'ask', 'deny'],
  ['"$(which rm)" -rf build', 'ask', 'deny'],
  ['rm${IFS}-rf${IFS}build', 'ask', 'deny'],
  ['{rm,-rf,build}', 'ask', 'deny'],
  ['eval "rm -rf build"', 'ask', 'deny'],
  ['echo "rm -rf build" | sh', 'ask', 'deny'],
  ['sh < cleanup.sh', 'ask', 'deny'],
  ["bash <<< 'rm -rf build'", 'ask', 'deny'],
  ['sh -c "$CLEANUP"', 'ask', 'deny'],
  ['python3 -c "import shutil; shutil.rmtree(\'build\')"', 'ask', 'deny'],
  ["perl -e 'use File::Path; rmtree(\"build\")'", 'ask', 'deny'],
  ['node -e "require(\'fs\').rmSync(\'build\', { recursive: true })"', 'ask', 'deny'],
  ["awk 'BEGIN { system(\"rm -rf build\") }'", 'ask', 'deny'],
  ['rm -rf "build', 'ask', 'deny'], // does not parse
  // Deletes: the rule `rm *` names every deleting command (issue 24 #14, test/permissions/deleting-commands.test.ts).
  ['git clean -fdx build', 'ask', 'deny'],
  // Controls: nothing is deleted (or only a file, which the deny rule `rm *` still names).
  ['ls -la', 'allow', 'allow'],
  ['git status && npm test', 'allow', 'allow'],
  ['echo hello | grep h > /dev/null', 'allow', 'allow'],
  ['rm notes.txt', 'allow', 'deny'],
]

let root: string
const hosts: Partial<Record<'auto' | 'bypass', Host>> = {}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-spell-')))
  for (const mode of ['auto', 'bypass'] as const) {
    hosts[mode] = await createHost({
      root,
      config: { plugins: { dirs: [] }, env_file: '', permissions: { mode, deny: mode === 'bypass' ? ['terminal(rm *)', 'terminal(*-delete*)'] : [] } },
      plugins: ['plugins'],
      log: silentLogger,
      // Only so that a call can be asked about; explain never calls it.
      approve: async (requests) => requests.map(() => ({ decision: 'deny' as const })),
    })
  }
})

afterAll(async () => {
  for (const host of Object.values(hosts)) await host?.close()
  rmSync(root, { recursive: true, force: true })
})

async function decide(mode: 'auto' | 'bypass', command: string): Promise<Outcome | undefined> {
  const plan = await hosts[mode]!.explain([{ id: 'c', name: 'terminal', arguments: { command } }])
  return plan.calls[0]?.permission?.outcome
}

describe('terminal safety is judged on a shell parse, not on spelling', () => {
  test('the table covers at least the 33 spellings of the issue', () => {
    expect(SPELLINGS.filter(([, auto]) => auto === 'ask').length).toBeGreaterThanOrEqual(33)
  })

  test.each(SPELLINGS)('%j: auto → %s, bypass with deny rules → %s', async (command, auto, bypass) => {
    expect(await decide('auto', command)).toBe(auto)
    expect(await decide('bypass', command)).toBe(bypass)
  })
})
