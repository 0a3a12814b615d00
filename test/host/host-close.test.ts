// host.close() while calls are still being decided (issue 24 #12): whatever holds a call before it
// may run — its tool's permission check, its availability check, an authoriser that never decides,
// an approval that never comes — close() finishes within the interrupt grace and that call is
// answered E_ABORTED (it never ran), with words saying why. Time limits of the checks themselves are
// set far past vitest's test timeout, so without the fix these tests hang and fail. Driven by
// deferreds; nothing here sleeps or asserts a duration.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { createDeferred } from '../../src/contract/deferred.js'
import { createHost, defineTool, registry, type Authoriser, type Host, type HostOptions, type PermissionResult, type ToolResult } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { makeRoot } from '../fixtures/permissions/tools.js'

const NEVER = 3_600_000
const GRACE = 50
const CLOSED_UNDECIDED = `skipped: the host closed before the call's availability or permission was decided (nothing answered within the interrupt grace, dispatch.interrupt_grace_ms = ${GRACE} ms); it did not run`

let root: string
let cleanup: () => void
let host: Host | undefined
let ran: string[]

beforeEach(() => {
  ;({ root, cleanup } = makeRoot())
  ran = []
})

afterEach(async () => {
  await host?.close()
  host = undefined
  registry.clear()
  cleanup()
})

function open(options: Partial<HostOptions> = {}): Promise<Host> {
  return createHost({
    root,
    loadPlugins: false,
    log: silentLogger,
    config: { env_file: '', permissions: { mode: 'bypass', check_timeout_ms: NEVER }, availability: { check_timeout_ms: NEVER }, dispatch: { interrupt_grace_ms: GRACE } },
    ...options,
  })
}

function registerTool(name: string, extra: Partial<Parameters<typeof defineTool>[0]> = {}): void {
  registry.register(defineTool({
    name,
    description: `${name} (records that it ran).`,
    parameters: { type: 'object' },
    parallelSafe: true,
    handler: () => {
      ran.push(name)
      return `${name} ran`
    },
    ...extra,
  }))
}

// A hung check, a never-deciding authoriser, a gate that never opens: each holds its call undecided.
const HOLDERS: Array<[string, (entered: () => void) => Promise<Partial<HostOptions>>, string]> = [
  ['a permission check that never answers (and ignores its abort)', async (entered) => {
    registerTool('held', { checkPermissions: (): Promise<PermissionResult> => { entered(); return new Promise(() => undefined) } })
    return {}
  }, 'held did not run: the run was interrupted or the host closed while its permission check was running'],
  ['an availability check that never answers', async (entered) => {
    registerTool('held', { check: () => { entered(); return new Promise<boolean>(() => undefined) } })
    return {}
  }, CLOSED_UNDECIDED],
  ['an authoriser that never decides', async (entered) => {
    registerTool('held')
    const authoriser: Authoriser = { authorise: () => { entered(); return new Promise(() => undefined) } }
    return { authoriser }
  }, CLOSED_UNDECIDED],
  ['an approval gate that never opens (an authoriser asking someone who never answers)', async (entered) => {
    registerTool('held')
    const authoriser: Authoriser = {
      authorise: async (items) => items.map((item) => ({ run: true as const, args: item.args })),
      authoriseNow: (items) => {
        entered()
        return items.map((item) => ({ run: true as const, args: item.args, gate: new Promise<undefined>(() => undefined) }))
      },
    }
    return { authoriser }
  }, CLOSED_UNDECIDED],
]

describe('host.close() with a call still being decided', () => {
  test.each(HOLDERS)('%s: close() finishes and the call is answered E_ABORTED; a decided call beside it still runs', async (_name, setUp, message) => {
    const entered = createDeferred<void>()
    const options = await setUp(() => entered.resolve())
    registerTool('quick')
    host = await open(options)
    const held = host.run([{ id: 'h', name: 'held', arguments: {} }])
    await entered.promise
    const quick = host.run([{ id: 'q', name: 'quick', arguments: {} }])
    await host.close()
    const [result] = await held
    expect(result).toMatchObject({ id: 'h', ok: false, error: { code: 'E_ABORTED', message } })
    expect(result!.content).toBe(message)
    // The authoriser that never decides holds every call: there `quick` is held too.
    const [other] = await quick
    if (options.authoriser) expect(other).toMatchObject({ ok: false, error: { code: 'E_ABORTED' } })
    else expect(other).toMatchObject({ ok: true, content: 'quick ran' })
    expect(ran).toEqual(options.authoriser ? [] : ['quick'])
  })

  test('the audit log says why a call whose permission check was running did not run', async () => {
    const entered = createDeferred<void>()
    registerTool('held', { checkPermissions: (): Promise<PermissionResult> => { entered.resolve(); return new Promise(() => undefined) } })
    host = await open()
    const held = host.run([{ id: 'h', name: 'held', arguments: {} }])
    await entered.promise
    await host.close()
    await held
    const lines = readFileSync(path.join(root, '.toolhost/audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines).toEqual([expect.objectContaining({ callId: 'h', tool: 'held', decision: 'deny', reason: 'held did not run: the run was interrupted or the host closed while its permission check was running' })])
  })

  test('a permission check that listens sees its abort when the host closes', async () => {
    const reason = createDeferred<unknown>()
    const entered = createDeferred<void>()
    registerTool('held', {
      checkPermissions: (_args, ctx) => new Promise<PermissionResult>(() => {
        ctx.call.signal.addEventListener('abort', () => reason.resolve(ctx.call.signal.aborted))
        entered.resolve()
      }),
    })
    host = await open()
    const held = host.run([{ id: 'h', name: 'held', arguments: {} }])
    await entered.promise
    await host.close()
    expect(await reason.promise).toBe(true)
    expect((await held)[0]).toMatchObject({ error: { code: 'E_ABORTED' } })
  })

  test('an availability check that answers within the grace lets its call run', async () => {
    const entered = createDeferred<void>()
    const answer = createDeferred<boolean>()
    registerTool('held', { check: () => { entered.resolve(); return answer.promise } })
    host = await open({ config: { env_file: '', permissions: { mode: 'bypass' }, availability: { check_timeout_ms: NEVER }, dispatch: { interrupt_grace_ms: NEVER } } })
    const held = host.run([{ id: 'h', name: 'held', arguments: {} }])
    await entered.promise
    const closed = host.close()
    answer.resolve(true)
    await closed
    expect((await held)[0]).toMatchObject({ ok: true, content: 'held ran' })
  })

  test('calls already decided are not cut short: one waiting for a worker still runs', async () => {
    const release = createDeferred<void>()
    const started = createDeferred<void>()
    registerTool('slow', {
      handler: async () => {
        started.resolve()
        await release.promise
        ran.push('slow')
        return 'slow ran'
      },
    })
    registerTool('next')
    host = await open({ config: { env_file: '', permissions: { mode: 'bypass' }, dispatch: { max_workers: 1, interrupt_grace_ms: GRACE } } })
    const results: Promise<ToolResult[]> = host.run([{ id: 's', name: 'slow', arguments: {} }, { id: 'n', name: 'next', arguments: {} }])
    await started.promise
    const closed = host.close()
    release.resolve()
    await closed
    expect((await results).map((r) => r.content)).toEqual(['slow ran', 'next ran'])
  })
})
