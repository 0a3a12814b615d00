// Built-in basics: tools that touch nothing shared, so they run in parallel with anything but a barrier.
import { defineTool, registry } from 'toolhost'

registry.register(
  defineTool<{ text: string }>({
    name: 'echo',
    toolset: 'basics',
    description: 'Echo a message back unchanged. Useful to check that tool calls work.',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The text to send back.' } },
      required: ['text'],
      additionalProperties: false,
    },
    parallelSafe: true,
    readOnly: () => true,
    idempotent: true,
    handler: (args) => args.text,
  }),
)

registry.register(
  defineTool<{ timezone?: string }>({
    name: 'current_time',
    toolset: 'basics',
    description: 'The current date and time, as ISO 8601 UTC and in a named IANA time zone if one is given.',
    parameters: {
      type: 'object',
      properties: {
        timezone: { type: 'string', description: 'An IANA time zone such as "Europe/Paris". Optional.' },
      },
      additionalProperties: false,
    },
    parallelSafe: true,
    readOnly: () => true,
    handler: (args) => {
      const now = new Date()
      if (!args.timezone) return now.toISOString()
      let local: string
      try {
        local = now.toLocaleString('sv-SE', { timeZone: args.timezone, hour12: false })
      } catch {
        throw new Error(`unknown time zone "${args.timezone}"; use an IANA name such as "UTC" or "America/New_York"`)
      }
      return `${now.toISOString()} (${args.timezone}: ${local})`
    },
  }),
)

registry.register(
  defineTool<{ ms: number }>({
    name: 'wait',
    toolset: 'basics',
    description: 'Wait for a number of milliseconds (at most 60000), then report how long it waited. Stops early when interrupted.',
    parameters: {
      type: 'object',
      properties: { ms: { type: 'integer', minimum: 0, maximum: 60000, description: 'How long to wait, in milliseconds.' } },
      required: ['ms'],
      additionalProperties: false,
    },
    parallelSafe: true,
    readOnly: () => true,
    handler: (args, ctx) =>
      new Promise<string>((resolve, reject) => {
        const signal = ctx.call.signal
        // An abort that came before the handler started never fires its event: check it first.
        if (signal.aborted) {
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'))
          return
        }
        const started = Date.now()
        const timer = setTimeout(() => {
          signal.removeEventListener('abort', onAbort)
          resolve(`waited ${Date.now() - started} ms`)
        }, args.ms)
        const onAbort = (): void => {
          clearTimeout(timer)
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'))
        }
        signal.addEventListener('abort', onAbort, { once: true })
      }),
  }),
)
