// The handler's context is grouped (call, workspace, settings, services, report); the flat names of
// earlier releases read the same values. This file is where toolhost's own code reads the deprecated
// flat names on purpose (everywhere else reads the groups; npm run lint refuses them in src/ and plugins/).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect, test } from 'vitest'
import { createHost } from '../../src/host/create-host.js'
import { silentLogger } from '../../src/contract/logger.js'
import { ToolRegistry } from '../../src/registry/registry.js'
import { defineTool } from '../../src/contract/define-tool.js'
import type { ToolContext } from '../../src/contract/types.js'

test('a handler reads its call, workspace, settings and report from their groups, and the deprecated flat names agree', async () => {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-ctx-')))
  let seen: ToolContext | undefined
  const registry = new ToolRegistry()
  registry.register(defineTool({ name: 'look', description: 'looks at its context', parameters: { type: 'object', properties: {}, additionalProperties: false }, handler: (_args, ctx) => {
    seen = ctx
    ctx.report.progress('half', 1, 2)
    return 'ok'
  } }))
  const host = await createHost({ root, registry, loadPlugins: false, env: { FLAG: 'on' }, config: { env_file: '', permissions: { mode: 'bypass' } }, log: silentLogger })
  const progress: string[] = []
  host.onEvent((e) => e.type === 'progress' && progress.push(`${e.id} ${e.message}`))
  const [result] = await host.run([{ id: 'c1', name: 'look', arguments: '{}' }])
  await host.close()
  rmSync(root, { recursive: true, force: true })
  expect(result!.ok).toBe(true)
  const ctx = seen!
  expect([ctx.call.id, ctx.call.tool, ctx.call.signal.aborted]).toEqual(['c1', 'look', false])
  expect(ctx.workspace.root).toBe(root)
  expect(ctx.settings.env.FLAG).toBe('on')
  expect(ctx.settings.config.dispatch.max_workers).toBe(host.config.dispatch.max_workers)
  expect(progress).toEqual(['c1 half'])
  expect([ctx.callId, ctx.root, ctx.env, ctx.config, ctx.session, ctx.signal]).toEqual([ctx.call.id, ctx.workspace.root, ctx.settings.env, ctx.settings.config, ctx.workspace.session, ctx.call.signal])
})

test('a plugin written against the deprecated flat names still works: each name reads its group, ctx.progress and ctx.log report', async () => {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-ctx-')))
  let seen: ToolContext | undefined
  let flat: unknown[] = []
  const registry = new ToolRegistry()
  registry.register(defineTool({ name: 'old_style', description: 'reads only the flat names', parameters: { type: 'object', properties: {}, additionalProperties: false }, handler: (_args, ctx) => {
    seen = ctx
    flat = [ctx.callId, ctx.signal, ctx.root, ctx.session, ctx.config, ctx.env, ctx.log, ctx.progress]
    ctx.progress('old progress', 1, 2)
    ctx.log.info('old log line')
    return `${ctx.callId} in ${ctx.root} with FLAG=${ctx.env.FLAG}, cwd ${ctx.session.cwd}, ${ctx.config.dispatch.max_workers} workers, ${ctx.signal.aborted ? 'aborted' : 'running'}`
  } }))
  const host = await createHost({ root, registry, loadPlugins: false, env: { FLAG: 'on' }, config: { env_file: '', permissions: { mode: 'bypass' } }, log: silentLogger })
  const events: string[] = []
  host.onEvent((e) => {
    if (e.type === 'progress') events.push(`progress ${e.id} ${e.message} ${e.progress}/${e.total}`)
    if (e.type === 'log') events.push(`log ${e.id} ${e.level} ${e.message}`)
  })
  const [result] = await host.run([{ id: 'c7', name: 'old_style', arguments: '{}' }])
  const workers = host.config.dispatch.max_workers
  await host.close()
  rmSync(root, { recursive: true, force: true })
  expect(result!.content).toBe(`c7 in ${root} with FLAG=on, cwd ${root}, ${workers} workers, running`)
  const ctx = seen!
  expect(flat).toEqual([ctx.call.id, ctx.call.signal, ctx.workspace.root, ctx.workspace.session, ctx.settings.config, ctx.settings.env, ctx.report.log, ctx.report.progress])
  expect(flat[1]).toBe(ctx.call.signal)
  expect(flat[6]).toBe(ctx.report.log)
  expect(flat[7]).toBe(ctx.report.progress)
  expect(events).toEqual(['progress c7 old progress 1/2', 'log c7 info old log line'])
})
