// Deleting commands as a class (issue 24 #14): what each command line deletes, worked out from the
// shell parse (wrappers unwrapped), and which `rm` rule patterns name which deletions.
import { describe, expect, test } from 'vitest'
import { analyseCommand } from '../../src/shell/analyse-command.js'
import { deletionMatches, deletionPattern } from '../../src/shell/deleting-commands.js'

type Seen = [recursive: boolean, targets: string[] | 'unknown']

// [command line, each deletion it runs: recursive?, its targets ('unknown' when known only at run time)]
const LINES: [string, Seen[]][] = [
  ['rm notes.txt', [[false, ['notes.txt']]]],
  ['rm -rf build', [[true, ['build']]]],
  ['rm -r -f build', [[true, ['build']]]],
  ['rm --recursive build', [[true, ['build']]]],
  ['rm build -Rf', [[true, ['build']]]],
  ['rm -f -- -rf', [[false, ['-rf']]]],
  ['rm -rf $DIR', [[true, 'unknown']]],
  ['rm -rf build/*', [[true, 'unknown']]],
  ['/bin/rm -rf build', [[true, ['build']]]],
  ['sudo rm -r build', [[true, ['build']]]],
  ['busybox rm -rf build', [[true, ['build']]]],
  ['echo build | xargs rm -rf', [[true, 'unknown']]],
  ['find . -name "*.o" -exec rm {} +', [[false, 'unknown']]],
  ['find build -delete', [[true, ['build']]]],
  ['find -L build out -type f -delete', [[true, ['build', 'out']]]],
  ['find -delete', [[true, ['.']]]],
  ['find . -name x', []],
  ['git clean -fdx', [[true, ['.']]]],
  ['git -C sub clean -f build', [[true, ['build']]]],
  ['git clean -n', []],
  ['git clean --dry-run -d', []],
  ['git rm -r src', [[true, ['src']]]],
  ['git rm notes.txt', [[false, ['notes.txt']]]],
  ['git rm --cached -r src', []],
  ['git status', []],
  ['rsync -a --delete empty/ build/', [[true, ['empty/', 'build/']]]],
  ['rsync -a --remove-source-files in/ out/', [[true, ['in/', 'out/']]]],
  ['rsync -an --delete a/ b/', []],
  ['rsync -a a/ b/', []],
  ['unlink notes.txt', [[false, ['notes.txt']]]],
  ['rmdir empty', [[false, ['empty']]]],
  ['shred -u secret.txt', [[false, ['secret.txt']]]],
  ['srm -r vault', [[true, ['vault']]]],
  ['truncate -s 0 app.log', [[false, ['app.log']]]],
  ['truncate --size=-1K app.log', [[false, ['app.log']]]],
  ['truncate -s +1M disk.img', []],
  ['sh -c "find build -delete"', [[true, ['build']]]],
  ['echo rm -rf build', []],
  ['ls -la && cat notes.txt', []],
]

describe('what a command line deletes', () => {
  test.each(LINES)('%s', (line, expected) => {
    const seen = analyseCommand(line).deletions.map((d): Seen => [d.recursive, d.targets ?? 'unknown'])
    expect(seen).toEqual(expected)
  })
})

// [rule pattern, its class (undefined: not an rm rule)]
const PATTERNS: [string, ReturnType<typeof deletionPattern>][] = [
  ['rm -rf *', { recursive: true, targets: ['*'] }],
  ['rm -r *', { recursive: true, targets: ['*'] }],
  ['rm --recursive --force /home/*', { recursive: true, targets: ['/home/*'] }],
  ['rm *', { recursive: false, targets: ['*'] }],
  ['rm -f', { recursive: false, targets: ['*'] }],
  ['/bin/rm -rf *', { recursive: true, targets: ['*'] }],
  ['rm -*', undefined],
  ['git push*', undefined],
  ['rmdir *', undefined],
]

describe('an rm rule pattern as a class of deletions', () => {
  test.each(PATTERNS)('%s', (pattern, expected) => {
    expect(deletionPattern(pattern)).toEqual(expected)
  })

  const star = (glob: string, text: string): boolean => new RegExp(`^${glob.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's').test(text)
  test.each([
    ['rm -rf *', 'find build -delete', true],
    ['rm -rf *', 'unlink notes.txt', false],
    ['rm *', 'unlink notes.txt', true],
    ['rm -rf /home/*', 'find /home/u -delete', true],
    ['rm -rf /home/*', 'find build -delete', false],
    ['rm -rf /home/*', 'find "$HOME" -delete', true],
    ['rm -rf /home/*', 'echo x | xargs rm -rf', true],
  ])('%s names the deletion of %s: %s', (pattern, line, named) => {
    const [deletion] = analyseCommand(line).deletions
    expect(deletionMatches(deletionPattern(pattern)!, deletion!, star)).toBe(named)
  })
})
