import type { Logger } from './types.js'

const LEVELS = ['debug', 'info', 'warn', 'error'] as const
type Level = (typeof LEVELS)[number]

/**
 * A logger writing one line per message to stderr (stdout stays for results). The level comes from
 * `TOOLHOST_LOG` (debug, info, warn, error; default warn).
 *
 * @example
 * const host = await createHost({ log: createLogger('info') })
 */
export function createLogger(level: string = process.env.TOOLHOST_LOG ?? 'warn', write: (line: string) => void = (line) => process.stderr.write(line + '\n')): Logger {
  const given = level.trim().toLowerCase()
  const known = LEVELS.indexOf(given as Level)
  // An unknown level (a typo such as "verbos") logs at the default, not at the most verbose level,
  // and says so once: a misspelt setting must not silently flood stderr or hide warnings.
  const threshold = known === -1 ? LEVELS.indexOf('warn') : known
  const emit = (at: Level) => (message: string, fields?: Record<string, unknown>) => {
    if (LEVELS.indexOf(at) < threshold) return
    write(`toolhost ${at}: ${message}${fields && Object.keys(fields).length > 0 ? ' ' + JSON.stringify(fields) : ''}`)
  }
  const logger = { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') }
  if (known === -1 && given !== '') logger.warn(`TOOLHOST_LOG=${JSON.stringify(level)} is not a log level (${LEVELS.join(', ')}); logging at warn`)
  return logger
}

/**
 * A logger that drops everything (tests, benchmarks).
 *
 * @example
 * const host = await createHost({ log: silentLogger })
 */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} }
