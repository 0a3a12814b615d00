import { randomBytes } from 'node:crypto'
import path from 'node:path'
import type { ToolhostConfig } from '../config/types.js'
import { ToolhostError } from '../contract/errors.js'
import { Listeners } from '../contract/listeners.js'
import { isCaseInsensitiveFs } from '../workspace/paths.js'
import type { Logger } from '../contract/types.js'
import type { LogPage, ProcessInfo, ProcessService, SpawnOptions, WaitOutcome } from '../contract/process-service.js'
import { CompletionClaims } from './completion-claims.js'
import { completionOf, CompletionQueue, type ProcessCompletion } from './completions.js'
import { pageLog } from './log-page.js'
import { ManagedProcess } from './managed-process.js'
import { ProcessCheckpoint, type CheckpointedState } from './process-checkpoint.js'
import { findRelayTee } from './output-relay.js'
import { processMarker } from './process-group.js'
import type { SandboxPlan } from './sandbox.js'
import { resolveWorkingFolder } from './working-folder.js'
import { stateFolderProblem } from '../workspace/state-files.js'

/** What a `ProcessRegistry` is opened with (`ProcessRegistry.optionsFromConfig` derives them from a host's config). */
export interface ProcessRegistryOptions {
  /** The canonical workspace root: every working folder must be inside it. */
  root: string
  /** Absolute folder for log files. */
  dir: string
  /** Absolute path of the checkpoint file. */
  checkpoint: string
  bufferChars: number
  killGraceMs: number
  maxRunning: number
  retentionMs: number
  log?: Logger
  /** Base environment of spawned commands (the host's `env`; default `process.env`). */
  env?: NodeJS.ProcessEnv
  /** Run every command in this sandbox (`terminal.sandbox`); absent: no sandbox. */
  sandbox?: SandboxPlan
  /** One line on the sandbox for `doctor` (on, off, and why). */
  sandboxStatus?: string
  /** Without a sandbox, run every command in a PID namespace of its own through this bwrap (`decideContainment`). */
  contain?: { bwrap: string }
  /** One line on containment for `doctor`: how a command's processes are kept together, or why not. */
  containmentStatus?: string
  /**
   * Decides `sandbox`, `contain` and their statuses when first needed (the first command, or
   * `doctor`), not at start-up: deciding `auto` runs bwrap once, which a host that never runs a
   * command (`toolhost list`) should not pay for. What it returns replaces the fields above.
   */
  decideLaunch?: () => LaunchDecision
  /**
   * Relay each command's output to the host through `tee` as it is written, so output a full disk
   * keeps out of the log stays in memory (default true, where a `tee` that takes `-p` exists; a
   * path: that program, called as `tee -p -a /dev/fd/3`).
   */
  relayOutput?: boolean | string
  /** Opens a command's log file for appending (default: never through a link); tests inject one that fails (ENOSPC). */
  openLog?: (file: string) => number
}

/** How commands are launched: in the sandbox, in a PID namespace of their own, or as they are. */
export type LaunchDecision = Pick<ProcessRegistryOptions, 'sandbox' | 'sandboxStatus' | 'contain' | 'containmentStatus'>

/** What `processes.onEvent` reports: a process started or ended, or a completion was queued. */
export type ProcessEvent =
  | { type: 'spawned'; process: ProcessInfo }
  | { type: 'exited'; process: ProcessInfo }
  | { type: 'completion'; completion: ProcessCompletion }

/**
 * Every process a host started (or adopted): spawn, poll, page, wait, kill, write, list; bounded
 * memory per process; an atomic checkpoint after every spawn, exit and kill; completions for an
 * embedding loop. One per host (`host.services.processes`).
 *
 * @example
 * const processes = await ProcessRegistry.open(ProcessRegistry.optionsFromConfig(config, root))
 * const { id } = await processes.spawn('npm test', { background: true, notifyOnComplete: true })
 * for await (const done of processes.completions(signal)) console.log(done.id, done.exitCode)
 */
export class ProcessRegistry implements ProcessService {
  readonly options: Readonly<ProcessRegistryOptions>
  readonly #records = new Map<string, ManagedProcess>()
  readonly #listeners: Listeners<ProcessEvent>
  readonly #queue: CompletionQueue
  readonly #caseInsensitive: boolean
  readonly #checkpoint: ProcessCheckpoint
  // What the checkpoint reads and fills: the records, the completions, and who hears an adopted process end.
  readonly #state: CheckpointedState
  #starting = 0
  #closed = false
  #launch: LaunchDecision | undefined

