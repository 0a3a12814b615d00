/**
 * The messages whose advice depends on who reads them. The same fact — a tool is hidden, a call
 * needed approval and no one could be asked — reaches a model (over MCP), a person at the CLI, and a
 * developer embedding the host (whose model reads it too); each gets the way out it can take.
 * The host learns its reader from `createHost({ audience })`: the CLI says `person`, `toolhost serve`
 * says `model`, an embedding gets `developer` by default.
 */
import path from 'node:path'

/** Who reads a call's error: a model over MCP, a person at the CLI, or a developer embedding the host. */
export type Audience = 'model' | 'person' | 'developer'

export const AUDIENCES: readonly Audience[] = ['model', 'person', 'developer']

/** Why a tool is hidden: the reason, and the env vars it needs that are not set (when that is why). */
export interface UnavailableFacts {
  tool: string
  reason: string
  missingEnv: readonly string[]
}

/**
 * E_TOOL_UNAVAILABLE: a model is told to use another tool; a person and a developer are told what
 * makes the tool available (the variables to set, and where).
 *
 * @example
 * unavailableMessage({ tool: 'weather', reason: 'missing env var WEATHER_API_KEY', missingEnv: ['WEATHER_API_KEY'] }, 'person')
 * // 'weather is not available: missing env var WEATHER_API_KEY. Set WEATHER_API_KEY (in the environment or the .env file) and run it again.'
 */
export function unavailableMessage(facts: UnavailableFacts, audience: Audience): string {
  const { tool, reason, missingEnv } = facts
  const vars = missingEnv.join(' and ')
  switch (audience) {
    case 'model':
      return `${tool} is not available right now (${reason}); use another tool`
    case 'person':
      return missingEnv.length > 0
        ? `${tool} is not available: ${reason}. Set ${vars} (in the environment or the .env file) and run it again.`
        : `${tool} is not available: ${reason}. \`toolhost list\` shows why each tool is hidden; \`toolhost doctor\` checks the set-up.`
    case 'developer':
      return missingEnv.length > 0
        ? `${tool} is not available right now (${reason}); use another tool. To offer it, set ${vars} in the environment the host reads (createHost({ env }), or the .env file).`
        : `${tool} is not available right now (${reason}); use another tool. host.registry.explainAvailability() says why each tool is hidden.`
  }
}

/** A call that needed a person's approval when none could answer. */
export interface NoOneToAskFacts {
  tool: string
  /** Why it needs approval (the rule, the tool, or the mode). */
  reason: string
  /** A narrow allow rule for calls like this one, when there is one. */
  rule?: string | undefined
  /**
   * What asked, when an allow rule would not settle it (an allow rule does not skip an ask rule, a
   * hook's ask, or the tool's own ask or `needsApproval`): then no allow rule is suggested, and this
   * is named instead. Undefined when an allow rule would let it run.
   */
  notByAllowRule?: string | undefined
  /** Permission modes that would run it without asking. */
  modes: readonly string[]
  /** Why no one could be asked, when more is known than "no approver" (e.g. the MCP client cannot answer questions). */
  why?: string | undefined
}

/**
 * E_DENIED when no one could be asked: says so (it is not a person's refusal) and what would allow
 * the call — for a model, to tell the user what it wanted to do; for a person, a rule in
 * config.yaml, `--permission-mode` or `--yes`; for a developer, `createHost({ permissionMode })`,
 * an `approve` handler, or a rule.
 *
 * @example
 * noOneToAskMessage({ tool: 'write_file', reason: 'mode ask', rule: 'write_file(a.txt)', modes: ['accept-edits'] }, 'developer')
 */
export function noOneToAskMessage(facts: NoOneToAskFacts, audience: Audience): string {
  const { tool, reason, rule, modes, why, notByAllowRule } = facts
  const head = `${tool} did not run: it needs approval (${reason}) and no one could be asked${why ? ` (${why})` : ''}; nobody refused it.`
  if (notByAllowRule !== undefined) {
    // An allow rule would change nothing: only a mode that runs everything, or someone to ask.
    switch (audience) {
      case 'model':
        return `${head} Do not retry it as is. Tell the user what you wanted to do: ${notByAllowRule} asks for every such call, so only a person can allow it (or the permission mode ${modes.join(' or ')} in the toolhost server's config). Or do something else.`
      case 'person':
        return `${head} An allow rule does not skip it (${notByAllowRule} asks). To allow it: pass --yes to approve every call that asks, or run with --permission-mode ${modes.join(' or ')}.`
      case 'developer':
        return `${head} An allow rule does not skip it (${notByAllowRule} asks). To allow it: pass an approve handler (createHost({ approve })), or createHost({ permissionMode: ${modes.map((m) => `'${m}'`).join(' or ')} }).`
    }
  }
  const allowRule = rule ? `permissions.allow: ["${rule}"]` : `an allow rule for ${tool} in permissions.allow`
  switch (audience) {
    case 'model':
      return `${head} Do not retry it as is. Tell the user what you wanted to do: they can allow it in the toolhost server's permissions (${allowRule} in its config.yaml, or a permission mode such as ${modes.join(' or ')}). Or do something else.`
    case 'person':
      return `${head} To allow it: add ${allowRule} to config.yaml, run with --permission-mode ${modes.join(' or ')}, or pass --yes to approve every call that asks.`
    case 'developer':
      return `${head} To allow it: pass createHost({ permissionMode: ${modes.map((m) => `'${m}'`).join(' or ')} }), an approve handler (createHost({ approve })), or add ${allowRule} to the host's config.`
  }
}

/**
 * E_DENIED in plan mode, where only read-only calls run; the way out named for the reader.
 *
 * @example
 * planModeMessage('write_file', 'person') // '… the user can leave plan mode (--permission-mode or permissions.mode) to carry it out'
 */
export function planModeMessage(tool: string, audience: Audience): string {
  const leave = audience === 'person' ? ' (--permission-mode or permissions.mode)' : audience === 'developer' ? " (createHost({ permissionMode }) or permissions.mode)" : ''
  return `the host is in plan mode, where only read-only calls run, so ${tool} did not run. Describe the change you would make instead; the user can leave plan mode${leave} to carry it out`
}

/**
 * `text` with the workspace root's absolute path taken out: paths under it become relative, the
 * root itself `.`. Error messages reach clients that must not learn where the server keeps its files.
 *
 * @example
 * stripRootPath("ENOENT: no such file or directory, open '/srv/w/a/b.txt'", '/srv/w') // "ENOENT: no such file or directory, open 'a/b.txt'"
 */
export function stripRootPath(text: string, root: string): string {
  if (root === path.parse(root).root || !text.includes(root)) return text
  const escaped = root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const sep = path.sep === '\\' ? '\\\\' : '/'
  // The root followed by a separator starts a path inside it; the root alone (not followed by more
  // of a longer name) is the root itself.
  return text.replace(new RegExp(`${escaped}${sep}`, 'g'), '').replace(new RegExp(`${escaped}(?![\\w.-])`, 'g'), '.')
}
