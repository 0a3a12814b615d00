const SIGNAL_NUMBERS: Readonly<Record<'SIGINT' | 'SIGTERM', number>> = { SIGINT: 2, SIGTERM: 15 }

/** What a command that runs calls holds while SIGINT and SIGTERM stop it (`stopOnSignals`). */
export interface SignalStop {
  /** Aborted on the first SIGINT or SIGTERM: hand it to `host.run` / `host.call`. */
  readonly signal: AbortSignal
  /** The exit code: `code` as the command reached it, or 128 + the signal's number once one came (130, 143). */
  exitCode(code: number): number
  /** Removes the handlers. */
  stop(): void
}

/**
 * SIGINT (Ctrl-C) and SIGTERM for a command that runs calls: the first aborts `signal`, so every
 * running call is answered with its interrupted result (hooks and processes killed with their
 * process groups) and printed as usual; a second one exits at once.
 *
 * @example
 * const stop = stopOnSignals(io)
 * try { results = await host.run(calls, { signal: stop.signal }) } finally { stop.stop() }
 * return stop.exitCode(results.every((r) => r.ok) ? 0 : 1)
 */
export function stopOnSignals(io: { err: (text: string) => void }): SignalStop {
  const controller = new AbortController()
  let received: 'SIGINT' | 'SIGTERM' | undefined
  const on = (signal: 'SIGINT' | 'SIGTERM'): void => {
    if (received !== undefined) process.exit(128 + SIGNAL_NUMBERS[signal])
    received = signal
    io.err(`toolhost: ${signal}: interrupting the running calls (their hooks and processes are stopped); again to quit at once`)
    controller.abort(new Error(`interrupted by ${signal}`))
  }
  const onInt = (): void => on('SIGINT')
  const onTerm = (): void => on('SIGTERM')
  process.on('SIGINT', onInt)
  process.on('SIGTERM', onTerm)
  return {
    signal: controller.signal,
    exitCode: (code) => (received === undefined ? code : 128 + SIGNAL_NUMBERS[received]),
    stop: () => {
      process.off('SIGINT', onInt)
      process.off('SIGTERM', onTerm)
    },
  }
}
