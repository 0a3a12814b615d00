// One ripgrep process: spawned in the root, its output streamed to the caller, ended (SIGKILL) the
// moment the caller has enough or the call is aborted; the promise settles only once the process
// has exited, so nothing is left running.
import { spawn } from 'node:child_process'
import { ToolhostError } from '../contract/errors.js'

/** The process could not start (binary missing or not executable): the caller falls back. */
export class RipgrepUnavailable extends Error {}

export interface RipgrepRun {
  readonly binary: string
  readonly args: readonly string[]
  readonly cwd: string
  readonly signal: AbortSignal
  /** Each chunk of stdout; false stops ripgrep. */
  readonly onOutput: (chunk: Buffer) => boolean
}

const MAX_STDERR_CHARS = 4000

/**
 * Runs ripgrep to its end, to `onOutput`'s stop or to the signal's abort; resolves with ripgrep's
 * stderr and whether it exited with an error (exit 2) of its own. An abort rejects with
 * E_INTERRUPTED once the process has gone.
 *
 * @example
 * await runRipgrep({ binary, args: ['--files'], cwd: root, signal, onOutput: (chunk) => true })
 */
export function runRipgrep(run: RipgrepRun): Promise<{ failed: boolean; stderr: string }> {
  return new Promise((resolve, reject) => {
    if (run.signal.aborted) return reject(interrupted())
    const child = spawn(run.binary, run.args, { cwd: run.cwd, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true })
    let stopped = false
    let aborted = false
    let failure: unknown
    let stderr = ''
    const stop = (): void => {
      if (stopped) return
      stopped = true
      child.stdout.removeAllListeners('data')
      child.kill('SIGKILL')
    }
    const onAbort = (): void => {
      aborted = true
      stop()
    }
    run.signal.addEventListener('abort', onAbort, { once: true })
    child.stdout.on('data', (chunk: Buffer) => {
      try {
        if (!run.onOutput(chunk)) stop()
      } catch (error) {
        failure = error
        stop()
      }
    })
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_STDERR_CHARS) stderr = (stderr + chunk.toString('utf8')).slice(0, MAX_STDERR_CHARS)
    })
    child.once('error', (error: NodeJS.ErrnoException) => {
      run.signal.removeEventListener('abort', onAbort)
      // No process ran (spawn failed), so there is nothing to wait for.
      if (child.pid === undefined) reject(new RipgrepUnavailable(`${run.binary} could not start (${error.code ?? error.message})`))
    })
    child.once('close', (code) => {
      run.signal.removeEventListener('abort', onAbort)
      if (aborted) return reject(interrupted())
      if (failure !== undefined) return reject(failure)
      resolve({ failed: !stopped && code === 2, stderr })
    })
  })
}

function interrupted(): ToolhostError {
  return new ToolhostError('E_INTERRUPTED', 'search_files was stopped (it ran out of time or was interrupted); ripgrep was ended')
}
