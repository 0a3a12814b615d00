import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { parseCliArgs } from '../../src/cli/args.js'
import { parseConfigText } from '../../src/config/load-config.js'
import { definePrompt } from '../../src/contract/define-prompt.js'
import { defineTool } from '../../src/contract/define-tool.js'
import { describeThrown, ERROR_CODES, isErrorCode, isToolhostError, ToolhostError, type ErrorCode } from '../../src/contract/errors.js'
import { createHost } from '../../src/host/create-host.js'
import type { Host } from '../../src/host/host.js'
import { loadPlugins } from '../../src/loader/load-plugins.js'
import { silentLogger } from '../../src/contract/logger.js'
import { registry, ToolRegistry } from '../../src/registry/registry.js'
import { LocalStore } from '../../src/store/local-store.js'
import type { ToolCall } from '../../src/contract/types.js'
import { MemoryApprovalLedger } from '../../src/mcp/approval-ledger.js'
import { callDigest, RequestStateSeal } from '../../src/mcp/request-state.js'
import { refuseControlPlane } from '../../src/workspace/control-plane.js'
// This file is about hosts coordinating through the local store: vitest.config.ts sets TOOLHOST_STORE=memory for the others.
delete process.env['TOOLHOST_STORE']

// The catalogue walk (avvio style): every code in src/contract/errors.ts has a meaning and a way to trigger
// it here, through the real path that produces it. Deeper tests of each are named in `where`.

let host: Host
let root: string

beforeAll(async () => {
  registry.clear()
  root = mkdtempSync(path.join(os.tmpdir(), 'toolhost-errors-'))
  host = await createHost({
    config: { plugins: { dirs: [] }, env_file: '', availability: { check_timeout_ms: 100 }, permissions: { mode: 'bypass' } },
    plugins: ['test/fixtures/plugins/calls', 'test/fixtures/plugins/gated'],
    root,
    log: silentLogger,
  })
})

afterAll(async () => {
  await host.close()
  rmSync(root, { recursive: true, force: true })
})

const STATE_BINDING = { principal: 'p', method: 'tools/call', call: callDigest('zap', {}) }

// Seals a state for STATE_BINDING, lets `change` alter it, then opens it `laterMs` on (as call `call`).
async function openedCode(change: (seal: RequestStateSeal, token: string) => string | Promise<string>, laterMs = 0, call = STATE_BINDING.call): Promise<string | undefined> {
  let now = 1_000
  const seal = new RequestStateSeal({ ledger: new MemoryApprovalLedger({ now: () => now }), now: () => now })
  const token = await change(seal, seal.seal({ ...STATE_BINDING, asked: 'approve-1', answers: {} }))
  now += laterMs
  try {
    await seal.open(token, { ...STATE_BINDING, call })
  } catch (error) {
    return isToolhostError(error) ? error.code : `not a ToolhostError: ${describeThrown(error)}`
  }
  return undefined
}

const callCode = async (call: Omit<ToolCall, 'id'>): Promise<string | undefined> => (await host.call({ id: 'e', ...call })).error?.code

const thrownCode = (fn: () => unknown): string | undefined => {
  try {
    fn()
  } catch (error) {
    return isToolhostError(error) ? error.code : `not a ToolhostError: ${describeThrown(error)}`
  }
  return undefined
}

