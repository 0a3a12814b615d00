/**
 * Commands that run other commands. Given a command's name (already resolved: `/usr/bin/env` is
 * `env`) and its argument words, says what it runs: other command words (`env rm -rf x` runs
 * `rm -rf x`), shell code to parse in turn (`sh -c '…'`, `su -c`, `watch`, `trap`), or that what it
 * runs cannot be known before it runs (`eval`, a shell or an interpreter reading its program from
 * standard input or from an inline argument).
 */

/** One argument word: its text with quotes and escapes resolved; `dynamic` when part of it is only known at run time. */
export interface Word {
  text: string
  dynamic: boolean
}

export type Inner =
  | { kind: 'command'; words: Word[] }
  | { kind: 'script'; source: Word }
  | { kind: 'unresolved'; why: string }

interface OptionSpec {
  /** Short option letters that take a value (`-n 5`, `-n5`). */
  short?: string
  /** Long options that take a value (`--signal TERM`, `--signal=TERM`). */
  long?: string[]
  /** Operands between the options and the command (`timeout 5 cmd`: 1). */
  operands?: number
}

/** Wrappers whose command starts after their options (and a fixed number of operands). */
const WRAPPERS: Record<string, OptionSpec> = {
  builtin: {},
  command: {},
  exec: { short: 'a' },
  nohup: {},
  nice: { short: 'n', long: ['adjustment'] },
  timeout: { short: 'sk', long: ['signal', 'kill-after'], operands: 1 },
  stdbuf: { short: 'ioe', long: ['input', 'output', 'error'] },
  setsid: {},
  ionice: { short: 'cnpPu', long: ['class', 'classdata', 'pid', 'pgid', 'uid'] },
  chrt: { operands: 1 },
  taskset: { operands: 1 },
  time: { short: 'fo', long: ['format', 'output'] },
  sudo: { short: 'ugpCDrtUTh', long: ['user', 'group', 'prompt', 'close-from', 'chdir', 'role', 'type', 'other-user', 'command-timeout', 'host'] },
  doas: { short: 'uC' },
  chroot: { long: ['userspec', 'groups'], operands: 1 },
  unbuffer: {},
  catchsegv: {},
  busybox: {},
}

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'mksh', 'yash', 'rbash', 'fish'])

/** Interpreters and the flags that hand them a program inline. */
const INTERPRETERS: Record<string, string[]> = {
  node: ['-e', '--eval', '-p', '--print'],
  nodejs: ['-e', '--eval', '-p', '--print'],
  bun: ['-e', '--eval', '-p', '--print'],
  perl: ['-e', '-E'],
  ruby: ['-e'],
  php: ['-r'],
  lua: ['-e'],
  luajit: ['-e'],
  Rscript: ['-e'],
  osascript: ['-e'],
  pwsh: ['-c', '-command', '-Command', '-EncodedCommand'],
  powershell: ['-c', '-command', '-Command', '-EncodedCommand'],
  tclsh: [],
}
const PYTHON = /^(python|pypy)[0-9.]*$/
const AWK = new Set(['awk', 'gawk', 'mawk', 'nawk'])
const HELP = new Set(['--version', '-V', '--help', '-h', '-v'])

/**
 * What command `name` with arguments `args` runs, if it is a wrapper, a shell or an interpreter.
 * Empty for an ordinary command.
 *
 * @example
 * innerCommands('env', [{ text: 'rm', dynamic: false }, { text: '-rf', dynamic: false }]) // [{ kind: 'command', words: [rm, -rf] }]
 */
