/**
 * The addresses `toolhost serve --http` prints. A server bound to `0.0.0.0` (or any address behind a
 * proxy) answers only the Host of `serve.public_url` (`src/http/request-access.ts`): a URL built from
 * the bind address would answer 403. So the URLs to open come from `serve.public_url` when it is set,
 * else from the address the server listens on (a loopback or named address, which it answers).
 */

/**
 * The origin (and path prefix) the console is opened at: beside `/mcp`, at `serve.public_url`'s
 * folder when set, else the listening address's origin. No trailing slash.
 *
 * @example
 * consoleBase('http://0.0.0.0:4321/mcp', 'https://tools.example.com/mcp') // 'https://tools.example.com'
 * consoleBase('http://127.0.0.1:4321/mcp', '')                           // 'http://127.0.0.1:4321'
 */
export function consoleBase(listening: string, publicUrl: string): string {
  if (publicUrl === '') return new URL(listening).origin
  return new URL('./', publicUrl).href.replace(/\/$/, '')
}

/**
 * What follows the listening address on the MCP line: nothing when clients use that address, else
 * the URL they reach it at (`serve.public_url`).
 *
 * @example
 * publicNote('http://0.0.0.0:4321/mcp', 'https://tools.example.com/mcp') // ' (the bind address; clients reach it at https://tools.example.com/mcp, serve.public_url)'
 */
export function publicNote(listening: string, publicUrl: string): string {
  if (publicUrl === '' || new URL(publicUrl).href === new URL(listening).href) return ''
  return ` (the bind address; clients reach it at ${new URL(publicUrl).href}, serve.public_url)`
}