const TRIGGERS: Record<ErrorCode, { where: string; trigger: () => Promise<string | undefined> | string | undefined }> = {
  E_TOOL_UNKNOWN: { where: 'test/host/host-call.test.ts resolve', trigger: () => callCode({ name: 'no_such_tool', arguments: '{}' }) },
  E_TOOL_UNAVAILABLE: { where: 'test/host/host-call.test.ts availability', trigger: () => callCode({ name: 'check_false', arguments: '{}' }) },
  E_ARGS_INVALID: { where: 'test/host/host-call.test.ts parse/validate', trigger: () => callCode({ name: 'typed', arguments: '{"name": 1}' }) },
  E_DENIED: {
    where: 'test/host/host-call.test.ts authoriser',
    trigger: async () => {
      // A host of its own over the same (shared) registry, with an authoriser that refuses everything.
      const refusing = await createHost({
        config: { plugins: { dirs: [] }, env_file: '' },
        loadPlugins: false,
        root: mkdtempSync(path.join(os.tmpdir(), 'toolhost-errors-refusing-')),
        log: silentLogger,
        authoriser: { authorise: async (items) => items.map(() => ({ run: false as const, error: { code: 'E_DENIED', message: 'refused' } })) },
      })
      try {
        return (await refusing.call({ id: 'e', name: 'no_args', arguments: '{}' })).error?.code
      } finally {
        await refusing.close()
        rmSync(refusing.root, { recursive: true, force: true })
      }
    },
  },
  E_PATH_OUTSIDE_ROOT: { where: 'test/host/host-call.test.ts inside_root', trigger: () => callCode({ name: 'inside_root', arguments: '{"path": "../../outside"}' }) },
  E_CONTROL_PLANE: { where: 'test/workspace/control-plane.test.ts, test/plugins/files-control-plane.test.ts', trigger: () => thrownCode(() => refuseControlPlane({ paths: ['/w/config.yaml'], opened: [] }, '/w/config.yaml', 'config.yaml', false)) },
  E_TIMEOUT: { where: 'test/host/host-call.test.ts time limit', trigger: () => callCode({ name: 'hangs', arguments: '{}' }) },
  E_ABORTED: {
    where: 'test/host/host-call.test.ts interrupt',
    trigger: async () => {
      const controller = new AbortController()
      controller.abort()
      const [result] = await host.run([{ id: 'a', name: 'until_abort', arguments: '{}' }], { signal: controller.signal })
      return result!.error?.code
    },
  },
  E_INTERRUPTED: {
    where: 'test/host/host-call.test.ts interrupt',
    trigger: async () => {
      const controller = new AbortController()
      const stop = host.onEvent((event) => {
        if (event.type === 'started' && event.id === 'i') queueMicrotask(() => controller.abort())
      })
      try {
        const [result] = await host.run([{ id: 'i', name: 'until_abort', arguments: '{}' }], { signal: controller.signal })
        return result!.error?.code
      } finally {
        stop()
      }
    },
  },
  E_TOOL_FAILED: { where: 'test/host/host-call.test.ts run', trigger: () => callCode({ name: 'throws', arguments: '{}' }) },
  E_LIMIT: { where: 'a handler throwing it keeps the code (test/host/host-call.test.ts coded)', trigger: () => callCode({ name: 'coded', arguments: '{"code": "E_LIMIT"}' }) },
  E_NOT_FOUND: { where: 'a handler throwing it keeps the code (test/host/host-call.test.ts coded)', trigger: () => callCode({ name: 'coded', arguments: '{"code": "E_NOT_FOUND"}' }) },
  E_PLUGIN_LOAD: {
    where: 'test/loader/load-plugins.test.ts',
    trigger: async () => {
      const scratch = new ToolRegistry()
      const report = await loadPlugins(['test/fixtures/plugins/broken'], scratch)
      return report.failed.find((f) => f.file.endsWith('half.ts'))?.code
    },
  },
  E_DUPLICATE_TOOL: {
    where: 'test/registry/registry.test.ts register',
    trigger: () => {
      const scratch = new ToolRegistry()
      const tool = defineTool({ name: 'twice', description: 'd', parameters: { type: 'object' }, handler: () => '' })
      scratch.register(tool)
      return thrownCode(() => scratch.register(tool))
    },
  },
  E_SCHEMA_INVALID: {
    where: 'test/contract/define-tool.test.ts, test/registry/registry.test.ts',
    trigger: () => thrownCode(() => new ToolRegistry().register(defineTool({ name: 's', description: 'd', parameters: { type: 'object', properties: { a: { type: 'nope' } } }, handler: () => '' }))),
  },
  E_CONFIG_INVALID: { where: 'test/config/load-config.test.ts', trigger: () => thrownCode(() => parseConfigText('dispatch:\n  mode: fastest', 'config.yaml')) },
  E_USAGE: { where: 'test/cli/cli-core.test.ts', trigger: () => thrownCode(() => parseCliArgs(['list', '--no-such-option'])) },
  E_REQUEST_STATE_INVALID: { where: 'test/mcp/request-state.test.ts, test/mcp/modern.test.ts', trigger: () => openedCode((_seal, token) => `${token.slice(0, -2)}AA`) },
  E_REQUEST_STATE_EXPIRED: { where: 'test/mcp/request-state.test.ts', trigger: () => openedCode((_seal, token) => token, 1_000_000) },
  E_REQUEST_STATE_MISMATCH: { where: 'test/mcp/request-state.test.ts, test/mcp/modern.test.ts', trigger: () => openedCode((_seal, token) => token, 0, callDigest('other_tool', {})) },
  E_REQUEST_STATE_REPLAYED: {
    where: 'test/mcp/request-state.test.ts, test/mcp/modern.test.ts',
    trigger: () => openedCode(async (seal, token) => {
      await seal.open(token, STATE_BINDING)
      return token
    }),
  },
  E_HANDLER_FAILED: {
    where: 'test/registry/render-prompt.test.ts',
    trigger: async () => {
      const scratch = new ToolRegistry()
      scratch.register(definePrompt({ name: 'fails', description: 'd', handler: () => { throw new Error('broken') } }))
      return scratch.promptsAndResources.renderPrompt('fails').then(() => undefined, (error: unknown) => (isToolhostError(error) ? error.code : describeThrown(error)))
    },
  },
  E_STORE_UNAVAILABLE: {
    where: 'test/store/local-store.test.ts, test/dispatch/schedule/cross-host.test.ts',
    trigger: async () => {
      // A host sharing its root with another (so it asks the store), whose store folder is then a
      // link (never followed; a state file that is a folder is set aside instead: issue 32.3).
      const shared = mkdtempSync(path.join(os.tmpdir(), 'toolhost-errors-store-'))
      const other = new LocalStore({ root: shared, log: silentLogger })
      await other.open()
      const sharing = await createHost({ config: { plugins: { dirs: [] }, env_file: '' }, loadPlugins: false, root: shared, log: silentLogger })
      const folder = path.join(shared, '.toolhost', 'store')
      rmSync(folder, { recursive: true })
      const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'toolhost-errors-elsewhere-'))
      symlinkSync(elsewhere, folder)
      try {
        return (await sharing.call({ id: 's', name: 'echo', arguments: '{"text":"x"}' })).error?.code
      } finally {
        rmSync(folder)
        rmSync(elsewhere, { recursive: true, force: true })
        await sharing.close()
        await other.close()
        rmSync(shared, { recursive: true, force: true })
      }
    },
  },
}