export function innerCommands(name: string, args: Word[]): Inner[] {
  if (SHELLS.has(name)) return shellInner(name, args)
  if (PYTHON.test(name)) return interpreterInner(name, args, ['-c'])
  const inline = INTERPRETERS[name]
  if (inline) return interpreterInner(name, args, inline)
  if (AWK.has(name)) return awkInner(name, args)
  switch (name) {
    case 'eval':
      return [{ kind: 'unresolved', why: 'eval runs text built when it runs' }]
    case 'alias':
      return args.some((a) => a.text.includes('=')) ? [{ kind: 'unresolved', why: 'an alias changes what later words run' }] : []
    case 'source':
    case '.':
      return args[0]?.dynamic ? [{ kind: 'unresolved', why: `${name} of a file named only at run time (${args[0].text})` }] : []
    case 'trap': {
      const rest = skipOptions(args, 0, {})
      const code = args[rest]
      return code === undefined || args.length - rest < 2 ? [] : [{ kind: 'script', source: code }]
    }
    case 'command':
      if (args.some((a, i) => i < skipOptions(args, 0, {}) && /^-[a-zA-Z]*[vV]/.test(a.text))) return []
      break
    case 'env':
      return envInner(args)
    case 'xargs':
      return xargsInner(args)
    case 'find':
      return findInner(args)
    case 'watch':
      return watchInner(args)
    case 'flock':
      return flockInner(args)
    case 'su':
    case 'runuser':
    case 'script':
      return dashCInner(name, args)
  }
  const spec = WRAPPERS[name]
  if (!spec) return []
  const start = skipOptions(args, 0, spec) + (spec.operands ?? 0)
  const words = args.slice(start)
  return words.length > 0 ? [{ kind: 'command', words }] : []
}

/**
 * The index of the first word after the options (and `--`) starting at `from`.
 *
 * @example
 * skipOptions(words('-n 5 rm -rf x'), 0, { short: 'n' }) // 2
 */
export function skipOptions(args: Word[], from: number, spec: OptionSpec): number {
  let i = from
  while (i < args.length) {
    const w = args[i]!.text
    if (w === '--') return i + 1
    if (!w.startsWith('-') || w === '-' || args[i]!.dynamic) break
    if (w.startsWith('--')) {
      const name = w.slice(2).split('=')[0]!
      i += spec.long?.includes(name) && !w.includes('=') ? 2 : 1
      continue
    }
    let takesNext = false
    for (let j = 1; j < w.length; j++) {
      if (spec.short?.includes(w[j]!)) {
        takesNext = j === w.length - 1
        break
      }
    }
    i += takesNext ? 2 : 1
  }
  return i
}

function shellInner(name: string, args: Word[]): Inner[] {
  let i = 0
  let inline = false
  while (i < args.length) {
    const w = args[i]!.text
    if (w === '--' || w === '-') {
      i++
      break
    }
    if (!/^[-+]/.test(w) || args[i]!.dynamic) break
    if (/^[-+]o$/.test(w) || w === '--rcfile' || w === '--init-file') i++
    else if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(w) || w === '--command') inline = true
    i++
  }
  const operand = args[i]
  if (inline) return operand === undefined ? [] : [{ kind: 'script', source: operand }]
  if (operand !== undefined) return []
  if (args.some((a) => HELP.has(a.text))) return []
  return [{ kind: 'unresolved', why: `${name} without -c or a script reads its commands from standard input` }]
}

function interpreterInner(name: string, args: Word[], inline: string[]): Inner[] {
  for (const a of args) {
    if (!a.text.startsWith('-')) break
    const cluster = a.text.length > 2 && !a.text.startsWith('--') && inline.some((f) => f.length === 2 && a.text.slice(1).includes(f[1]!))
    if (inline.includes(a.text) || inline.some((f) => f.startsWith('--') && a.text.startsWith(`${f}=`)) || cluster) {
      return [{ kind: 'unresolved', why: `${name} runs a program given inline (${a.text}), which is not judged` }]
    }
  }
  if (name === 'deno' && args[0]?.text === 'eval') return [{ kind: 'unresolved', why: 'deno eval runs a program given inline, which is not judged' }]
  const hasOperand = args.some((a) => !a.text.startsWith('-'))
  if (hasOperand || args.some((a) => HELP.has(a.text))) return []
  return [{ kind: 'unresolved', why: `${name} without a script reads its program from standard input` }]
}

