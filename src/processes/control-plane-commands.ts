import path from 'node:path'
import type { ControlPlane } from '../contract/types.js'
import { analyseCommand } from '../shell/analyse-command.js'
import { isWithin } from '../workspace/paths.js'

// Commands that only read the files they name: naming the control plane is no write.
const READS_ONLY = new Set(['cat', 'less', 'more', 'head', 'tail', 'grep', 'egrep', 'fgrep', 'rg', 'ls', 'wc', 'diff', 'cmp', 'stat', 'file', 'readlink', 'realpath', 'echo', 'printf', 'test', '[', 'cd', 'pwd', 'md5sum', 'sha256sum', 'sha1sum', 'jq', 'yq', 'bat', 'tree', 'du'])

/**
 * Whether a command line, as its shell parse shows it, writes to a path of `plane`: a redirection
 * into it (`> config.yaml`, `>> plugins/x.mjs`), or a command that is not read-only (`cp`, `mv`,
 * `sed -i`, `tee`, `touch`, `ln`, `rm`, `git checkout` …) naming it. Words are paths from the root and
 * from each folder the line `cd`s into. A guard, not a sandbox: a script the command runs can write
 * anything (terminal.sandbox: bwrap mounts the control plane read-only).
 *
 * @example
 * writesControlPlane('echo x >> config.yaml', '/w', { paths: ['/w/config.yaml'], opened: [] }) // true
 * writesControlPlane('cat config.yaml', '/w', { paths: ['/w/config.yaml'], opened: [] }) // false
 */
export function writesControlPlane(command: string, root: string, plane: ControlPlane): boolean {
  if (plane.paths.length === 0) return false
  // A call's command is judged several times (destructive, rules, audit): scanned once per host's
  // plane (bench-notes/ws-trust.md: the scan is ~10× the parse's cached lookup).
  let known = CACHE.get(plane)
  if (known === undefined) CACHE.set(plane, (known = new Map()))
  const key = `${root}\0${command}`
  const hit = known.get(key)
  if (hit !== undefined) return hit
  const answer = scan(command, root, plane)
  if (known.size >= CACHE_SIZE) known.delete(known.keys().next().value!)
  known.set(key, answer)
  return answer
}

const CACHE_SIZE = 256
const CACHE = new WeakMap<ControlPlane, Map<string, boolean>>()

function scan(command: string, root: string, plane: ControlPlane): boolean {
  const { commands } = analyseCommand(command)
  const bases = [root]
  for (const line of commands) {
    const [name, target] = line.split(/\s+/)
    if (name === 'cd' && target !== undefined && !target.startsWith('$')) bases.push(path.resolve(root, target))
  }
  const guarded = (word: string): boolean => {
    if (word === '' || word.startsWith('-') || word.startsWith('$')) return false
    return bases.some((base) => {
      const target = path.resolve(base, word)
      if (plane.opened.includes(target)) return false
      return plane.paths.some((p) => target === p || isWithin(target, p))
    })
  }
  for (const line of commands) {
    const words = line.split(/\s+/)
    // Redirections are appended to the command as ` >> target` (analyse-command.ts).
    for (let i = 0; i < words.length - 1; i++) if (/^\d*(>|>>|>\||&>|&>>|<>)$/.test(words[i]!) && guarded(words[i + 1]!)) return true
    const name = words[0] ?? ''
    if (READS_ONLY.has(name)) continue
    if (words.slice(1).some((w) => guarded(w.replace(/^[^=]*=/, '')) || guarded(w))) return true
  }
  return false
}
