/** Values shorter than this are not blanked out: every "1" or "on" in a message would go too. */
const MIN_SECRET_CHARS = 4

/**
 * `text` with the values of the environment variables `names` blanked out (as they are, JSON-escaped
 * and URL-encoded), so a tool's availability reason or error never shows a secret such as an API
 * key or a webhook URL with its token. Values shorter than 4 characters are left alone.
 *
 * @example
 * redactEnvValues('cannot reach https://hooks.example/T0K3N', ['WEBHOOK_URL'], { WEBHOOK_URL: 'https://hooks.example/T0K3N' })
 * // 'cannot reach [value of WEBHOOK_URL]'
 */
export function redactEnvValues(text: string, names: readonly string[], env: NodeJS.ProcessEnv): string {
  let out = text
  for (const name of names) {
    const value = Object.hasOwn(env, name) ? env[name] : undefined
    if (typeof value !== 'string' || value.length < MIN_SECRET_CHARS) continue
    const mask = `[value of ${name}]`
    for (const form of new Set([value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)])) {
      if (out.includes(form)) out = out.split(form).join(mask)
    }
  }
  return out
}
