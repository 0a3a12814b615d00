/**
 * Rules see every path the scheduler reserves: a path-scoped tool without a `scope` of its own
 * touches its `path` and its `paths` (an untrusted MCP tool named in dispatch.path_scoped is one). A
 * rule that allowed `src/**` used to look at `path` alone, so `paths: ['.env']` passed under it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import { createHost, defineTool, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { ToolRegistry } from '../../src/registry/registry.js'

const root = mkdtempSync(path.join(os.tmpdir(), 'toolhost-paths-argument-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let host: Host | undefined
afterEach(async () => {
  await host?.close()
  host = undefined
})

// No scope, not read-only: named in dispatch.path_scoped, its path and paths count as writes.
const touchFiles = defineTool({
  name: 'touch_files',
  description: 'Touches files.',
  parameters: { type: 'object', properties: { path: { type: 'string' }, paths: { type: 'array', items: { type: 'string' } } } },
  handler: () => 'touched',
})

async function hostWith(permissions: Record<string, unknown>): Promise<Host> {
  const registry = new ToolRegistry()
  registry.register(touchFiles)
  return createHost({
    root,
    registry,
    loadPlugins: false,
    log: silentLogger,
    audit: false,
    config: { env_file: '', dispatch: { path_scoped: ['touch_files'], duration_estimates: '' }, permissions: { mode: 'ask', ...permissions } },
  })
}

describe('a rule is judged on path and paths alike', () => {
  test.each([
    ['an allow rule for src/** does not cover paths outside it', { allow: ['touch_files(src/**)'] }, { path: 'src/a.ts', paths: ['.env'] }, 'E_DENIED'],
    ['an allow rule for src/** covers path and paths inside it', { allow: ['touch_files(src/**)'] }, { path: 'src/a.ts', paths: ['src/b.ts'] }, undefined],
    ['a deny rule for .env matches it in paths', { allow: ['touch_files'], deny: ['touch_files(.env)'] }, { path: 'src/a.ts', paths: ['.env'] }, 'E_DENIED'],
    ['paths alone, inside the allowed folder, runs', { allow: ['touch_files(src/**)'] }, { paths: ['src/a.ts', 'src/b.ts'] }, undefined],
  ])('%s', async (_why, permissions, args, code) => {
    host = await hostWith(permissions)
    const [result] = await host.run([{ id: 'c1', name: 'touch_files', arguments: args }])
    expect(result!.error?.code).toBe(code)
    if (code === undefined) expect(result!.content).toBe('touched')
  })

  test('the scheduler reserves the same paths: a write of .env waits for the call that writes it in paths', async () => {
    host = await hostWith({ mode: 'bypass' })
    const plan = await host.explain([
      { id: 'a', name: 'touch_files', arguments: { path: 'src/a.ts', paths: ['.env'] } },
      { id: 'b', name: 'touch_files', arguments: { path: '.env' } },
    ])
    expect(plan.calls[1]!.waitsFor.map((w) => w.id)).toEqual(['a'])
  })
})
