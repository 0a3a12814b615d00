import { suggestNames } from '../contract/near-names.js'
import { checkConfigNames, checkPluginHookNames } from '../host/config-names.js'
import type { Host } from '../host/host.js'
import { missingEnvVars } from '../registry/tool-availability.js'

/**
 * `doctor`'s lines about names: each config entry, and each tool name of a plugin's hook, that
 * names no registered tool, with its did-you-mean (what start-up also warns about).
 *
 * @example
 * configNameLines(host) // ['config names:  1 entry names no registered tool', '  rate_limits.htpp_get names no … (did you mean "http_get"?): it limits nothing']
 */
export function configNameLines(host: Host): string[] {
  const tools = host.registry.list()
  const unmatched = checkConfigNames(host.config, tools)
  const lines = unmatched.length === 0
    ? ['config names:  every tool name in config matches a registered tool']
    : [`config names:  ${unmatched.length} ${unmatched.length === 1 ? 'entry names' : 'entries name'} no registered tool${host.configFile ? ` (${host.configFile})` : ''}`, ...unmatched.map((u) => `  ${u.message}`)]
  // A plugin hook's tools are names in code, not config: said only when one matches nothing.
  const hooks = checkPluginHookNames(host.registry.hooks.list(), tools, host.root)
  if (hooks.length > 0) lines.push(`hook names:  ${hooks.length} plugin hook ${hooks.length === 1 ? 'entry names' : 'entries name'} no registered tool`, ...hooks.map((u) => `  ${u.message}`))
  return lines
}

/**
 * For a tool hidden by a missing env var: the set variables with a close name ("did you mean
 * OPENAI_API_KEY, which is set?"), so a misspelt name in .env or the shell is found. Names only,
 * never values.
 *
 * @example
 * envHint(host, 'notify_webhook') // ' (did you mean TOOLHOST_WEBHOOK_URI, which is set?)'
 */
export function envHint(host: Host, toolName: string): string {
  const tool = host.registry.get(toolName)
  if (!tool) return ''
  const set = Object.keys(host.env).filter((name) => Object.hasOwn(host.env, name) && host.env[name])
  const hints = missingEnvVars(tool, host.env).flatMap((missing) => {
    const close = suggestNames(missing, set).filter((name) => name !== missing)
    return close.length > 0 ? [`${missing}: did you mean ${close.join(' or ')}, which ${close.length === 1 ? 'is' : 'are'} set?`] : []
  })
  return hints.length > 0 ? ` (${hints.join('; ')})` : ''
}
