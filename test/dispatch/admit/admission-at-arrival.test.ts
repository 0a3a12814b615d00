// Slow checks stall no one (issue 12, item 5): calls take their places in the schedule when they
// arrive; a tool's permission check or availability check that never settles costs its own calls
// only (each is refused once its time limit passes), another client's unrelated call is answered
// meanwhile, and conflicting calls still run in arrival order. Driven by deferreds, not sleeps.
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { createDeferred } from '../../../src/contract/deferred.js'
import { createHost, defineTool, registry, type Host, type PermissionResult, type ToolResult } from '../../../src/index.js'
import { silentLogger } from '../../../src/contract/logger.js'
import { makeRoot } from '../../fixtures/permissions/tools.js'

let root: string
let cleanup: () => void
let host: Host
const order: string[] = []

beforeEach(() => {
  ;({ root, cleanup } = makeRoot())
  order.length = 0
  registry.register(defineTool({
    name: 'quick',
    description: 'Answers at once.',
    parameters: { type: 'object' },
    parallelSafe: true,
    readOnly: () => true,
    handler: () => 'quick answered',
  }))
  registry.register(defineTool({
    name: 'note',
    description: 'Writes a note at `path` (records that it ran).',
    parameters: { type: 'object', properties: { path: { type: 'string' }, label: { type: 'string' } }, required: ['path'] },
    pathScoped: true,
    handler: (args: { path: string; label?: string }) => {
      order.push(args.label ?? args.path)
      return `wrote ${args.path}`
    },
  }))
})

afterEach(async () => {
  await host?.close()
  registry.clear()
  cleanup()
})

function open(config: Record<string, unknown> = {}): Promise<Host> {
  return createHost({ root, loadPlugins: false, log: silentLogger, config: { env_file: '', permissions: { mode: 'bypass', check_timeout_ms: 1000 }, availability: { check_timeout_ms: 1000 }, ...config } })
}

// Marks when `pending` settles, to prove something was answered while it had not.
function watch(pending: Promise<ToolResult[]>): { settled: () => boolean } {
  let settled = false
  void pending.then(() => (settled = true))
  return { settled: () => settled }
}

