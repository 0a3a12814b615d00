// The calls of tools a host offered in OpenAI strict mode: the nulls the strict rewrite made the
// model send are taken out before admission validates the arguments (adapters/openai-strict.ts).
import { stripIntroducedNulls, toStrictSchema } from '../../adapters/openai-strict.js'
import type { AnyTool, OpenAIToolDefinition, ToolCall } from '../../contract/types.js'
import type { ArgumentLimits } from './argument-limits.js'
import { parseArguments } from './prepare.js'

/**
 * The calls with the nulls strict mode introduced taken out of the arguments of every call whose
 * tool `strictTool` names (the tools this host offered in strict mode). Arguments are parsed here
 * only for those calls; arguments that do not parse are left for admission to refuse.
 *
 * @example
 * host.run(withoutIntroducedNulls(calls, (name) => strictTools.get(name), { maxChars: 1_000_000, maxDepth: 64 }))
 */
export function withoutIntroducedNulls(calls: readonly ToolCall[], strictTool: (name: string) => AnyTool | undefined, limits: ArgumentLimits): readonly ToolCall[] {
  let out: ToolCall[] | undefined
  calls.forEach((call, i) => {
    const tool = typeof call.name === 'string' ? strictTool(call.name) : undefined
    if (!tool) return
    const parsed = parseArguments(call.arguments, limits)
    if (!parsed.ok) return
    const args = stripIntroducedNulls(tool.parameters, parsed.args)
    if (args === parsed.args && typeof call.arguments !== 'string') return
    ;(out ??= calls.slice())[i] = { ...call, arguments: args }
  })
  return out ?? calls
}

/**
 * The tools a host has offered in strict mode (so their calls get introduced nulls removed). Kept
 * by name: a model keeps the definitions it was given, so after a hot reload replaces a tool it
 * still sends nulls for the optional arguments; they are taken out against the current schema.
 */
export class StrictTools {
  readonly #names = new Set<string>()

  /** Records the tools of `definitions` that strict mode renders strictly (those with a strict form). */
  remember(definitions: readonly OpenAIToolDefinition[], registry: { get(name: string): AnyTool | undefined }): void {
    for (const d of definitions) {
      if (toStrictSchema(d.function.parameters) && registry.get(d.function.name)) this.#names.add(d.function.name)
    }
  }

  /** The calls with introduced nulls removed for tools offered in strict mode (`calls` itself when none were). */
  prepare(calls: readonly ToolCall[], registry: { get(name: string): AnyTool | undefined }, limits: ArgumentLimits): readonly ToolCall[] {
    if (this.#names.size === 0) return calls
    return withoutIntroducedNulls(calls, (name) => (this.#names.has(name) ? registry.get(name) : undefined), limits)
  }
}
