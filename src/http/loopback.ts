import { isIP } from 'node:net'

// The loopback checks /mcp and the console share, in a module of their own: the console (toolhost/console)
// uses them without loading the MCP SDK that mcp/http.ts imports.

/**
 * True for a name that can only mean this machine: `localhost`, an IPv4 address in 127.0.0.0/8, or
 * `::1` (bracketed or not). Compared exactly, after URL parsing: `127.0.0.1.evil.example` and
 * `localhost.evil.example` are other hosts.
 *
 * @example
 * isLoopback('127.0.0.1.evil.example') // false
 */
export function isLoopback(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1')
  if (name === 'localhost' || name === '::1') return true
  return isIP(name) === 4 && name.startsWith('127.')
}

/** An Origin header, when a browser sends one, must be a loopback http(s) origin. */
export function isLoopbackOrigin(origin: string | undefined): boolean {
  if (origin === undefined) return true // not a browser
  try {
    const url = new URL(origin)
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopback(url.hostname)
  } catch {
    return false
  }
}

/** The Host header must name this server: a loopback name and its port, parsed as a URL would. */
export function isLoopbackHost(header: string | undefined, port: number): boolean {
  if (header === undefined || header === '' || /[/?#@\s]/.test(header)) return false
  try {
    const url = new URL(`http://${header}`)
    return isLoopback(url.hostname) && (url.port === '' ? '80' : url.port) === String(port)
  } catch {
    return false
  }
}