  private constructor(options: ProcessRegistryOptions) {
    this.options = options
    this.#listeners = new Listeners((error) => options.log?.warn(`a process event listener threw: ${(error as Error).message}`))
    this.#caseInsensitive = isCaseInsensitiveFs(options.root)
    this.#checkpoint = new ProcessCheckpoint(options)
    // Claimed before it is handed out: two hosts that both queued a completion deliver it once.
    const claims = new CompletionClaims(options.dir, options.root)
    claims.sweep(options.retentionMs)
    this.#queue = new CompletionQueue(() => this.#save(), (id) => claims.claim(id))
    this.#state = { records: this.#records, queue: this.#queue, onEnd: (p) => this.#onEnd(p) }
  }

  /** Whether commands run in the sandbox, and why not (what `doctor` prints). */
  get sandboxStatus(): string {
    const launch = this.#launchDecision()
    return launch.sandboxStatus ?? (launch.sandbox ? `bwrap (${launch.sandbox.bwrap})` : 'off')
  }

  /** How every process a command starts is kept with it, so kill and close reach them all (what `doctor` prints). */
  get containmentStatus(): string {
    const launch = this.#launchDecision()
    return launch.containmentStatus ?? (launch.sandbox ? 'pid namespace (the bwrap sandbox)' : launch.contain ? `pid namespace (bwrap ${launch.contain.bwrap})` : 'none')
  }

