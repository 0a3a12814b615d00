// An env-gated tool: hidden unless TOOLHOST_WEBHOOK_URL is set (in the environment or .env) to an
// http(s) URL.
import { defineTool, registry, ToolhostError } from 'toolhost'

/**
 * The configured webhook URL, or why it cannot be used. The URL is a secret (its path carries the
 * token): no message quotes it.
 */
function webhookUrl(env: NodeJS.ProcessEnv): URL | { problem: string } {
  let url: URL
  try {
    url = new URL(env.TOOLHOST_WEBHOOK_URL ?? '')
  } catch {
    return { problem: 'TOOLHOST_WEBHOOK_URL is not a URL' }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: `TOOLHOST_WEBHOOK_URL must be http(s), got ${url.protocol}` }
  return url
}

registry.register(
  defineTool<{ message: string; title?: string }>({
    name: 'notify_webhook',
    toolset: 'notify',
    description: 'Send a short notification (JSON {title, message}) to the webhook configured in TOOLHOST_WEBHOOK_URL. Use it to tell a person that a long task finished.',
    parameters: {
      type: 'object',
      properties: {
        message: { type: 'string', minLength: 1, maxLength: 4000, description: 'The notification text.' },
        title: { type: 'string', maxLength: 200, description: 'A short title. Optional.' },
      },
      required: ['message'],
      additionalProperties: false,
    },
    requiresEnv: ['TOOLHOST_WEBHOOK_URL'],
    check: ({ env }) => {
      const url = webhookUrl(env)
      return url instanceof URL ? true : { available: false, reason: url.problem }
    },
    parallelSafe: true,
    openWorld: true,
    timeoutMs: 15_000,
    handler: async (args, ctx) => {
      const url = webhookUrl(ctx.settings.env)
      if (!(url instanceof URL)) throw new ToolhostError('E_TOOL_UNAVAILABLE', `${url.problem}; the notification was not sent`)
      let response: Response
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ title: args.title ?? 'toolhost', message: args.message }),
          signal: ctx.call.signal,
        })
      } catch (error) {
        // fetch says only "fetch failed"; the cause says why (ECONNREFUSED, DNS, TLS …).
        const cause = (error as Error).cause
        const why = cause instanceof Error ? `${(error as Error).message}: ${cause.message}` : (error as Error).message
        throw new Error(`could not reach the webhook at ${url.origin}: ${why}. Check TOOLHOST_WEBHOOK_URL and that the service is up.`)
      }
      // Read the body either way, so the connection is released; a failure quotes its start.
      const body = await response.text().catch(() => '')
      if (!response.ok) {
        const snippet = body.trim().slice(0, 200)
        throw new Error(`the webhook answered HTTP ${response.status} ${response.statusText}${snippet ? `: ${snippet}` : ''}; the notification was not delivered`)
      }
      return `notification sent (HTTP ${response.status})`
    },
  }),
)
