/** What config `store` (or TOOLHOST_STORE) may say: `memory`, `local`, or a Redis URL. */
export const STORE_PATTERN = '^(memory|local|rediss?://.+)$'

/**
 * The store setting in force and where it came from: TOOLHOST_STORE when set, else config `store`
 * (`configFrom`: the config file, or what stands for it in errors).
 *
 * @example
 * storeSetting('local', 'config.yaml', { TOOLHOST_STORE: 'memory' }) // { setting: 'memory', where: 'environment: TOOLHOST_STORE' }
 */
export function storeSetting(configured: string, configFrom: string, env: NodeJS.ProcessEnv): { setting: string; where: string } {
  const fromEnv = env.TOOLHOST_STORE
  if (fromEnv !== undefined && fromEnv !== '') return { setting: fromEnv, where: 'environment: TOOLHOST_STORE' }
  return { setting: configured, where: `${configFrom}: store` }
}
