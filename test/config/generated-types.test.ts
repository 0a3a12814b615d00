// The config types are generated from the schema (src/config/schema.ts): the committed file must be
// what `npm run config-types` renders today, so a key added to the schema reaches the types.
import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { GENERATED_TYPES_FILE, renderConfigTypes } from '../../scripts/config-types.js'
import { LIVE_KEYS, withLiveKeys } from '../../src/config/live-config.js'
import { defaultConfig } from '../../src/config/defaults.js'

describe('config types, defaults and live keys come from the schema', () => {
  test('src/config/generated-types.ts is current (run `npm run config-types` after changing the schema)', () => {
    expect(readFileSync(GENERATED_TYPES_FILE, 'utf8')).toBe(renderConfigTypes())
  })

  test('the live keys are the ones marked x-live', () => {
    expect(LIVE_KEYS).toEqual(['dispatch.max_workers', 'dispatch.timeout_ms', 'dispatch.interrupt_grace_ms', 'rate_limits', 'web_search.timeout_ms', 'terminal.timeout_ms', 'hooks'])
  })

  test('withLiveKeys takes exactly the live keys from the next config', () => {
    const next = defaultConfig()
    next.dispatch.max_workers = 2
    next.hooks.before_call = [{ tools: 'x', command: 'true' }]
    next.permissions.mode = 'auto'
    const merged = withLiveKeys(defaultConfig(), next)
    expect(merged.dispatch.max_workers).toBe(2)
    expect(merged.hooks.before_call).toHaveLength(1)
    expect(merged.permissions.mode).toBe('ask')
  })
})
