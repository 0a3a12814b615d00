/**
 * Live limits: a changed config.yaml gives a running host new limits for calls not yet started; a
 * bad file is rejected with its file and key, and the limits in force stay.
 */
import { internalsOf } from '../../src/host/host.js'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import { createDeferred, type Deferred } from '../../src/contract/deferred.js'
import { defineTool } from '../../src/contract/define-tool.js'
import { createHost } from '../../src/host/create-host.js'
import type { Host } from '../../src/host/host.js'
import { createLogger } from '../../src/contract/logger.js'
import { reloadConfig } from '../../src/loader/watch-config.js'
import { ToolRegistry } from '../../src/registry/registry.js'

const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-watch-config-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const hosts: Host[] = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close()
})

/** A host on `dir` with config file `name`, a gated tool, and its log lines. */
async function hostWith(name: string, yaml: string, options: { watch?: boolean } = {}) {
  const file = path.join(dir, name)
  writeFileSync(file, yaml)
  const lines: string[] = []
  const gates: Deferred<void>[] = []
  const registry = new ToolRegistry()
  registry.register(defineTool({ name: 'held', description: 'Waits for the test.', parameters: { type: 'object' }, parallelSafe: true, handler: async (_args, ctx) => {
    const gate = createDeferred<void>()
    gates.push(gate)
    ctx.call.signal.addEventListener('abort', () => gate.resolve(), { once: true })
    await gate.promise
    return 'done'
  } }))
  const host = await createHost({ config: file, root: dir, cwd: dir, registry, loadPlugins: false, watch: options.watch ?? false, log: createLogger('info', (line) => lines.push(line)), env: {} })
  hosts.push(host)
  return { host, file, lines, gates }
}

const base = 'env_file: ""\npermissions: { mode: bypass }\n'
const dispatch = (keys = ''): string => `dispatch: { duration_estimates: ""${keys === '' ? '' : `, ${keys}`} }\n`

describe('reloadConfig: one reload of config.yaml', () => {
  test('live keys apply to calls not yet started; a call already running keeps its timeout', async () => {
    const { host, file, lines, gates } = await hostWith('live.yaml', `${base}${dispatch('max_workers: 1, timeout_ms: 60000')}`)
    const first = host.run([{ id: 'first', name: 'held', arguments: {} }])
    const second = host.run([{ id: 'second', name: 'held', arguments: {} }])
    while (gates.length < 1) await new Promise((r) => setImmediate(r))
    const before = host.config
    writeFileSync(file, `${base}${dispatch('max_workers: 2, timeout_ms: 30')}rate_limits: { held: { concurrency: 5 } }\n`)
    const outcome = reloadConfig(host, file, before)
    expect(outcome.kind).toBe('applied')
    expect(host.maxWorkers).toBe(2)
    expect(host.config.dispatch.timeout_ms).toBe(30)
    expect(internalsOf(host).pool.rateRules.map((r) => r.key)).toEqual(['held'])
    // The waiting call started under the new limits: a second worker, and the 30 ms timeout.
    const [late] = await second
    expect(late).toMatchObject({ ok: false, error: { code: 'E_TIMEOUT', message: expect.stringMatching(/^timed out after 30 ms running held/) } })
    gates[0]!.resolve()
    const [early] = await first
    expect(early).toMatchObject({ ok: true, content: 'done' })
    expect(lines.join('\n')).toMatch(/live\.yaml reloaded: dispatch\.max_workers 1 → 2, dispatch\.timeout_ms 60000 → 30, rate_limits \{\} → \{"held":\{"concurrency":5\}\}; in force for calls not yet started/)
  })

  test('a bad file is rejected naming the file and the key; the limits in force stay', async () => {
    const { host, file, lines } = await hostWith('bad.yaml', `${base}${dispatch('max_workers: 3')}`)
    const before = host.config
    writeFileSync(file, `${base}${dispatch('max_workers: 0')}`)
    const outcome = reloadConfig(host, file, before)
    expect(outcome).toMatchObject({ kind: 'rejected' })
    expect(lines.join('\n')).toContain(`toolhost error: ${file}: key \`dispatch.max_workers\`: must be >= 1, got 0; the config in force is unchanged`)
    expect(host.maxWorkers).toBe(3)
    expect(host.config).toBe(before)
  })

  test('a key that needs a restart is logged as such and not applied', async () => {
    const { host, file, lines } = await hostWith('restart.yaml', `${base}${dispatch()}`)
    const before = host.config
    writeFileSync(file, `${base}${dispatch()}search_files: { max_results: 5 }\n`)
    expect(reloadConfig(host, file, before)).toMatchObject({ kind: 'applied', change: { live: [], restart: ['search_files.max_results'] } })
    expect(host.config.search_files.max_results).toBe(200)
    expect(lines.join('\n')).toContain(`toolhost warn: ${file}: search_files.max_results changed; it takes effect on restart`)
  })

  test('TOOLHOST_MAX_WORKERS stays in force over a reloaded max_workers', async () => {
    const file = path.join(dir, 'env.yaml')
    writeFileSync(file, `${base}${dispatch('max_workers: 3')}`)
    const host = await createHost({ config: file, root: dir, cwd: dir, registry: new ToolRegistry(), loadPlugins: false, log: createLogger('error', () => {}), env: { TOOLHOST_MAX_WORKERS: '5' } })
    hosts.push(host)
    const before = host.config
    writeFileSync(file, `${base}${dispatch('max_workers: 1')}`)
    reloadConfig(host, file, before)
    expect(host.maxWorkers).toBe(5)
  })
})

describe('watchConfig: the file is watched when plugins.watch (or serve --watch) is on', () => {
  test('a saved change reaches the running host', async () => {
    const { host, file } = await hostWith('watched.yaml', `${base}${dispatch('max_workers: 2')}`, { watch: true })
    const watcher = host.services.configWatcher
    expect(watcher).toBeDefined()
    writeFileSync(file, `${base}${dispatch('max_workers: 6')}`)
    const until = Date.now() + 15_000
    while (host.maxWorkers !== 6) {
      if (Date.now() > until) throw new Error(`max_workers is still ${host.maxWorkers}`)
      await new Promise((r) => setTimeout(r, 20))
      await watcher!.idle()
    }
    expect(watcher!.loaded.dispatch.max_workers).toBe(6)
  })

  test('a name in the saved file that matches no tool is warned about, with the near name, as at start-up', async () => {
    const { host, file, lines } = await hostWith('names.yaml', `${base}${dispatch()}`, { watch: true })
    expect(lines.filter((line) => line.includes('names no'))).toEqual([])
    writeFileSync(file, `${base}${dispatch()}rate_limits: { hled: { concurrency: 1 } }\n`)
    const until = Date.now() + 15_000
    while (!lines.some((line) => line.includes('rate_limits.hled'))) {
      if (Date.now() > until) throw new Error(`no warning about hled in:\n${lines.join('\n')}`)
      await new Promise((r) => setTimeout(r, 20))
      await host.services.configWatcher!.idle()
    }
    const warning = lines.find((line) => line.includes('rate_limits.hled'))!
    expect(warning).toContain(`${file}: `)
    expect(warning).toContain('rate_limits.hled')
    expect(warning).toMatch(/did you mean[^\n]*held/i)
  })

  test('without a watch switch there is no watcher', async () => {
    const { host } = await hostWith('plain.yaml', `${base}${dispatch()}`)
    expect(host.services.configWatcher).toBeUndefined()
  })
})
