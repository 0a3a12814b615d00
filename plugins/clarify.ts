// Built-in clarify: asks the person running the agent a question, through the host's ask handler.
// Hidden where the host has no way to ask (its availability check reads `canAsk`).
import { defineTool, registry, ToolhostError } from 'toolhost'

registry.register(
  defineTool<{ question: string; choices?: string[] }>({
    name: 'clarify',
    toolset: 'interaction',
    description:
      'Ask the person you are working for a question and wait for the answer. Use it when the task is ambiguous and guessing could waste work; ' +
      'offer choices when the answer is one of a few options. Returns their answer as text.',
    parameters: {
      type: 'object',
      properties: {
        question: { type: 'string', minLength: 1, maxLength: 4000, description: 'The question, complete enough to answer without more context.' },
        choices: {
          type: 'array',
          items: { type: 'string', minLength: 1, maxLength: 500 },
          minItems: 1,
          maxItems: 10,
          description: 'Optional answers to pick from; the person may still answer in their own words.',
        },
      },
      required: ['question'],
      additionalProperties: false,
    },
    // A person answers one question at a time, and nothing should change while they think.
    neverParallel: true,
    readOnly: () => true,
    // A reason, not a throw: `toolhost list` and a call of the hidden tool show it as written.
    check: (context) => (context.canAsk ? true : { available: false, reason: 'needs a person to ask; none here' }),
    // People are slower than tools: give them half an hour.
    timeoutMs: 1_800_000,
    handler: async (args, ctx) => {
      if (ctx.ask === undefined) throw new ToolhostError('E_TOOL_UNAVAILABLE', 'no person can be asked in this session; decide with what you know and say what you assumed')
      const answer = await ctx.ask({ question: args.question, ...(args.choices ? { choices: args.choices } : {}), callId: ctx.call.id }, ctx.call.signal)
      return answer.trim() === '' ? '(the person gave an empty answer)' : `the person answered: ${answer}`
    },
  }),
)
