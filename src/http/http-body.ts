import type { IncomingMessage } from 'node:http'

/** What `readJsonBody` answers for a body over its limit (reading stops there). */
export const TOO_LARGE = Symbol('too large')

/**
 * A request body parsed as JSON, read only up to `maxBytes` (then `TOO_LARGE`, without reading the
 * rest); undefined when it is not JSON. Shared by `/mcp` and the console's actions.
 *
 * @example
 * const body = await readJsonBody(req, 1 << 20)
 * if (body === TOO_LARGE) return reply(res, 413, 'too large')
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > maxBytes) return TOO_LARGE
    chunks.push(chunk as Buffer)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    return undefined
  }
}
