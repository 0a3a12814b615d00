import { spawn } from 'node:child_process'
import type { HookAnswer, HookCall } from '../contract/hook-types.js'
import { readHookAnswer } from './hook-answer.js'

/** How one hook came out: its answer, a denial (exit 2, or `decision: 'deny'`), or a failure that denies the call. */
export type HookVerdict = { kind: 'answer'; answer: HookAnswer } | { kind: 'failed'; why: string } | { kind: 'aborted' }

export interface HookCommandOptions {
  /** The workspace root: the command's working folder. */
  cwd: string
  env: NodeJS.ProcessEnv
  timeoutMs: number
  signal?: AbortSignal | undefined
}

// A hook's stdout is an answer, not a report: more than this is a fault. Stderr is kept this long as a reason.
const MAX_STDOUT_CHARS = 4 * 2 ** 20
const MAX_REASON_CHARS = 2000

/**
 * Runs one hook command (operator config) with the shell, in the workspace root, with the call as
 * JSON on its stdin; nothing of the call ever reaches the command line. Exit 0: its stdout, empty or
 * a JSON object, is the answer. Exit 2: the call is denied with its stderr as the reason. Any other
 * exit, a signal, unreadable stdout or no answer within `timeoutMs` (the whole process group is
 * then killed) is a failure, which denies the call. Never rejects.
 *
 * @example
 * await runHookCommand('./hooks/check.sh', call, { cwd: root, env: process.env, timeoutMs: 10_000 })
 * // { kind: 'answer', answer: { decision: 'deny', reason: 'no writes under vendor/' } }
 */
export function runHookCommand(command: string, call: HookCall, options: HookCommandOptions): Promise<HookVerdict> {
  return new Promise((resolve) => {
    if (options.signal?.aborted) return resolve({ kind: 'aborted' })
    let settled = false
    let stdout = ''
    let stderr = ''
    // Its own process group, so a timeout or interrupt kills what the shell started too.
    const child = spawn(command, { shell: true, cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
      } catch {
        child.kill('SIGKILL')
      }
    }
    const finish = (verdict: HookVerdict, kill: boolean): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', onAbort)
      if (kill) killGroup()
      resolve(verdict)
    }
    const onAbort = (): void => finish({ kind: 'aborted' }, true)
    const timer = setTimeout(() => finish({ kind: 'failed', why: `did not answer within ${options.timeoutMs} ms` }, true), options.timeoutMs)
    options.signal?.addEventListener('abort', onAbort, { once: true })
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      if (stdout.length > MAX_STDOUT_CHARS) finish({ kind: 'failed', why: `wrote more than ${MAX_STDOUT_CHARS} characters to stdout` }, true)
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < MAX_REASON_CHARS) stderr += chunk
    })
    child.on('error', (error) => finish({ kind: 'failed', why: `could not be started (${error.message})` }, false))
    child.on('close', (code, signal) => {
      const said = stderr.trim().slice(0, MAX_REASON_CHARS)
      if (code === 0) {
        const answer = readHookAnswer(stdout, call.event)
        finish(typeof answer === 'string' ? { kind: 'failed', why: answer } : { kind: 'answer', answer }, false)
      } else if (code === 2) finish({ kind: 'answer', answer: { decision: 'deny', reason: said === '' ? 'it gave no reason' : said } }, false)
      else finish({ kind: 'failed', why: `${code === null ? `was killed by ${signal ?? 'a signal'}` : `exited with code ${code}`}${said === '' ? '' : `: ${said}`}` }, false)
    })
    // A command that does not read its stdin must not fail the hook (EPIPE).
    child.stdin.on('error', () => {})
    child.stdin.end(JSON.stringify(call))
  })
}
