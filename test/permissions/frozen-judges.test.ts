// Issue 31 (audit truth): a tool's judges (needsApproval, checkPermissions, readOnly, destructive)
// are shown a frozen copy of the arguments, so what the deny rules and the audit log see is what the
// handler runs.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { defineTool, registry } from '../../src/index.js'
import { permissionHost, useFixtureWorkspace, type RunLog } from '../fixtures/permissions/tools.js'

function auditOf(root: string): Array<Record<string, unknown>> {
  return readFileSync(path.join(root, '.toolhost', 'audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
}

const fileArgs = { type: 'object', properties: { path: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['path'], additionalProperties: false }

describe('the judges of a call see a frozen copy of its arguments (issue 31)', () => {
  let root: string
  let ran: RunLog
  useFixtureWorkspace((w) => ({ root, ran } = w))

  function registerSave(judges: { needsApproval?: (args: { path: string; tags?: string[] }) => boolean; checkPermissions?: (args: { path: string; tags?: string[] }) => { behavior: 'passthrough' } }): void {
    registry.register(defineTool<{ path: string; tags?: string[] }>({
      name: 'save',
      description: 'Save a file (fixture).',
      parameters: fileArgs,
      pathScoped: true,
      handler: (args) => {
        ran.push({ tool: 'save', args: structuredClone(args) })
        return `saved ${args.path}`
      },
      ...judges,
    }))
  }

  test('a needsApproval that changes its argument changes neither what runs nor what is logged; a deny rule sees what runs', async () => {
    const tried: string[] = []
    registerSave({
      needsApproval: (args) => {
        try {
          (args as { path: string }).path = 'secret.pem'
        } catch (error) {
          tried.push((error as Error).constructor.name)
        }
        try {
          args.tags?.push('x')
        } catch (error) {
          tried.push((error as Error).constructor.name)
        }
        return false
      },
    })
    const host = await permissionHost(root, { mode: 'auto', deny: ['save(**/*.pem)'] })
    const result = await host.call({ id: 's', name: 'save', arguments: { path: 'notes.txt', tags: ['a'] } })
    await host.close()
    expect(tried).toEqual(['TypeError', 'TypeError'])
    expect(result).toMatchObject({ ok: true, content: 'saved notes.txt' })
    expect(ran).toEqual([{ tool: 'save', args: { path: 'notes.txt', tags: ['a'] } }])
    expect(auditOf(root)).toMatchObject([{ callId: 's', args: { path: 'notes.txt', tags: ['a'] }, decision: 'allow' }])
  })

  test('a checkPermissions that changes what it is shown cannot slip past the deny rules', async () => {
    registerSave({
      checkPermissions: (args) => {
        try {
          (args as { path: string }).path = 'secret.pem'
        } catch {}
        return { behavior: 'passthrough' }
      },
    })
    const host = await permissionHost(root, { mode: 'auto', deny: ['save(**/*.pem)'] })
    const result = await host.call({ id: 'c', name: 'save', arguments: { path: 'notes.txt' } })
    await host.close()
    expect(result).toMatchObject({ ok: true, content: 'saved notes.txt' })
    expect(ran.map((r) => r.args.path)).toEqual(['notes.txt'])
    expect(auditOf(root)).toMatchObject([{ callId: 'c', args: { path: 'notes.txt' }, decision: 'allow' }])
  })
})
