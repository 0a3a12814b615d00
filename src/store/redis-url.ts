import { ToolhostError } from '../contract/errors.js'

/** What a `store: redis://…` setting says, read once at start-up. */
export interface RedisTarget {
  /** The URL for the client, without toolhost's own parameters (credentials kept: never print it). */
  readonly url: string
  /** The URL without user, password or parameters: for logs, errors and `doctor`. */
  readonly where: string
  /** How long a host's session (and every lease it holds) outlives its last renewal. */
  readonly leaseMs: number
  /** What every key of this deployment begins with (deployments sharing one Redis differ here). */
  readonly prefix: string
}

/** A host that stops renewing loses its leases this long after its last renewal (`?lease_ms=`). */
export const DEFAULT_LEASE_MS = 10_000
const MIN_LEASE_MS = 1000
const MAX_LEASE_MS = 300_000

/**
 * Reads a Redis store URL: `redis://[user:password@]host[:port][/db][?lease_ms=N&prefix=P]`
 * (`rediss://` for TLS). `lease_ms` and `prefix` are toolhost's; other parameters go to the client.
 * A malformed one fails start-up naming `where` (the config file and key, or the variable).
 *
 * @example
 * readRedisUrl('redis://:secret@cache:6379/2?lease_ms=5000', 'config.yaml: store')
 * // { url: 'redis://:secret@cache:6379/2', where: 'redis://cache:6379/2', leaseMs: 5000, prefix: 'toolhost:' }
 */
export function readRedisUrl(setting: string, where: string): RedisTarget {
  let parsed: URL
  try {
    parsed = new URL(setting)
  } catch {
    // Never echo the setting: it may hold a password.
    throw new ToolhostError('E_CONFIG_INVALID', `${where} is not a valid redis:// URL (redis://[user:password@]host[:port][/db])`)
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new ToolhostError('E_CONFIG_INVALID', `${where} must start with redis:// or rediss://`)
  if (parsed.hostname === '') throw new ToolhostError('E_CONFIG_INVALID', `${where} names no host (redis://host:port)`)
  const leaseText = parsed.searchParams.get('lease_ms')
  const leaseMs = leaseText === null ? DEFAULT_LEASE_MS : Number(leaseText)
  if (!Number.isInteger(leaseMs) || leaseMs < MIN_LEASE_MS || leaseMs > MAX_LEASE_MS) {
    throw new ToolhostError('E_CONFIG_INVALID', `${where}: lease_ms must be an integer from ${MIN_LEASE_MS} to ${MAX_LEASE_MS}, got ${JSON.stringify(leaseText)}`)
  }
  const prefixText = parsed.searchParams.get('prefix') ?? 'toolhost'
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(prefixText)) throw new ToolhostError('E_CONFIG_INVALID', `${where}: prefix must be 1 to 64 letters, digits or _.:-, got ${JSON.stringify(prefixText)}`)
  parsed.searchParams.delete('lease_ms')
  parsed.searchParams.delete('prefix')
  const path = parsed.pathname === '/' ? '' : parsed.pathname
  return {
    url: parsed.toString(),
    where: `${parsed.protocol}//${parsed.host}${path}`,
    leaseMs,
    prefix: `${prefixText}:`,
  }
}
