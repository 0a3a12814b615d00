/**
 * Commands that delete files, as one class: `rm`, and every other way a command line removes files
 * or destroys their contents — `find -delete`, `git clean`, `git rm`, `rsync --delete`, `unlink`,
 * `rmdir`, `shred`, `srm`, `wipe`, `truncate`. A permission rule written as an `rm` command
 * (`terminal(rm -rf *)`) names the whole class (`permissions/match-rules.ts`), so a deny rule for
 * `rm -rf` also refuses `find … -delete`. Wrappers (`xargs rm`, `busybox rm`, `find -exec rm`,
 * `sudo`, `sh -c`) are unwrapped before this is asked (`analyse-command.ts`).
 */
import type { Word } from './command-wrappers.js'

/** What a simple command deletes: how (recursively, or file by file) and which targets. */
export interface Deletion {
  /** The command as parsed (`find build -delete`), for messages. */
  command: string
  /** It removes whole trees (`rm -r`, `find -delete`, `git clean`, `rsync --delete`). */
  recursive: boolean
  /** The targets as written; undefined when one is known only at run time (a variable, a glob, what `xargs` reads). */
  targets: string[] | undefined
}

/** An `rm` rule pattern read as a deletion: whether it names only recursive ones, and its target globs. */
export interface DeletionPattern {
  recursive: boolean
  /** Globs (`*` any run of characters) over the targets; a deletion matches when one of its targets matches one. */
  targets: string[]
}

type Judge = (args: Word[]) => Omit<Deletion, 'command'> | undefined

const ANY = undefined

/**
 * What command `name` (resolved: `/bin/rm` is `rm`) with `args` deletes, or undefined when it does
 * not delete.
 *
 * @example
 * deletionOf('find', words('build -name *.o -delete')) // { command: 'find build -name *.o -delete', recursive: true, targets: ['build'] }
 * deletionOf('rm', words('notes.txt')) // { command: 'rm notes.txt', recursive: false, targets: ['notes.txt'] }
 */
export function deletionOf(name: string, args: Word[]): Deletion | undefined {
  const judge = Object.hasOwn(JUDGES, name) ? JUDGES[name] : undefined
  const found = judge?.(args)
  return found && { command: [name, ...args.map((a) => a.text)].join(' '), ...found }
}

/**
 * An `rm` rule pattern (`rm -rf *`, `rm -r /home/*`, `rm *`) as the class of deletions it names, or
 * undefined when the pattern is not an `rm` command (or globs over its options).
 *
 * @example
 * deletionPattern('rm -rf *') // { recursive: true, targets: ['*'] }
 * deletionPattern('git push*') // undefined
 */
export function deletionPattern(pattern: string): DeletionPattern | undefined {
  const [name, ...rest] = pattern.trim().split(/\s+/)
  if (name === undefined || (name !== 'rm' && !/^\/(usr\/)?bin\/rm$/.test(name))) return undefined
  const words = rest.map((text) => ({ text, dynamic: false }))
  const { options, operands } = splitOptions(words)
  if (options.some((o) => o.includes('*'))) return undefined
  return { recursive: options.some(isRecursiveRmOption), targets: operands.length > 0 ? operands.map((o) => o.text) : ['*'] }
}

/**
 * Whether `deletion` is one `pattern` names: recursive when the pattern asks for it, and a target
 * matching one of its globs (a target known only at run time matches every glob).
 *
 * @example
 * deletionMatches({ recursive: true, targets: ['*'] }, { command: 'find build -delete', recursive: true, targets: ['build'] }, (glob) => glob === '*') // true
 */
export function deletionMatches(pattern: DeletionPattern, deletion: Deletion, globMatches: (glob: string, text: string) => boolean): boolean {
  if (pattern.recursive && !deletion.recursive) return false
  if (deletion.targets === undefined) return true
  return deletion.targets.some((target) => pattern.targets.some((glob) => globMatches(glob, target)))
}

// Options (up to `--`) and operands of a command that takes its options anywhere (GNU style).
function splitOptions(args: Word[]): { options: string[]; operands: Word[] } {
  const options: string[] = []
  const operands: Word[] = []
  let ended = false
  for (const a of args) {
    if (!ended && a.text === '--') ended = true
    else if (!ended && a.text.startsWith('-') && a.text !== '-' && !a.dynamic) options.push(a.text)
    else operands.push(a)
  }
  return { options, operands }
}

function isRecursiveRmOption(option: string): boolean {
  return option === '--recursive' || (!option.startsWith('--') && /[rR]/.test(option.slice(1)))
}