describe('a permission check that never settles', () => {
  test('denies its own call once permissions.check_timeout_ms passes; another client\'s unrelated call is answered meanwhile', async () => {
    const entered = createDeferred<void>()
    registry.register(defineTool({
      name: 'hangs_check',
      description: 'Its permission check never answers.',
      parameters: { type: 'object' },
      parallelSafe: true,
      checkPermissions: (): Promise<PermissionResult> => {
        entered.resolve()
        return new Promise<PermissionResult>(() => undefined)
      },
      handler: () => 'must not run',
    }))
    host = await open()
    const slow = host.run([{ id: 'slow', name: 'hangs_check', arguments: {} }])
    const slowState = watch(slow)
    await entered.promise
    const [other] = await host.run([{ id: 'other', name: 'quick', arguments: {} }])
    expect(other).toMatchObject({ ok: true, content: 'quick answered' })
    expect(slowState.settled()).toBe(false)
    const [refused] = await slow
    expect(refused).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(refused!.content).toBe('hangs_check did not run: its permission check did not answer within 1000 ms (permissions.check_timeout_ms); this is a fault in the tool, not in your call')
  })

  test('the check gets an abort when its time is up', async () => {
    const aborted = createDeferred<unknown>()
    registry.register(defineTool({
      name: 'listens',
      description: 'Its permission check waits for its abort.',
      parameters: { type: 'object' },
      parallelSafe: true,
      checkPermissions: (_args, ctx) => new Promise<PermissionResult>(() => ctx.call.signal.addEventListener('abort', () => aborted.resolve(ctx.call.signal.reason))),
      handler: () => 'must not run',
    }))
    host = await open({ permissions: { mode: 'bypass', check_timeout_ms: 50 } })
    const [result] = await host.run([{ id: 'l', name: 'listens', arguments: {} }])
    expect(result!.error?.code).toBe('E_DENIED')
    expect(String((await aborted.promise as Error).message)).toContain('ran out of time (50 ms)')
  })

  test('a later conflicting call still waits for it, in arrival order', async () => {
    const entered = createDeferred<void>()
    const answer = createDeferred<PermissionResult>()
    registry.register(defineTool({
      name: 'slow_note',
      description: 'Writes like note, after a permission check we control.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      pathScoped: true,
      checkPermissions: () => {
        entered.resolve()
        return answer.promise
      },
      handler: (args: { path: string }) => {
        order.push('slow_note')
        return `wrote ${args.path}`
      },
    }))
    host = await open()
    const first = host.run([{ id: 'first', name: 'slow_note', arguments: { path: 'shared.txt' } }])
    await entered.promise
    const second = host.run([{ id: 'second', name: 'note', arguments: { path: 'shared.txt', label: 'note' } }])
    const unrelated = await host.run([{ id: 'u', name: 'note', arguments: { path: 'elsewhere.txt', label: 'unrelated' } }])
    expect(unrelated[0]!.ok).toBe(true)
    const secondState = watch(second)
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    expect(secondState.settled()).toBe(false)
    answer.resolve({ behavior: 'allow' })
    expect((await first)[0]!.ok).toBe(true)
    expect((await second)[0]!.ok).toBe(true)
    expect(order).toEqual(['unrelated', 'slow_note', 'note'])
  })

  test('new arguments from the check may narrow the call, never widen what it was scheduled to touch', async () => {
    registry.register(defineTool({
      name: 'redirects',
      description: 'Its permission check sends the write elsewhere.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      pathScoped: true,
      checkPermissions: (args: { path: string }): PermissionResult => ({ behavior: 'allow', updatedArgs: { path: args.path === 'dir' ? 'dir/inner.txt' : 'other.txt' } }),
      handler: (args: { path: string }) => `wrote ${args.path}`,
    }))
    host = await open()
    const [widened, narrowed] = await host.run([
      { id: 'w', name: 'redirects', arguments: { path: 'a.txt' } },
      { id: 'n', name: 'redirects', arguments: { path: 'dir' } },
    ])
    expect(widened).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(widened!.content).toContain('its permission check changed the arguments so that the call would touch more than it was scheduled for')
    expect(narrowed).toMatchObject({ ok: true, content: 'wrote dir/inner.txt' })
  })

  test('a fault while deciding one call refuses that call alone, not its batch', async () => {
    registry.register(defineTool({
      name: 'odd_say',
      description: 'Its permission check returns arguments that throw when read.',
      parameters: { type: 'object' },
      parallelSafe: true,
      checkPermissions: (): PermissionResult => ({
        behavior: 'allow',
        updatedArgs: Object.defineProperty({}, 'boom', { enumerable: true, get: () => { throw new Error('a getter in the arguments') } }) as Record<string, unknown>,
      }),
      handler: () => 'must not run',
    }))
    host = await open()
    const [odd, fine] = await host.run([
      { id: 'odd', name: 'odd_say', arguments: {} },
      { id: 'fine', name: 'quick', arguments: {} },
    ])
    expect(odd).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(odd!.content).toContain('a getter in the arguments')
    expect(fine).toMatchObject({ ok: true, content: 'quick answered' })
  })
})

describe('an availability check that never settles', () => {
  test('hides its tool once availability.check_timeout_ms passes; another call is answered meanwhile', async () => {
    const entered = createDeferred<void>()
    registry.register(defineTool({
      name: 'hangs_available',
      description: 'Its availability check never answers.',
      parameters: { type: 'object' },
      parallelSafe: true,
      check: () => {
        entered.resolve()
        return new Promise<boolean>(() => undefined)
      },
      handler: () => 'must not run',
    }))
    host = await open({ availability: { check_timeout_ms: 300 } })
    const slow = host.run([{ id: 'slow', name: 'hangs_available', arguments: {} }])
    const slowState = watch(slow)
    await entered.promise
    const [other] = await host.run([{ id: 'other', name: 'quick', arguments: {} }])
    expect(other!.ok).toBe(true)
    expect(slowState.settled()).toBe(false)
    const [hidden] = await slow
    expect(hidden!.error).toMatchObject({ code: 'E_TOOL_UNAVAILABLE', message: expect.stringMatching(/^hangs_available is not available right now \(check took longer than 300 ms\); use another tool\./) })
  })
})
