import { createInterface } from 'node:readline'
import type { PermissionMode } from '../config/types.js'
import { approveEverything, type ApprovalAnswer, type ApprovalRequest, type ApproveHandler } from '../permissions/approvals.js'
import { canonicalJson } from '../permissions/canonical-json.js'
import type { CliArgs } from './args.js'
import { isInteractive } from './terminal-ask.js'

const MAX_SHOWN_ARGUMENT_CHARS = 600
const MAX_TRIES = 3

/**
 * An approval handler that asks on a terminal: it lists every call of the batch that needs approval
 * (tool, call id, arguments, what it touches and why it asks) and reads one answer per call:
 * `y` allow once, `a` allow for this session, `n` deny (`n <text>` passes the text to the model).
 * Input that ends, or an interrupt, denies the calls not yet answered.
 *
 * @example
 * const host = await createHost({ approve: createTerminalApprove() })
 */
export function createTerminalApprove(streams: { input?: NodeJS.ReadableStream; output?: NodeJS.WritableStream } = {}): ApproveHandler {
  const input = streams.input ?? process.stdin
  const output = streams.output ?? process.stderr
  return async (requests, signal) => {
    const rl = createInterface({ input, terminal: false })
    const lines = rl[Symbol.asyncIterator]()
    const answers: ApprovalAnswer[] = []
    try {
      output.write(`\ntoolhost: ${requests.length === 1 ? '1 call needs' : `${requests.length} calls need`} your approval before ${requests.length === 1 ? 'it runs' : 'they run'}\n`)
      for (const [i, request] of requests.entries()) {
        output.write(describeRequest(request, i, requests.length))
        answers.push(await readAnswer(lines, output, signal))
      }
      return answers
    } finally {
      rl.close()
    }
  }
}

/** How one request is shown on the terminal. */
export function describeRequest(request: ApprovalRequest, i: number, total: number): string {
  let shown = canonicalJson(request.args)
  if (shown.length > MAX_SHOWN_ARGUMENT_CHARS) shown = `${shown.slice(0, MAX_SHOWN_ARGUMENT_CHARS)}… (${shown.length} characters)`
  return [
    `\n  [${i + 1}/${total}] ${request.tool}  (call ${request.callId})${request.destructive ? '  DESTRUCTIVE' : ''}`,
    `      arguments: ${shown}`,
    `      touches:   ${request.subject}`,
    `      why:       ${request.reason}`,
    '',
  ].join('\n')
}

/** Reads one answer: `y`/`yes`, `a`/`always`, `n`/`no` (with an optional message). */
export function parseAnswer(line: string): ApprovalAnswer | undefined {
  const text = line.trim()
  const match = /^(\S+)\s*(.*)$/s.exec(text)
  if (!match) return undefined
  const word = match[1]!.toLowerCase()
  if (['y', 'yes', 'o', 'once'].includes(word)) return { decision: 'allow-once', by: 'terminal' }
  if (['a', 'always', 's', 'session'].includes(word)) return { decision: 'allow-session', by: 'terminal' }
  if (['n', 'no', 'd', 'deny'].includes(word)) return { decision: 'deny', by: 'terminal', ...(match[2] ? { message: match[2] } : {}) }
  return undefined
}

async function readAnswer(lines: AsyncIterator<string>, output: NodeJS.WritableStream, signal: AbortSignal): Promise<ApprovalAnswer> {
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    output.write('  allow? [y] once  [a] for this session  [n] deny (n <reason> tells the model why) > ')
    const line = await nextLine(lines, signal)
    if (line === undefined) {
      output.write('\n')
      return { decision: 'deny', by: 'terminal', message: signal.aborted ? 'interrupted before the user answered' : 'the terminal closed before the user answered' }
    }
    const answer = parseAnswer(line)
    if (answer) return answer
    output.write(`  "${line.trim()}" is not an answer; type y, a or n\n`)
  }
  return { decision: 'deny', by: 'terminal', message: 'the user gave no valid answer' }
}

function nextLine(lines: AsyncIterator<string>, signal: AbortSignal): Promise<string | undefined> {
  if (signal.aborted) return Promise.resolve(undefined)
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(undefined)
    signal.addEventListener('abort', onAbort, { once: true })
    lines.next().then(
      (next) => resolve(next.done ? undefined : String(next.value)),
      (error: unknown) => reject(error),
    ).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/**
 * The permission options of a CLI host: `--permission-mode`, and who approves — everyone with
 * `--yes`, the person on a terminal, else nobody (calls that ask are denied with E_DENIED).
 *
 * @example
 * createHost({ ...cliPermissionOptions(args), root })
 */
export function cliPermissionOptions(args: Pick<CliArgs, 'permissionMode' | 'yes'>, interactive: boolean = isInteractive()): { permissionMode?: PermissionMode; approve?: ApproveHandler } {
  const approve = args.yes ? approveEverything : interactive ? createTerminalApprove() : undefined
  return {
    ...(args.permissionMode ? { permissionMode: args.permissionMode as PermissionMode } : {}),
    ...(approve ? { approve } : {}),
  }
}
