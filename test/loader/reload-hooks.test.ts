// Hooks a plugin registers (defineHook): run after config.yaml's and the embedding's, replaced when
// their file changes and removed when it goes (src/loader/watch-plugins.ts reloadFile), and every
// decision a `hook` event, an audit line, and a name in `explain`. Read through what the model gets.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { reloadFile } from '../../src/loader/watch-plugins.js'
import { createHost, defineTool, registry, type Host, type HostEvent } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'

const guard = (reason: string): string => `import { defineHook, registry } from 'toolhost'
registry.register(defineHook({
  event: 'before_call', tools: 'note_*', name: 'no-vendor',
  run: (call) => (String(call.arguments.path).startsWith('vendor/') ? { decision: 'deny', reason: ${JSON.stringify(reason)} } : undefined),
}))
registry.register(defineHook({ event: 'after_call', tools: ['note_write'], name: 'stamp', run: (call) => ({ content: call.result.content + ' (stamped)' }) }))
`

describe('hooks a plugin registers', () => {
  let root: string
  let file: string
  let host: Host
  const events: HostEvent[] = []
  beforeEach(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-plugin-hooks-')))
    file = path.join(root, 'plugins', 'guard.ts')
    registry.register(defineTool({ name: 'note_write', description: 'Write a note.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, handler: (args: { path: string }) => `wrote ${args.path}` }))
    const { mkdirSync } = await import('node:fs')
    mkdirSync(path.dirname(file))
    writeFileSync(file, guard('nothing is written under vendor/'))
    host = await createHost({
      root,
      log: silentLogger,
      plugins: [path.join(root, 'plugins')],
      config: { env_file: '', plugins: { builtins: false, dirs: [] }, permissions: { mode: 'bypass' }, hooks: { before_call: [{ tools: 'note_write', command: 'cat >/dev/null' }], after_call: [] } },
      hooks: { beforeCall: [{ tools: 'note_*', name: 'the app', run: () => undefined }] },
    })
    host.onEvent((e) => events.push(e))
  })
  afterEach(async () => {
    await host.close()
    registry.unregisterSource(file)
    registry.unregister('note_write')
    events.length = 0
    rmSync(root, { recursive: true, force: true })
  })

  test('deny a call with the reason the model reads, after config.yaml\'s and the embedding\'s hooks; rewrite results after a call', async () => {
    const [vendor, src] = await host.run([
      { id: 'v', name: 'note_write', arguments: { path: 'vendor/a.js' } },
      { id: 's', name: 'note_write', arguments: { path: 'src/a.js' } },
    ])
    expect(vendor).toMatchObject({ ok: false, error: { code: 'E_DENIED' }, content: 'note_write did not run: the hook "no-vendor" denied it: nothing is written under vendor/' })
    expect(src).toMatchObject({ ok: true, content: 'wrote src/a.js (stamped)' })
    const hookEvents = events.filter((e): e is Extract<HostEvent, { type: 'hook' }> => e.type === 'hook').map((e) => [e.id, e.event, e.hook, e.decision])
    expect(hookEvents.filter(([id]) => id === 'v')).toEqual([
      ['v', 'before_call', 'hooks.before_call[0]', 'allow'],
      ['v', 'before_call', 'the app', 'allow'],
      ['v', 'before_call', '"no-vendor"', 'deny'],
    ])
    expect(hookEvents.filter(([id]) => id === 's').map(([, event, hook]) => `${event} ${hook}`)).toEqual(['before_call hooks.before_call[0]', 'before_call the app', 'before_call "no-vendor"', 'after_call "stamp"'])
    await host.close() // the audit log is written when the host closes
    const audit = readFileSync(path.join(root, '.toolhost/audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(audit.filter((l) => l.by === 'hook' && l.callId === 'v').map((l) => [l.hook, l.decision, l.reason])).toContainEqual(['before_call "no-vendor"', 'deny', 'note_write did not run: the hook "no-vendor" denied it: nothing is written under vendor/'])
  })

  test('explain names the hooks a call would go through, in order, and runs none', async () => {
    const plan = await host.explain([{ id: 'v', name: 'note_write', arguments: { path: 'vendor/a.js' } }])
    expect(plan.calls[0]!.hooks).toEqual(['before_call hooks.before_call[0]', 'before_call the app', 'before_call "no-vendor"', 'after_call "stamp"'])
    expect(events.filter((e) => e.type === 'hook')).toEqual([])
  })

  test('a changed file replaces its hooks, a broken version keeps them, and a removed file takes them away', async () => {
    const vendorWrite = async (id: string) => (await host.call({ id, name: 'note_write', arguments: { path: 'vendor/a.js' } })).content
    writeFileSync(file, guard('vendor/ is read-only this week'))
    expect(await reloadFile(file, registry)).toMatchObject({ kind: 'reloaded' })
    expect(await vendorWrite('1')).toBe('note_write did not run: the hook "no-vendor" denied it: vendor/ is read-only this week')
    writeFileSync(file, `${guard('v3')}throw new Error('v3 is broken')\n`)
    expect(await reloadFile(file, registry)).toMatchObject({ kind: 'failed' })
    expect(await vendorWrite('2')).toBe('note_write did not run: the hook "no-vendor" denied it: vendor/ is read-only this week')
    rmSync(file)
    expect(await reloadFile(file, registry)).toMatchObject({ kind: 'removed' })
    expect(await vendorWrite('3')).toBe('wrote vendor/a.js')
    expect(registry.hooks.list()).toEqual([])
  })
})