// The targets as written, or undefined when one is known only at run time: a variable or
// substitution, a glob or brace list (the shell expands it), or a placeholder for words read at
// run time (`xargs`'s `…`, `find -exec`'s `{}`).
function targetsOf(operands: Word[]): string[] | undefined {
  if (operands.some((o) => o.dynamic || o.text === '…' || o.text.includes('{}') || /[*?[]/.test(o.text))) return ANY
  return operands.map((o) => o.text)
}

// `find` expressions start at the first word that begins with `-`, `(` or `!`; before it, the starting points.
// find's own options (-H, -L, -P, -D debugopts, -Olevel) come before the starting points.
function findDeletion(args: Word[]): Omit<Deletion, 'command'> | undefined {
  if (!args.some((a) => a.text === '-delete')) return undefined
  let i = 0
  while (i < args.length && /^-([HLP]|O\d*|D)$/.test(args[i]!.text)) i += args[i]!.text === '-D' ? 2 : 1
  const end = args.findIndex((a, k) => k >= i && /^[-(!]/.test(a.text) && !a.dynamic)
  const points = args.slice(i, end === -1 ? args.length : end)
  return { recursive: true, targets: points.length === 0 ? ['.'] : targetsOf(points) }
}

// git's own options before the subcommand (`git -C sub clean -fd`).
function gitDeletion(args: Word[]): Omit<Deletion, 'command'> | undefined {
  let i = 0
  while (i < args.length && args[i]!.text.startsWith('-')) i += /^(-C|-c|--git-dir|--work-tree|--namespace)$/.test(args[i]!.text) ? 2 : 1
  const sub = args[i]?.text
  const { options, operands } = splitOptions(args.slice(i + 1))
  if (sub === 'clean') {
    // -n / --dry-run only lists; -i asks first (and reads a terminal it has not got).
    if (options.some((o) => o === '--dry-run' || o === '--interactive' || (!o.startsWith('--') && /[ni]/.test(o.slice(1))))) return undefined
    return { recursive: true, targets: operands.length === 0 ? ['.'] : targetsOf(operands) }
  }
  if (sub === 'rm') {
    if (options.includes('--cached') || options.some((o) => o === '--dry-run' || (!o.startsWith('--') && /n/.test(o.slice(1))))) return undefined
    return { recursive: options.some((o) => !o.startsWith('--') && /r/.test(o.slice(1))), targets: targetsOf(operands) }
  }
  return undefined
}

function rsyncDeletion(args: Word[]): Omit<Deletion, 'command'> | undefined {
  const { options, operands } = splitOptions(args)
  if (!options.some((o) => o.startsWith('--delete') || o === '--del' || o === '--remove-source-files')) return undefined
  if (options.some((o) => o === '--dry-run' || (!o.startsWith('--') && /n/.test(o.slice(1))))) return undefined
  return { recursive: true, targets: targetsOf(operands) }
}

function truncateDeletion(args: Word[]): Omit<Deletion, 'command'> | undefined {
  const size = args.findIndex((a) => a.text === '-s' || a.text === '--size' || a.text.startsWith('--size=') || /^-s./.test(a.text))
  const value = size === -1 ? undefined : args[size]!.text === '-s' || args[size]!.text === '--size' ? args[size + 1]?.text : args[size]!.text.replace(/^(-s|--size=)/, '')
  // Growing a file (`+N`) destroys nothing; any other size may cut it short.
  if (value !== undefined && value.startsWith('+')) return undefined
  const skip = new Set(size === -1 ? [] : [args[size]!, ...(args[size]!.text === '-s' || args[size]!.text === '--size' ? [args[size + 1]] : [])])
  const { operands } = splitOptions(args.filter((a) => !skip.has(a) && !/^-(r|-reference)$/.test(a.text)))
  return { recursive: false, targets: targetsOf(operands) }
}

// One file or tree at a time, recursive with -r / -R / --recursive.
const fileByFile = (recursiveFlags: boolean): Judge => (args) => {
  const { options, operands } = splitOptions(args)
  if (options.some((o) => o === '--help' || o === '--version')) return undefined
  return { recursive: recursiveFlags && options.some(isRecursiveRmOption), targets: targetsOf(operands) }
}

const JUDGES: Record<string, Judge> = {
  rm: fileByFile(true),
  srm: fileByFile(true),
  wipe: fileByFile(true),
  rmdir: fileByFile(false),
  unlink: fileByFile(false),
  // shred overwrites the contents (and with -u removes the file): the data is gone either way.
  shred: fileByFile(false),
  truncate: truncateDeletion,
  find: findDeletion,
  git: gitDeletion,
  rsync: rsyncDeletion,
}
