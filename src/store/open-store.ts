import { ToolhostError } from '../contract/errors.js'
import type { Logger } from '../contract/types.js'
import type { CoordinationStore } from './coordination-store.js'
import { LocalStore } from './local-store.js'
import { MemoryStore } from './memory-store.js'
import { RedisStore } from './redis-store.js'
import { STORE_PATTERN } from './store-setting.js'

/**
 * The store a host coordinates through, from config `store` or the TOOLHOST_STORE environment
 * variable (which wins). `where` names the file and key (or variable) in errors.
 *
 * @example
 * openStore({ setting: 'local', where: 'config.yaml: store', root: '/ws', log }) // a LocalStore on /ws/.toolhost/store
 */
export function openStore(options: { setting: string; where: string; root: string; log: Logger }): CoordinationStore {
  const { setting, where } = options
  if (!new RegExp(STORE_PATTERN).test(setting)) {
    // A mistyped URL may still carry a password: never echo what stands before an @.
    throw new ToolhostError('E_CONFIG_INVALID', `${where} must be memory, local or a redis:// URL, got ${JSON.stringify(setting.replace(/^([^@]*:)[^@]*@/, '$1***@'))}`)
  }
  if (setting === 'memory') return new MemoryStore({ log: options.log })
  if (setting === 'local') return new LocalStore({ root: options.root, log: options.log })
  return new RedisStore({ url: setting, where, log: options.log })
}