describe('the error catalogue', () => {
  test('every code has a meaning', () => {
    for (const [code, meaning] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^E_[A-Z_]+$/)
      expect(meaning.length, code).toBeGreaterThan(15)
    }
  })

  test('the trigger table covers exactly the catalogue', () => {
    expect(Object.keys(TRIGGERS).sort()).toEqual(Object.keys(ERROR_CODES).sort())
  })

  test.each(Object.keys(ERROR_CODES) as ErrorCode[])('%s is produced by its trigger', async (code) => {
    expect(await TRIGGERS[code].trigger(), TRIGGERS[code].where).toBe(code)
  })
})

describe('ToolhostError', () => {
  test('carries its code, message, details and cause', () => {
    const cause = new Error('root cause')
    const error = new ToolhostError('E_CONFIG_INVALID', 'config.yaml: bad', { cause, details: { key: 'x' } })
    expect(error).toBeInstanceOf(Error)
    expect(error).toMatchObject({ name: 'ToolhostError', code: 'E_CONFIG_INVALID', message: 'config.yaml: bad', details: { key: 'x' }, cause })
  })

  test('isToolhostError knows an error from another copy of the module by its brand, not instanceof', () => {
    const foreign = Object.assign(new Error('from a plugin copy'), { code: 'E_NOT_FOUND' })
    Object.defineProperty(foreign, Symbol.for('toolhost.error'), { value: true })
    expect(isToolhostError(foreign)).toBe(true)
    expect(isToolhostError(Object.assign(new Error('x'), { code: 'E_NOT_FOUND' }))).toBe(false)
    expect(isToolhostError(null)).toBe(false)
    expect(isToolhostError('E_NOT_FOUND')).toBe(false)
  })

  test.each([
    ['E_TOOL_FAILED', true],
    ['E_MADE_UP', false],
    ['toString', false],
    [42, false],
  ])('isErrorCode(%j) is %s', (code, expected) => {
    expect(isErrorCode(code)).toBe(expected)
  })

  test.each([
    [new Error('plain'), 'plain'],
    [new TypeError(''), 'TypeError'],
    ['a string', 'a string'],
    [{ reason: 'object' }, '{"reason":"object"}'],
    [undefined, 'undefined'],
    [10n, '10'],
  ])('describeThrown(%s) is %j', (thrown, message) => {
    expect(describeThrown(thrown)).toBe(message)
  })
})
