/**
 * Footprints and the batch/partition decisions, on the examples of
 * ../shared/seeds/tool-orchestration.txt: Claude Code's partitioning (Read, Read, Write, Read,
 * Bash(rm) -> 4 groups) and the Hermes whole-batch rule.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { DispatchMode } from '../../../src/config/types.js'
import { defineTool } from '../../../src/contract/define-tool.js'
import { computeFootprint, conflictReason, isConcurrencySafe, type BehaviourSets, type Footprint } from '../../../src/dispatch/admit/footprint.js'
import { batchBlocker } from '../../../src/dispatch/admit/admit.js'
import { batchSerialReason, explainWaits, partitionGroups, planModeWaits, type PlanInput } from '../../../src/dispatch/schedule/plan.js'
import { createHost } from '../../../src/host/create-host.js'
import { silentLogger } from '../../../src/contract/logger.js'
import { registry } from '../../../src/registry/registry.js'
import type { AnyTool, ToolCall } from '../../../src/contract/types.js'

const anyArgs = { type: 'object', additionalProperties: true }
const handler = async (): Promise<string> => 'ok'

// The tools of the seed: Claude Code's Read/Write/Bash and Hermes's file tools, clarify, web_search.
const TOOLS: Record<string, AnyTool> = {
  Read: defineTool({ name: 'Read', description: 'read a file', parameters: anyArgs, handler, pathScoped: true, readOnly: () => true }),
  Write: defineTool({ name: 'Write', description: 'write a file', parameters: anyArgs, handler, pathScoped: true }),
  Bash: defineTool({ name: 'Bash', description: 'run a command', parameters: anyArgs, handler, destructive: () => true }),
  read_file: defineTool({ name: 'read_file', description: 'read', parameters: anyArgs, handler, pathScoped: true, parallelSafe: true, readOnly: () => true }),
  write_file: defineTool({ name: 'write_file', description: 'write', parameters: anyArgs, handler, pathScoped: true }),
  patch: defineTool({
    name: 'patch',
    description: 'patch files',
    parameters: anyArgs,
    handler,
    pathScoped: true,
    scope: (args: Record<string, unknown>) => (args.files as string[]).map((p) => ({ path: p, access: 'write' as const })),
  }),
  web_search: defineTool({ name: 'web_search', description: 'search', parameters: anyArgs, handler, parallelSafe: true, readOnly: () => true }),
  clarify: defineTool({ name: 'clarify', description: 'ask', parameters: anyArgs, handler, neverParallel: true }),
  cd: defineTool({ name: 'cd', description: 'change folder', parameters: anyArgs, handler, changesContext: true, parallelSafe: true }),
  mystery: defineTool({ name: 'mystery', description: 'declares nothing', parameters: anyArgs, handler }),
  keyed: defineTool({ name: 'keyed', description: 'a named resource', parameters: anyArgs, handler, pathScoped: true, scope: (args: Record<string, unknown>) => [{ key: String(args.key), access: 'write' as const }] }),
  broken_scope: defineTool({ name: 'broken_scope', description: 'scope throws', parameters: anyArgs, handler, pathScoped: true, scope: () => { throw new Error('no idea') } }),
}

let root: string
const noSets: BehaviourSets = { parallelSafe: new Set(), neverParallel: new Set(), pathScoped: new Set() }

function fp(name: string, args: Record<string, unknown> = {}, sets: BehaviourSets = noSets): Footprint {
  return computeFootprint(TOOLS[name]!, args, { root, caseInsensitive: false, sets })
}

type Step = [name: string, args?: Record<string, unknown>]

function plan(steps: Step[]): PlanInput[] {
  return steps.map(([name, args], i) => ({ id: `${i}:${name}`, footprint: fp(name, args ?? {}) }))
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-plan-')))
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('computeFootprint', () => {
  test.each<[string, string, Record<string, unknown>, Footprint['kind'], RegExp?]>([
    ['parallel-safe without paths is free', 'web_search', {}, 'free'],
    ['path-scoped reads args.path', 'Read', { path: 'a.txt' }, 'scoped'],
    ['never-parallel is a barrier', 'clarify', {}, 'barrier', /never-parallel/],
    ['a context-changing tool is a barrier, even if parallel-safe', 'cd', {}, 'barrier', /changes session context/],
    ['declaring nothing means serial (unknown means serial)', 'mystery', {}, 'barrier', /neither parallel-safe nor path-scoped/],
    ['path-scoped without a usable path is a barrier', 'Write', {}, 'barrier', /no usable `path`/],
    ['path-scoped with a non-string path is a barrier', 'Write', { path: 42 }, 'barrier', /no usable `path`/],
    ['a scope that throws is a barrier', 'broken_scope', {}, 'barrier', /could not be computed \(no idea\)/],
    ['a path with a NUL byte is a barrier', 'Read', { path: 'a\0b' }, 'barrier', /could not be resolved/],
  ])('%s', (_why, name, args, kind, reason) => {
    const footprint = fp(name, args)
    expect(footprint.kind).toBe(kind)
    if (reason && footprint.kind === 'barrier') expect(footprint.reason).toMatch(reason)
  })

  test('access comes from readOnly(args) when there is no scope()', () => {
    expect(fp('Read', { path: 'a' })).toMatchObject({ kind: 'scoped', touches: [{ access: 'read', label: 'a' }] })
    expect(fp('Write', { path: 'a' })).toMatchObject({ kind: 'scoped', touches: [{ access: 'write', label: 'a' }] })
  })

  test.each<[string, string, Partial<Record<keyof BehaviourSets, string[]>>, Footprint['kind']]>([
    ['config never_parallel wins over a tool that says parallel-safe', 'web_search', { neverParallel: ['web_search'] }, 'barrier'],
    ['config parallel_safe frees a tool that declares nothing', 'mystery', { parallelSafe: ['mystery'] }, 'free'],
    ['config path_scoped makes a tool conflict through its path', 'mystery', { pathScoped: ['mystery'] }, 'scoped'],
    ['config parallel_safe wins over a tool that says never-parallel', 'clarify', { parallelSafe: ['clarify'] }, 'free'],
    ['config path_scoped wins over a tool that says parallel-safe', 'web_search', { pathScoped: ['web_search'] }, 'scoped'],
    ['config never_parallel wins over config parallel_safe', 'web_search', { parallelSafe: ['web_search'], neverParallel: ['web_search'] }, 'barrier'],
    ['a tool in no set is judged by its declarations', 'clarify', { parallelSafe: ['other'] }, 'barrier'],
  ])('%s', (_why, name, sets, kind) => {
    const merged: BehaviourSets = {
      parallelSafe: new Set(sets.parallelSafe ?? []),
      neverParallel: new Set(sets.neverParallel ?? []),
      pathScoped: new Set(sets.pathScoped ?? []),
    }
    expect(fp(name, { path: 'x' }, merged).kind).toBe(kind)
  })
})

describe('conflictReason', () => {
  test.each<[string, Step, Step, boolean]>([
    ['two reads of one file share', ['Read', { path: 'a' }], ['Read', { path: 'a' }], false],
    ['a write and a read of one file conflict', ['Write', { path: 'a' }], ['Read', { path: 'a' }], true],
    ['a write to a folder and a read inside it conflict', ['Write', { path: 'a' }], ['Read', { path: 'a/b' }], true],
    ['a/b and a/bc do not', ['Write', { path: 'a/b' }], ['Write', { path: 'a/bc' }], false],
    ['free and a write do not', ['web_search'], ['Write', { path: 'a' }], false],
    ['a barrier conflicts with a free call', ['mystery'], ['web_search'], true],
    ['a free call conflicts with a later barrier', ['web_search'], ['clarify'], true],
    ['one resource key written twice conflicts', ['keyed', { key: 'db' }], ['keyed', { key: 'db' }], true],
    ['different keys do not', ['keyed', { key: 'db' }], ['keyed', { key: 'cache' }], false],
  ])('%s', (_why, [a, aArgs], [b, bArgs], expected) => {
    const reason = conflictReason(fp(a, aArgs ?? {}), fp(b, bArgs ?? {}), 'earlier')
    expect(reason !== undefined).toBe(expected)
  })

  test('the reason names what is touched and by whom', () => {
    expect(conflictReason(fp('Write', { path: 'src/a.ts' }), fp('Read', { path: 'src' }), 'call_1')).toBe('reads src, which call_1 writes (src/a.ts)')
  })
})

describe('partition mode (Claude Code: adjacent concurrency-safe calls together)', () => {
  test.each<[string, Step[], number[][]]>([
    [
      'Read, Read, Write, Read, Bash(rm) -> 4 groups',
      [['Read', { path: 'a' }], ['Read', { path: 'b' }], ['Write', { path: 'c' }], ['Read', { path: 'd' }], ['Bash', { command: 'rm -rf x' }]],
      [[0, 1], [2], [3], [4]],
    ],
    ['all reads -> one group', [['Read', { path: 'a' }], ['read_file', { path: 'a' }], ['web_search']], [[0, 1, 2]]],
    ['writes each alone, even on different paths', [['Write', { path: 'a' }], ['Write', { path: 'b' }]], [[0], [1]]],
    ['a write splits reads', [['Read', { path: 'a' }], ['Write', { path: 'b' }], ['Read', { path: 'a' }]], [[0], [1], [2]]],
    ['never-parallel alone', [['web_search'], ['clarify'], ['web_search']], [[0], [1], [2]]],
    ['a scope that throws is not safe', [['Read', { path: 'a' }], ['broken_scope'], ['Read', { path: 'b' }]], [[0], [1], [2]]],
  ])('%s', (_why, steps, groups) => {
    expect(partitionGroups(plan(steps))).toEqual(groups)
  })

  test('each group waits for the whole group before it', () => {
    const waits = planModeWaits('partition', plan([['Read', { path: 'a' }], ['Read', { path: 'b' }], ['Write', { path: 'c' }], ['Read', { path: 'd' }]]))
    expect(waits.map((w) => w.map((x) => x.index))).toEqual([[], [], [0, 1], [2]])
  })

  test('isConcurrencySafe: free and read-only scoped calls', () => {
    expect([fp('web_search'), fp('Read', { path: 'a' }), fp('Write', { path: 'a' }), fp('mystery')].map(isConcurrencySafe)).toEqual([true, true, false, false])
  })
})

describe('batch mode (the Hermes whole-batch rule)', () => {
  test.each<[string, Step[], RegExp | undefined]>([
    ['independent reads and searches run in parallel', [['read_file', { path: 'a' }], ['read_file', { path: 'b' }], ['web_search']], undefined],
    ['independent writes run in parallel', [['write_file', { path: 'a' }], ['write_file', { path: 'b' }]], undefined],
    ['a single call runs serially', [['read_file', { path: 'a' }]], /fewer than two calls/],
    ['never-parallel forces serial', [['web_search'], ['clarify']], /clarify is never-parallel/],
    ['an unknown (undeclared) tool forces serial', [['web_search'], ['mystery']], /neither parallel-safe nor path-scoped/],
    ['overlapping reads force serial (read/read counts)', [['read_file', { path: 'a' }], ['read_file', { path: 'a' }]], /touch overlapping paths/],
    ['a parent and a child path overlap', [['read_file', { path: 'src' }], ['write_file', { path: 'src/a.ts' }]], /touch overlapping paths/],
    ['a/b and a/bc do not overlap', [['read_file', { path: 'a/b' }], ['read_file', { path: 'a/bc' }]], undefined],
    ['a path-scoped call without a path forces serial', [['read_file', { path: 'a' }], ['write_file', {}]], /no usable `path`/],
    ['one call touching two overlapping paths itself is fine', [['patch', { files: ['a', 'a/b'] }], ['read_file', { path: 'c' }]], undefined],
  ])('%s', (_why, steps, reason) => {
    const why = batchSerialReason(plan(steps))
    if (reason === undefined) expect(why).toBeUndefined()
    else expect(why).toMatch(reason)
    const waits = planModeWaits('batch', plan(steps))
    expect(waits.flat().length).toBe(reason === undefined || steps.length < 2 ? 0 : steps.length - 1)
  })

  test.each([
    ['unparseable arguments force serial', [{ id: 'x', parsed: false, code: 'E_ARGS_INVALID' }], /x has arguments that do not parse/],
    ['a tool nobody registered forces serial', [{ id: 'y', parsed: true, code: 'E_TOOL_UNKNOWN' }], /y names an unknown tool/],
    ['a schema failure alone does not', [{ id: 'z', parsed: true, code: 'E_ARGS_INVALID' }], undefined],
  ])('%s', (_why, failed, reason) => {
    const blocker = batchBlocker(failed)
    if (reason === undefined) expect(blocker).toBeUndefined()
    else expect(batchSerialReason(plan([['read_file', { path: 'a' }], ['read_file', { path: 'b' }]]), blocker)).toMatch(reason)
  })
})

describe('explainWaits and host.explain (nothing runs)', () => {
  test.each<[DispatchMode, string[][]]>([
    ['graph', [[], [], ['0:Read', '1:Read'], [], ['0:Read', '1:Read', '2:Write', '3:Read']]],
    ['serial', [[], ['0:Read'], ['0:Read', '1:Read'], ['2:Write'], ['0:Read', '1:Read', '2:Write', '3:Read']]],
  ])('%s: who waits for whom', (mode, expected) => {
    const steps: Step[] = [['Read', { path: 'a' }], ['Read', { path: 'a' }], ['Write', { path: 'a' }], ['Read', { path: 'b' }], ['Bash', { command: 'rm x' }]]
    const waits = explainWaits(mode, plan(steps)).map((w) => w.map((x) => x.id).sort())
    expect(waits).toEqual(expected)
  })

  test('host.explain plans the batch and reports calls that would fail, running no handler', async () => {
    registry.clear()
    let ran = 0
    registry.register(defineTool({ name: 'Write', description: 'write', parameters: anyArgs, pathScoped: true, handler: async () => String(++ran) }))
    const host = await createHost({ root, loadPlugins: false, log: silentLogger, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' } } })
    const calls: ToolCall[] = [
      { id: 'w1', name: 'Write', arguments: '{"path":"a"}' },
      { id: 'w2', name: 'Write', arguments: '{"path":"a/b"}' },
      { id: 'nope', name: 'Wrte', arguments: '{}' },
    ]
    const planned = await host.explain(calls, { mode: 'batch' })
    expect(planned.calls.map((c) => [c.id, c.waitsFor.map((w) => w.id)])).toEqual([['w1', []], ['w2', ['w1']], ['nope', []]])
    expect(planned.calls[2]!.error?.code).toBe('E_TOOL_UNKNOWN')
    expect(ran).toBe(0)
    await host.close()
    registry.clear()
  })
})
