// An env-gated tool: hidden unless TOOLHOST_WEBHOOK_URL is set (in the environment or .env).
import { defineTool, registry } from 'toolhost'

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
    parallelSafe: true,
    openWorld: true,
    timeoutMs: 15_000,
    handler: async (args, ctx) => {
      const url = process.env.TOOLHOST_WEBHOOK_URL!
      let response: Response
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ title: args.title ?? 'toolhost', message: args.message }),
          signal: ctx.signal,
        })
      } catch (error) {
        throw new Error(`could not reach the webhook: ${(error as Error).message}`)
      }
      if (!response.ok) throw new Error(`the webhook answered HTTP ${response.status} ${response.statusText}`)
      return `notification sent (HTTP ${response.status})`
    },
  }),
)
