import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { defineTool, registry, type AuditEntry } from '../../src/index.js'
import { AuditLog } from '../../src/permissions/audit.js'
import { makeRoot, permissionHost, recordingApprover, registerFixtureTools } from '../fixtures/permissions/tools.js'

function cleanupDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}

function readLines(file: string): AuditEntry[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as AuditEntry)
}

describe('the audit log', () => {
  let root: string
  let cleanup: () => void
  beforeEach(() => {
    ;({ root, cleanup } = makeRoot())
    registerFixtureTools()
  })
  afterEach(() => {
    registry.clear()
    cleanup()
  })

  test('every decision is one JSON line: call id, tool, canonical arguments, decision, who decided, when', async () => {
    const person = recordingApprover((r) => (r.callId === 'asked-no' ? { decision: 'deny', message: 'not today', by: 'test' } : { decision: 'allow-once', by: 'test' }))
    const host = await permissionHost(root, { mode: 'ask', allow: ['terminal(git status*)'], deny: ['read_note(**/*.pem)'] }, { approve: person.approve })
    const before = Date.now()
    await host.run([
      { id: 'read', name: 'read_note', arguments: { path: 'src/../a.txt' } },
      { id: 'rule-allow', name: 'terminal', arguments: '{"command":"git status"}' },
      { id: 'rule-deny', name: 'read_note', arguments: { path: 'k/server.pem' } },
      { id: 'asked-yes', name: 'lookup', arguments: { q: 'x', n: 1 } },
      { id: 'asked-no', name: 'write_note', arguments: { path: 'b.txt', content: 'hi' } },
    ])
    await host.close()
    const lines = readLines(path.join(root, '.toolhost', 'audit.jsonl'))
    const brief = lines.map((l) => [l.callId, l.tool, l.decision, l.by, l.rule ?? null])
    expect(brief).toEqual([
      ['read', 'read_note', 'allow', 'mode', null],
      ['rule-allow', 'terminal', 'allow', 'rule', 'permissions.allow[0] terminal(git status*)'],
      ['rule-deny', 'read_note', 'deny', 'rule', 'permissions.deny[0] read_note(**/*.pem)'],
      ['asked-yes', 'lookup', 'ask', 'mode', null],
      ['asked-no', 'write_note', 'ask', 'mode', null],
      ['asked-yes', 'lookup', 'allow-once', 'person', null],
      ['asked-no', 'write_note', 'deny', 'person', null],
    ])
    const byId = (id: string, decision: string) => lines.find((l) => l.callId === id && l.decision === decision)!
    expect(byId('read', 'allow')).toMatchObject({ args: { path: 'src/../a.txt' }, subject: 'a.txt', mode: 'ask' })
    expect(JSON.stringify(byId('asked-yes', 'ask').args)).toBe('{"n":1,"q":"x"}') // keys sorted
    expect(byId('asked-yes', 'allow-once').answeredBy).toBe('test')
    expect(byId('asked-no', 'deny').reason).toContain('not today')
    for (const line of lines) {
      expect(Date.parse(line.time)).toBeGreaterThanOrEqual(before - 1000)
      expect(line.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(line.reason.length).toBeGreaterThan(0)
    }
  })

  test('a denial for want of someone to ask is logged with why', async () => {
    const host = await permissionHost(root, { mode: 'ask', audit_log: 'logs/perm.jsonl' })
    await host.run([{ id: 'w', name: 'write_note', arguments: { path: 'b.txt' } }])
    await host.close()
    const lines = readLines(path.join(root, 'logs', 'perm.jsonl'))
    expect(lines.map((l) => [l.decision, l.by])).toEqual([
      ['ask', 'mode'],
      ['deny', 'no-approver'],
    ])
    expect(lines[1]!.reason).toContain('no one could be asked')
  })

  test('long strings are cut so a big file write does not copy itself into the log', async () => {
    const host = await permissionHost(root, { mode: 'bypass' })
    await host.run([{ id: 'w', name: 'write_note', arguments: { path: 'b.txt', content: 'x'.repeat(10_000) } }])
    await host.close()
    const [line] = readLines(path.join(root, '.toolhost', 'audit.jsonl'))
    const content = (line!.args as { content: string }).content
    expect(content.length).toBeLessThan(2100)
    expect(content).toContain('…[+8000 chars]')
  })

  test('lines are appended across hosts, in order', async () => {
    for (const id of ['first', 'second']) {
      const host = await permissionHost(root, { mode: 'bypass' })
      await host.run([{ id, name: 'read_note', arguments: { path: 'a' } }])
      await host.close()
    }
    expect(readLines(path.join(root, '.toolhost', 'audit.jsonl')).map((l) => l.callId)).toEqual(['first', 'second'])
  })

  test('a workspace deleted before the write is not re-created by the log', async () => {
    const gone = path.join(root, 'scratch')
    mkdirSync(gone)
    const errors: string[] = []
    const audit = new AuditLog(path.join(gone, '.toolhost', 'audit.jsonl'), { root: gone, onError: (e) => errors.push(e.message) })
    audit.record({ time: new Date().toISOString(), callId: 'c', tool: 't', args: {}, subject: '', decision: 'allow', by: 'mode', mode: 'ask', reason: 'r' })
    cleanupDir(gone)
    await audit.flush()
    expect(existsSync(gone)).toBe(false)
    expect(errors).toEqual([])
  })

  test('record only buffers; the write happens after, and a failed write is reported once and never throws', async () => {
    const blocker = path.join(root, 'not-a-dir')
    writeFileSync(blocker, '')
    const errors: string[] = []
    const audit = new AuditLog(path.join(blocker, 'audit.jsonl'), { onError: (e) => errors.push(e.message) })
    const entry: AuditEntry = { time: new Date().toISOString(), callId: 'c', tool: 't', args: {}, subject: '', decision: 'allow', by: 'mode', mode: 'ask', reason: 'r' }
    audit.record(entry)
    audit.record(entry)
    await audit.flush()
    audit.record(entry)
    await audit.flush()
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/could not be written/)

    mkdirSync(path.join(root, 'ok'))
    const good = new AuditLog(path.join(root, 'ok', 'audit.jsonl'), { onError: (e) => errors.push(e.message) })
    good.record(entry)
    expect(existsSync(good.file)).toBe(false) // not written synchronously
    await good.flush()
    expect(readLines(good.file)).toEqual([entry])
  })

  test('a burst larger than the write chunk is written whole and in order, long and non-ASCII lines included', async () => {
    const audit = new AuditLog(path.join(root, '.toolhost', 'audit.jsonl'), { root, onError: (e) => expect.fail(e.message) })
    const entry = (i: number, reason: string): AuditEntry => ({ time: new Date(0).toISOString(), callId: `c${i}`, tool: 't', args: { i }, subject: '', decision: 'allow', by: 'mode', mode: 'ask', reason })
    const entries = Array.from({ length: 5000 }, (_, i) => entry(i, i === 2500 ? 'x'.repeat(300_000) : `reason ${i} — ✓ 日本`))
    for (const e of entries) audit.record(e)
    await audit.flush()
    for (const e of entries.slice(0, 10)) audit.recordDeferred({ toEntry: () => ({ ...e, callId: `again-${e.callId}` }) })
    await audit.flush()
    const lines = readLines(audit.file)
    expect(lines).toHaveLength(5010)
    expect(lines.slice(0, 5000)).toEqual(entries)
    expect(lines.slice(5000).map((l) => l.callId)).toEqual(entries.slice(0, 10).map((e) => `again-${e.callId}`))
  })

  test('the file kept open between appends must still be the file at the path: a rotated log is opened again, a link planted in its place is refused, and close leaves no descriptor', async () => {
    const file = path.join(root, '.toolhost', 'audit.jsonl')
    const errors: string[] = []
    const audit = new AuditLog(file, { root, onError: (e) => errors.push(e.message) })
    const entry = (id: string): AuditEntry => ({ time: new Date(0).toISOString(), callId: id, tool: 't', args: {}, subject: '', decision: 'allow', by: 'mode', mode: 'ask', reason: 'r' })
    // Descriptors of this process open on the log (Linux's /proc; elsewhere the count is not checked).
    const openOnLog = (): number | undefined => {
      if (!existsSync('/proc/self/fd')) return undefined
      return readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).startsWith(file)
        } catch {
          return false
        }
      }).length
    }
    audit.record(entry('first'))
    await audit.flush()
    expect([undefined, 1]).toContain(openOnLog())
    renameSync(file, `${file}.1`) // rotated by the operator
    audit.record(entry('second'))
    await audit.flush()
    expect(readLines(`${file}.1`).map((l) => l.callId)).toEqual(['first'])
    expect(readLines(file).map((l) => l.callId)).toEqual(['second'])
    const outside = path.join(root, 'outside.txt')
    writeFileSync(outside, 'untouched\n')
    rmSync(file)
    symlinkSync(outside, file)
    audit.record(entry('third'))
    await audit.flush()
    expect(readFileSync(outside, 'utf8')).toBe('untouched\n')
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/symbolic link/)
    await audit.close()
    expect([undefined, 0]).toContain(openOnLog())
  })

  test('a line serialised at write time says what was decided, even if the handler then changes its arguments', async () => {
    registry.register(
      defineTool<{ items: string[]; label: string; n: number }>({
        name: 'mutating',
        description: 'Changes its own arguments (a badly behaved tool).',
        parameters: { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } }, label: { type: 'string' }, n: { type: 'integer' } } },
        parallelSafe: true,
        handler: (args) => {
          args.items.push('added')
          args.label = 'changed'
          ;(args as Record<string, unknown>).extra = true
          return 'ok'
        },
      }),
    )
    const host = await permissionHost(root, { mode: 'bypass' })
    const before = Date.now()
    const results = await host.run([
      { id: 'm', name: 'mutating', arguments: '{"n":2,"label":"original","items":["a"]}' },
      { id: 'r', name: 'read_note', arguments: { path: 'a.txt' } },
    ])
    const after = Date.now()
    expect(results.map((r) => r.ok)).toEqual([true, true])
    await host.close()
    const [m, r] = readLines(path.join(root, '.toolhost', 'audit.jsonl'))
    expect(JSON.stringify(m!.args)).toBe('{"items":["a"],"label":"original","n":2}')
    expect(m!.subject).toBe('{"items":["a"],"label":"original","n":2}') // canonical JSON of the arguments as decided
    expect(m).toMatchObject({ callId: 'm', tool: 'mutating', decision: 'allow', by: 'mode', mode: 'bypass' })
    expect(r).toMatchObject({ callId: 'r', subject: 'a.txt', decision: 'allow' })
    expect(Date.parse(m!.time)).toBeGreaterThanOrEqual(before)
    expect(Date.parse(m!.time)).toBeLessThanOrEqual(after)
  })

  test('arguments that cannot be serialised (a BigInt) are refused at admission, alone, and never logged half', async () => {
    registry.register(defineTool({ name: 'anything', description: 'Takes anything.', parameters: { type: 'object' }, parallelSafe: true, handler: () => 'ran' }))
    const host = await permissionHost(root, { mode: 'bypass' })
    const [bad, good] = await host.run([
      { id: 'b', name: 'anything', arguments: { big: 10n } },
      { id: 'g', name: 'anything', arguments: { n: 1 } },
    ])
    await host.close()
    expect(bad).toMatchObject({ ok: false, error: { code: 'E_ARGS_INVALID' } })
    expect(bad!.content).toContain('`big` is a bigint')
    expect(good).toMatchObject({ ok: true, content: 'ran' })
  })
})
