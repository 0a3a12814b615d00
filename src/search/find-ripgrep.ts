// Which engine search_files runs: the ripgrep binary of @vscode/ripgrep (an optional dependency
// package per platform), else `rg` on PATH, else the JavaScript engine. Decided once per process.
import { execFile } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import path from 'node:path'
import type { SearchEngine } from './search-types.js'

// The oldest ripgrep whose flags the argument builder uses (--no-require-git, --no-ignore-dot,
// --max-columns-preview, --sort path, --crlf, --encoding none) all exist.
const MIN_MAJOR = 13
const VERSION_TIMEOUT_MS = 5000

let chosen: Promise<SearchEngine> | undefined

/**
 * The engine search_files runs in this process: ripgrep from `@vscode/ripgrep`, else `rg` on PATH
 * (version 13 or later), else the JavaScript engine with the reason. Asked once; later calls get
 * the same answer.
 *
 * @example
 * const engine = await chooseSearchEngine()
 * engine.kind === 'ripgrep' ? `${engine.version} from ${engine.source}` : engine.reason
 */
export function chooseSearchEngine(): Promise<SearchEngine> {
  return (chosen ??= findEngine())
}

/** After a spawn failed (the binary vanished or cannot run): later searches use the JavaScript engine. */
export function markRipgrepBroken(reason: string): void {
  chosen = Promise.resolve({ kind: 'javascript', reason })
}

async function findEngine(): Promise<SearchEngine> {
  const problems: string[] = []
  const bundled = await bundledBinary()
  if (typeof bundled === 'string') {
    const version = await versionOf(bundled)
    if (typeof version === 'string') return { kind: 'ripgrep', binary: bundled, source: '@vscode/ripgrep', version }
    problems.push(`@vscode/ripgrep: ${version.problem}`)
  } else {
    problems.push(`@vscode/ripgrep: ${bundled.problem}`)
  }
  const onPath = findOnPath(process.platform === 'win32' ? 'rg.exe' : 'rg')
  if (onPath === undefined) {
    problems.push('no rg on PATH')
  } else {
    const version = await versionOf(onPath)
    if (typeof version === 'string') return { kind: 'ripgrep', binary: onPath, source: 'PATH', version }
    problems.push(`${onPath}: ${version.problem}`)
  }
  return { kind: 'javascript', reason: problems.join('; ') }
}

async function bundledBinary(): Promise<string | { problem: string }> {
  try {
    // Throws when this platform's package (@vscode/ripgrep-<platform>-<arch>) is not installed.
    const { rgPath } = (await import('@vscode/ripgrep')) as { rgPath: string }
    accessSync(rgPath, constants.X_OK)
    return rgPath
  } catch (error) {
    return { problem: (error as Error).message.split('\n')[0]! }
  }
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '' || !path.isAbsolute(dir)) continue // a relative PATH entry would run what the workspace plants
    const candidate = path.join(dir, name)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // not here
    }
  }
  return undefined
}

function versionOf(binary: string): Promise<string | { problem: string }> {
  return new Promise((resolve) => {
    execFile(binary, ['--version'], { timeout: VERSION_TIMEOUT_MS, windowsHide: true }, (error, stdout) => {
      if (error) return resolve({ problem: `\`${path.basename(binary)} --version\` failed (${error.message.split('\n')[0]})` })
      const found = /ripgrep (\d+)\.(\d+)\.(\d+)/.exec(stdout)
      if (!found) return resolve({ problem: 'not ripgrep (its --version names no ripgrep version)' })
      if (Number(found[1]) < MIN_MAJOR) return resolve({ problem: `ripgrep ${found[1]}.${found[2]}.${found[3]} is older than ${MIN_MAJOR}.0.0` })
      resolve(`${found[1]}.${found[2]}.${found[3]}`)
    })
  })
}
