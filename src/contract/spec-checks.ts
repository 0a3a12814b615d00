/** Checks shared by `definePrompt` and `defineResource`. */

/**
 * Checks `check` and `requiresEnv` of a prompt or resource spec.
 *
 * @example
 * assertGating({ requiresEnv: ['NOTES_DIR'] }, 'resource "notes"', fail)
 */
export function assertGating(spec: { check?: unknown; requiresEnv?: unknown }, at: string, fail: (what: string, got: unknown) => never): void {
  if (spec.check !== undefined && typeof spec.check !== 'function') fail(`${at}: \`check\` must be a function`, spec.check)
  if (spec.requiresEnv !== undefined && (!Array.isArray(spec.requiresEnv) || spec.requiresEnv.some((v) => typeof v !== 'string' || v === ''))) {
    fail(`${at}: \`requiresEnv\` must be a list of variable names`, spec.requiresEnv)
  }
}

/**
 * Checks a spec's `complete`: an object whose keys are among `names` (`what`: argument or
 * variable), each a function or a list of strings.
 *
 * @example
 * assertCompleters({ name: ['a', 'b'] }, ['name'], 'variable', 'resource "notes"', fail)
 */
export function assertCompleters(complete: unknown, names: readonly string[], what: string, at: string, fail: (what: string, got: unknown) => never): void {
  if (complete === undefined) return
  if (!isObject(complete)) fail(`${at}: \`complete\` must be an object of completers by ${what} name`, complete)
  for (const [name, completer] of Object.entries(complete as Record<string, unknown>)) {
    if (!names.includes(name)) fail(`${at}: \`complete.${name}\` names no ${what}${names.length > 0 ? ` (the ${what}s are ${names.join(', ')})` : ''}`, name)
    const ok = typeof completer === 'function' || (Array.isArray(completer) && completer.every((v) => typeof v === 'string'))
    if (!ok) fail(`${at}: \`complete.${name}\` must be a function or a list of strings`, completer)
  }
}

/** A non-null object that is not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * A value as an error message quotes it: JSON (cut at 200 characters) and its type.
 *
 * @example
 * describeValue(7) // '7 (number)'
 */
export function describeValue(value: unknown): string {
  let text: string
  try {
    text = typeof value === 'function' ? 'a function' : (JSON.stringify(value) ?? String(value))
  } catch {
    text = String(value)
  }
  return `${text.length > 200 ? `${text.slice(0, 200)}…` : text} (${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value})`
}