  // The options' launch fields, overridden once by decideLaunch (lazily: see its comment).
  #launchDecision(): LaunchDecision {
    if (this.#launch === undefined) {
      const { sandbox, sandboxStatus, contain, containmentStatus, decideLaunch } = this.options
      this.#launch = decideLaunch?.() ?? { ...(sandbox ? { sandbox } : {}), ...(sandboxStatus !== undefined ? { sandboxStatus } : {}), ...(contain ? { contain } : {}), ...(containmentStatus !== undefined ? { containmentStatus } : {}) }
    }
    return this.#launch
  }

  /** The registry options for a host: `processes.*` paths resolved against the workspace root. */
  static optionsFromConfig(config: ToolhostConfig, root: string, log?: Logger): ProcessRegistryOptions {
    const p = config.processes
    return {
      root,
      dir: path.resolve(root, p.dir),
      checkpoint: path.resolve(root, p.checkpoint),
      bufferChars: p.buffer_chars,
      killGraceMs: p.kill_grace_ms,
      maxRunning: p.max_running,
      retentionMs: p.retention_ms,
      ...(log ? { log } : {}),
    }
  }

  /**
   * Opens the registry: under the checkpoint lock, reads the checkpoint and adopts each listed
   * process group proven ours (`isOurGroup`: live members, the leader's start time if it lives, and
   * the identity marker this workspace set in its environment — a forged entry or a reused pid is
   * never adopted or signalled). Entries whose group ended meanwhile, or that cannot be proven ours,
   * are kept as ended (exit code unknown) and queue their completion if asked; adopted foreground
   * processes are killed (their caller is gone). Entries and completions of another host that is
   * still open are left alone.
   */
  static async open(options: ProcessRegistryOptions): Promise<ProcessRegistry> {
    const registry = new ProcessRegistry(options)
    await registry.#checkpoint.restore(registry.#state)
    return registry
  }

  /** Runs `command` with `/bin/sh -c` in its own process group. Throws E_LIMIT at `maxRunning`. */
  async spawn(command: string, options: SpawnOptions = {}): Promise<ProcessInfo> {
    if (this.#closed) throw new Error('the process registry is closed; start a new host to run commands')
    if (typeof command !== 'string' || command.trim() === '') throw new ToolhostError('E_ARGS_INVALID', 'command must be a non-empty string')
    this.#prune()
    const running = [...this.#records.values()].filter((p) => p.status === 'running')
    if (running.length + this.#starting >= this.options.maxRunning) {
      throw new ToolhostError('E_LIMIT', `cannot start another process: ${running.length + this.#starting} are running and processes.max_running is ${this.options.maxRunning}. Wait for one to end (process action "wait") or stop one (process action "kill"); running: ${running.map((p) => p.id).join(', ') || '(starting)'}`)
    }
    const cwd = resolveWorkingFolder(options.cwd, this.options.root, this.#caseInsensitive)
    const id = this.#newId()
    this.#starting++
    let managed: ManagedProcess
    try {
      // The command's output goes to a log under .toolhost: never through a link planted on the way.
      const problem = stateFolderProblem(this.options.root, path.join(this.options.dir, `${id}.log`))
      if (problem !== undefined) throw new Error(`could not open the log file for the command's output: ${problem}`)
      managed = await ManagedProcess.spawn(
        {
          id,
          command,
          cwd,
          log: path.join(this.options.dir, `${id}.log`),
          env: { ...(this.options.env ?? process.env), ...options.env },
          marker: processMarker(id, this.options.checkpoint),
          background: options.background ?? false,
          notify: options.notifyOnComplete ?? false,
          ...this.#launchWrap(),
          ...this.#relay(),
        },
        this.options.bufferChars,
        (p) => this.#onEnd(p),
      )
    } finally {
      this.#starting--
    }
    this.#records.set(id, managed)
    this.#checkpoint.takeCharge(id)
    this.#save()
    const info = managed.info()
    this.#listeners.emit({ type: 'spawned', process: info })
    return info
  }

  /** This host's processes (running, and ended ones within `retentionMs`), without their output. */
  list(): ProcessInfo[] {
    this.#prune()
    return [...this.#records.values()].map((p) => p.info(0))
  }

  /** Status, pid, uptime, exit code or signal, and the last 1000 characters. Consumes nothing. */
  async poll(id: string): Promise<ProcessInfo> {
    const managed = this.#get(id)
    await managed.tail.catchUp().catch(() => {})
    return managed.info()
  }

  /**
   * Lines `offset`..`offset + limit - 1` (1-based, stable however much output rolled out of memory);
   * without `offset`, the last `limit` lines. Lines no longer in memory are read from the log file.
   */
  async log(id: string, page: { offset?: number; limit?: number } = {}): Promise<LogPage> {
    const managed = this.#get(id)
    return pageLog(id, managed.tail, page, managed.logProblem)
  }

  /**
   * Waits for the process to end — its whole group, or with `until: 'leader'` only its shell (then
   * `status` is still `running` while processes it started live on) — `exited`, or `timeout` after
   * `timeoutMs`, or `interrupted` by `signal`.
   */
  async wait(id: string, options: { timeoutMs?: number; signal?: AbortSignal; tailChars?: number; until?: 'group' | 'leader' } = {}): Promise<{ outcome: WaitOutcome; process: ProcessInfo }> {
    const managed = this.#get(id)
    const outcome = await new Promise<WaitOutcome>((resolve) => {
      if (options.signal?.aborted) return resolve('interrupted')
      let timer: NodeJS.Timeout | undefined
      const onAbort = (): void => finish('interrupted')
      const finish = (value: WaitOutcome): void => {
        clearTimeout(timer)
        options.signal?.removeEventListener('abort', onAbort)
        resolve(value)
      }
      if (options.timeoutMs !== undefined) timer = setTimeout(() => finish('timeout'), options.timeoutMs)
      options.signal?.addEventListener('abort', onAbort, { once: true })
      void (options.until === 'leader' ? managed.leaderExited : managed.exited).then(() => finish('exited'))
    })
    // The shell has exited and only the sandbox's own process is left, ending just after it: the
    // command has ended, so wait the moment for its group (not a process it left running).
    if (outcome === 'exited' && managed.endingInSandbox) await endedWithin(managed, SANDBOX_ENDING_WAIT_MS)
    // An ended process's log has been read to its end once `exited` resolves.
    if (managed.status === 'exited') await managed.exited
    else await managed.tail.catchUp().catch(() => {})
    return { outcome, process: managed.info(options.tailChars) }
  }

  /** SIGTERM to the group, SIGKILL after `killGraceMs`; resolves with how it really ended. */
  async kill(id: string, options: { tailChars?: number } = {}): Promise<ProcessInfo> {
    const managed = this.#get(id)
    await managed.kill(this.options.killGraceMs)
    this.#save()
    return managed.info(options.tailChars)
  }

  /** Writes to the stdin of a background process this host spawned. */
  async write(id: string, data: string): Promise<void> {
    await this.#get(id).write(data)
  }

  /**
   * Completions of `notifyOnComplete` processes, each yielded exactly once across every iterator and
   * every restart (removed from the checkpoint as it is yielded). Ends when `signal` aborts or the
   * registry closes.
   */
  completions(signal?: AbortSignal): AsyncGenerator<ProcessCompletion, void, undefined> {
    return this.#queue.drain(signal)
  }

  /** Completions not yet delivered (peeking does not deliver them). */
  get pendingCompletions(): readonly ProcessCompletion[] {
    return this.#queue.pending
  }

  /** Listens to spawned, exited and completion events (for the CLI and the MCP server). */
  onEvent(listener: (event: ProcessEvent) => void): () => void {
    return this.#listeners.add(listener)
  }

  /**
   * Closes the registry: foreground processes are killed; background ones keep running and stay in
   * the checkpoint, released so the next host adopts them; undelivered completions stay there too.
   */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    const running = [...this.#records.values()].filter((p) => p.status === 'running')
    await Promise.all(running.filter((p) => !p.spec.background).map((p) => p.kill(this.options.killGraceMs)))
    for (const p of running) if (p.spec.background) p.release()
    this.#queue.close()
    this.#save()
    await Promise.all([...this.#records.values()].map((p) => p.dispose(false)))
  }

  #onEnd(managed: ManagedProcess): void {
    // After close, the next host owns the checkpoint; this one only lets go.
    if (this.#closed) return
    if (managed.spec.notify) {
      const completion = completionOf(managed)
      this.#checkpoint.takeChargeOfCompletion(completion.id)
      this.#queue.push(completion)
      this.#listeners.emit({ type: 'completion', completion })
    } else {
      this.#save()
    }
    this.#listeners.emit({ type: 'exited', process: managed.info() })
  }

  // Rewrites the checkpoint (see ProcessCheckpoint.save); after close, the processes left are released.
  #save(): void {
    this.#checkpoint.save(this.#state, this.#closed)
  }

  #prune(): void {
    const now = Date.now()
    for (const [id, p] of this.#records) {
      if (p.status === 'exited' && p.endedAt !== undefined && now - p.endedAt >= this.options.retentionMs) {
        this.#records.delete(id)
        void p.dispose(true)
      }
    }
  }

  #get(id: string): ManagedProcess {
    this.#prune()
    const managed = typeof id === 'string' ? this.#records.get(id) : undefined
    if (!managed) {
      const known = [...this.#records.keys()]
      throw new ToolhostError('E_NOT_FOUND', `no process with id ${JSON.stringify(id)}; known ids: ${known.join(', ') || '(none)'} (ended processes are forgotten after processes.retention_ms)`)
    }
    return managed
  }

  // How a new command's output reaches its log and the host (see ManagedProcess.spawn).
  // What ManagedProcess.spawn wraps a command in: the sandbox, else a PID namespace, else nothing.
  #launchWrap(): { sandbox?: SandboxPlan; contain?: { bwrap: string } } {
    const { sandbox, contain } = this.#launchDecision()
    return sandbox ? { sandbox } : contain ? { contain } : {}
  }

  #relay(): { relay?: string; openLog?: (file: string) => number } {
    const relay = this.options.relayOutput
    const tee = relay === false ? undefined : typeof relay === 'string' ? relay : findRelayTee()
    return { ...(tee ? { relay: tee } : {}), ...(this.options.openLog ? { openLog: this.options.openLog } : {}) }
  }

  #newId(): string {
    for (;;) {
      const id = `proc_${randomBytes(6).toString('hex')}`
      if (!this.#records.has(id) && !this.#checkpoint.isInCharge(id)) return id
    }
  }
}

// How long `wait` gives the sandbox's own process to end after the command did (it normally takes
// milliseconds; a loaded machine can take longer).
const SANDBOX_ENDING_WAIT_MS = 2000

// Resolves once `managed` has ended, or after `ms`, whichever is first.
async function endedWithin(managed: ManagedProcess, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([managed.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))])
  clearTimeout(timer)
}