function awkInner(name: string, args: Word[]): Inner[] {
  const i = skipOptions(args, 0, { short: 'vFf', long: ['assign', 'field-separator', 'file'] })
  if (args.slice(0, i).some((a) => a.text === '-f' || a.text.startsWith('--file'))) return []
  const program = args[i]
  if (program === undefined) return []
  if (program.dynamic) return [{ kind: 'unresolved', why: `the ${name} program is only known when it runs` }]
  // awk runs commands through system(), `| "cmd"` and `"cmd" | getline`.
  if (/\bsystem\s*\(|\|\s*"|"\s*\||\|&/.test(program.text)) return [{ kind: 'unresolved', why: `the ${name} program runs commands (system() or a pipe)` }]
  return []
}

function envInner(args: Word[]): Inner[] {
  let i = 0
  while (i < args.length) {
    const w = args[i]!.text
    if (w === '-S' || w === '--split-string' || w.startsWith('--split-string=') || (/^-S./.test(w))) {
      const text = w === '-S' || w === '--split-string' ? args[i + 1] : { text: w.startsWith('-S') ? w.slice(2) : w.slice(w.indexOf('=') + 1), dynamic: args[i]!.dynamic }
      const rest = args.slice(w === '-S' || w === '--split-string' ? i + 2 : i + 1)
      if (!text) return []
      return [{ kind: 'script', source: { text: [text.text, ...rest.map((r) => r.text)].join(' '), dynamic: text.dynamic || rest.some((r) => r.dynamic) } }]
    }
    const next = skipOptions(args, i, { short: 'uC', long: ['unset', 'chdir'] })
    if (next !== i) {
      i = next
      if (args[i - 1]?.text === '--') break
      continue
    }
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) {
      i++
      continue
    }
    break
  }
  const words = args.slice(i)
  return words.length > 0 ? [{ kind: 'command', words }] : []
}

function xargsInner(args: Word[]): Inner[] {
  const i = skipOptions(args, 0, { short: 'adEILnPs', long: ['arg-file', 'delimiter', 'eof', 'replace', 'max-lines', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'] })
  const words = args.slice(i)
  // The words xargs appends come from its input: known only at run time.
  return [{ kind: 'command', words: [...(words.length > 0 ? words : [{ text: 'echo', dynamic: false }]), { text: '…', dynamic: true }] }]
}

function findInner(args: Word[]): Inner[] {
  const out: Inner[] = []
  for (let i = 0; i < args.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i]!.text)) continue
    const words: Word[] = []
    let j = i + 1
    while (j < args.length && args[j]!.text !== ';' && args[j]!.text !== '+') words.push(args[j++]!)
    if (words.length > 0) out.push({ kind: 'command', words })
    i = j
  }
  return out
}

function watchInner(args: Word[]): Inner[] {
  const i = skipOptions(args, 0, { short: 'nq', long: ['interval', 'equexit'] })
  const words = args.slice(i)
  if (words.length === 0) return []
  if (args.slice(0, i).some((a) => a.text === '-x' || a.text === '--exec' || /^-[a-zA-Z]*x/.test(a.text))) return [{ kind: 'command', words }]
  return [{ kind: 'script', source: { text: words.map((w) => w.text).join(' '), dynamic: words.some((w) => w.dynamic) } }]
}

function flockInner(args: Word[]): Inner[] {
  let i = skipOptions(args, 0, { short: 'wE', long: ['timeout', 'conflict-exit-code'] })
  i++ // the lock file or descriptor
  const c = args.findIndex((a, k) => k >= i - 1 && (a.text === '-c' || a.text === '--command'))
  if (c !== -1) return args[c + 1] ? [{ kind: 'script', source: args[c + 1]! }] : []
  const words = args.slice(i)
  return words.length > 0 ? [{ kind: 'command', words }] : []
}

// su, runuser and script: `-c CMD` runs CMD through a shell; su without it starts an interactive shell.
function dashCInner(name: string, args: Word[]): Inner[] {
  const c = args.findIndex((a) => a.text === '-c' || a.text === '--command')
  if (c !== -1) return args[c + 1] ? [{ kind: 'script', source: args[c + 1]! }] : []
  const joined = args.find((a) => a.text.startsWith('--command='))
  if (joined) return [{ kind: 'script', source: { text: joined.text.slice('--command='.length), dynamic: joined.dynamic } }]
  if (name === 'script') return []
  return [{ kind: 'unresolved', why: `${name} without -c starts a shell that reads its commands from standard input` }]
}
