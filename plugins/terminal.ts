// Built-in terminal and process tools: run shell commands in the workspace, in the foreground or in the
// background, through the host's process registry (ctx.services.processes).
import { defineTool, registry, ToolhostError } from 'toolhost'
import type { ToolContext } from 'toolhost'
import { isDangerousForOpenHosts } from 'toolhost/processes'
import type { LogPage, ProcessInfo } from 'toolhost/processes'

/** The tools enforce their own time limits (`timeout_ms`), so the dispatcher's must not cut in first. */
const MAX_TIMEOUT_MS = 86_400_000
const MAX_WAIT_MS = 3_600_000
const DEFAULT_WAIT_MS = 30_000

function processesOf(ctx: ToolContext): NonNullable<ToolContext['services']['processes']> {
  const processes = ctx.services.processes
  if (!processes) throw new Error('this host has no process registry (create it with createHost)')
  return processes
}

interface TerminalArgs {
  command: string
  background?: boolean
  timeout_ms?: number
  workdir?: string
  notify_on_complete?: boolean
}

registry.register(
  defineTool<TerminalArgs>({
    name: 'terminal',
    toolset: 'terminal',
    description:
      'Run a shell command (/bin/sh -c) in the workspace. In the foreground it runs to completion or until timeout_ms ' +
      '(then its whole process group is killed) and returns the exit code and the output (stdout and stderr interleaved; ' +
      'the end of it when long); processes it leaves running in the background (cmd &) are stopped when its shell exits. ' +
      'With background: true it returns a process id at once; use the process tool to poll, ' +
      'page the log, wait for, write to or kill it. Do not start servers or watchers in the foreground.',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', minLength: 1, description: 'The shell command line.' },
        background: { type: 'boolean', description: 'Start it and return its process id at once (default false).' },
        timeout_ms: { type: 'integer', minimum: 1, maximum: MAX_TIMEOUT_MS, description: 'Foreground time limit in ms (default terminal.timeout_ms from config).' },
        workdir: { type: 'string', minLength: 1, description: 'Working folder, relative to the workspace root (default: the session folder). Must be inside the root.' },
        notify_on_complete: { type: 'boolean', description: 'Background only: report its completion to the agent loop when it ends.' },
      },
      required: ['command'],
      additionalProperties: false,
    },
    // A barrier (neither parallel-safe nor path-scoped): a command may touch anything.
    readOnly: () => false,
    destructive: (args, context) => isDangerousForOpenHosts(args.command, context?.root),
    timeoutMs: MAX_TIMEOUT_MS + 60_000,
    handler: async (args, ctx) => {
      const processes = processesOf(ctx)
      const cwd = args.workdir ?? ctx.workspace.session.cwd
      if (args.background) {
        const info = await processes.spawn(args.command, { cwd, background: true, notifyOnComplete: args.notify_on_complete ?? false })
        return (
          `started ${info.id} (pid ${info.pid}) in the background in ${info.cwd}\n` +
          `check it with process {"action":"poll","id":"${info.id}"}; page its output with "log", wait with "wait", stop it with "kill"`
        )
      }
      const timeoutMs = args.timeout_ms ?? ctx.settings.config.terminal.timeout_ms
      const room = Math.max(1000, ctx.settings.config.limits.max_result_chars - 1000)
      const started = await processes.spawn(args.command, { cwd, background: false })
      const { outcome, process: done } = await processes.wait(started.id, { timeoutMs, signal: ctx.call.signal, tailChars: room, until: 'leader' })
      if (outcome === 'exited' && done.status === 'exited') return describeRun(done)
      const killed = await processes.kill(started.id, { tailChars: room })
      if (outcome === 'exited') {
        // A foreground command ends with its shell: what it left running in its group is stopped, and said so.
        const left = done.stillRunning ?? 1
        return `${describeRun(killed)}\n[its shell exited, but ${left} process${left === 1 ? '' : 'es'} it started ${left === 1 ? 'was' : 'were'} still running in its group and ${left === 1 ? 'was' : 'were'} stopped (${killed.signalsSent.join(' then ')}). Start long-running processes with background: true]`
      }
      if (outcome === 'timeout') {
        throw new ToolhostError('E_TIMEOUT', `timed out after ${timeoutMs} ms: the command's process group was killed (${howItEnded(killed)}). Run long commands with background: true, or pass a larger timeout_ms.\n${describeRun(killed)}`)
      }
      throw new ToolhostError('E_INTERRUPTED', `interrupted: the command's process group was killed (${howItEnded(killed)}); it may have partly run.\n${describeRun(killed)}`)
    },
  }),
)

type ProcessAction = 'list' | 'poll' | 'log' | 'wait' | 'kill' | 'write'

interface ProcessArgs {
  action: ProcessAction
  id?: string
  offset?: number
  limit?: number
  timeout_ms?: number
  data?: string
}

const READ_ONLY_ACTIONS: ReadonlySet<ProcessAction> = new Set(['list', 'poll', 'log', 'wait'])

registry.register(
  defineTool<ProcessArgs>({
    name: 'process',
    toolset: 'terminal',
    description:
      'Manage processes started by the terminal tool. action: list (all of them), poll (status, exit code, last output), ' +
      'log (page output by line number: offset is the first line, 1-based; without offset, the last lines), ' +
      'wait (until it ends or timeout_ms passes), kill (SIGTERM to its group, then SIGKILL), write (send data to its stdin).',
    parameters: {
      type: 'object',
      properties: {
        action: { enum: ['list', 'poll', 'log', 'wait', 'kill', 'write'], description: 'What to do.' },
        id: { type: 'string', minLength: 1, description: 'The process id terminal returned (all actions but list).' },
        offset: { type: 'integer', minimum: 1, description: 'log: first line to show (1-based). Default: the last `limit` lines.' },
        limit: { type: 'integer', minimum: 1, maximum: 5000, description: 'log: how many lines (default 200).' },
        timeout_ms: { type: 'integer', minimum: 0, maximum: MAX_WAIT_MS, description: `wait: give up after this long (default ${DEFAULT_WAIT_MS}).` },
        data: { type: 'string', description: 'write: the text to send to stdin (add "\\n" to end a line).' },
      },
      required: ['action'],
      additionalProperties: false,
    },
    // Calls on the same process run in order (a kill after a write); calls on different ones may overlap.
    pathScoped: true,
    scope: (args) => [{ key: args.id === undefined ? 'processes' : `process:${args.id}`, access: READ_ONLY_ACTIONS.has(args.action) ? 'read' : 'write' }],
    readOnly: (args) => READ_ONLY_ACTIONS.has(args.action),
    destructive: (args) => args.action === 'kill',
    timeoutMs: MAX_WAIT_MS + 60_000,
    handler: async (args, ctx) => {
      const processes = processesOf(ctx)
      if (args.action === 'list') return { processes: processes.list() }
      if (args.id === undefined) throw new ToolhostError('E_ARGS_INVALID', `action "${args.action}" needs an id; list the processes with {"action":"list"}`)
      switch (args.action) {
        case 'poll':
          return processes.poll(args.id)
        case 'log':
          return formatLog(await processes.log(args.id, { ...(args.offset === undefined ? {} : { offset: args.offset }), ...(args.limit === undefined ? {} : { limit: args.limit }) }))
        case 'wait':
          return processes.wait(args.id, { timeoutMs: args.timeout_ms ?? DEFAULT_WAIT_MS, signal: ctx.call.signal })
        case 'kill': {
          const info = await processes.kill(args.id)
          return { ...info, summary: howItEnded(info) }
        }
        case 'write':
          if (args.data === undefined) throw new ToolhostError('E_ARGS_INVALID', 'action "write" needs data: the text to send to stdin')
          await processes.write(args.id, args.data)
          return `wrote ${args.data.length} characters to the stdin of ${args.id}`
      }
    },
  }),
)

function howItEnded(info: ProcessInfo): string {
  if (info.status === 'running') return `still running${info.note ? `: ${info.note}` : ''}`
  const sent = info.signalsSent.length > 0 ? ` after ${info.signalsSent.join(' then ')} was sent to its group` : ''
  if (info.signal !== null) return `ended by ${info.signal}${sent}`
  if (info.exitCode !== null) return `exited with code ${info.exitCode}${sent}`
  return `ended${sent}${info.note ? `; ${info.note}` : ''}`
}

function describeRun(info: ProcessInfo): string {
  const header = `[${info.id}: ${howItEnded(info)} after ${info.uptimeMs} ms]`
  const hidden = info.outputChars - info.tail.length
  const note = hidden > 0 ? `[the first ${hidden} characters of output are not shown; page them with process {"action":"log","id":"${info.id}","offset":1}]\n` : ''
  const problem = info.logProblem === undefined ? '' : `[${info.logProblem}]\n`
  return `${header}\n${problem}${note}${info.tail === '' ? `(no output${info.logProblem === undefined ? '' : ' was recorded'})` : info.tail}`
}

function formatLog(page: LogPage): string {
  const parts = [`${page.id}: lines ${page.from}-${page.to} of ${page.totalLines}`]
  if (page.fromFile) parts.push(`lines ${page.fromFile.from}-${page.fromFile.to} read from the log file (no longer in memory)`)
  if (page.missing) parts.push(`lines ${page.missing.from}-${page.missing.to} are gone (${page.logProblem ? 'the log file could not hold them' : 'the log file was removed'})`)
  if (page.logProblem) parts.push(page.logProblem)
  const body = page.lines.map((line) => `${line.n}\t${line.text}`).join('\n')
  return `[${parts.join('; ')}]\n${body}`
}
