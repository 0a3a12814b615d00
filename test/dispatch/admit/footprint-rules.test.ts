/**
 * The footprint rules a plugin author can rely on (docs/plugins.md), issue 16.1: declaring `scope`
 * is declaring path-scoping; the contradiction `scope` + `pathScoped: false` is refused at
 * defineTool; and `footprintOrigin` says who decided each footprint (what `explain` prints).
 */
import { describe, expect, test } from 'vitest'
import { defineTool } from '../../../src/contract/define-tool.js'
import { computeFootprint, conflictReason, footprintOrigin, type BehaviourSets } from '../../../src/dispatch/admit/footprint.js'
import type { AnyTool } from '../../../src/contract/types.js'

const parameters = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false } as const
const handler = (): string => 'ok'
const none: BehaviourSets = { parallelSafe: new Set(), neverParallel: new Set(), pathScoped: new Set() }
const context = { root: '/w', caseInsensitive: false, sets: none }

const scopedWriter = defineTool<{ path: string }>({ name: 'patcher', description: 'writes through scope', parameters, handler, scope: (a) => [{ path: a.path, access: 'write' }] })
const safeReader = defineTool<{ path: string }>({ name: 'peeker', description: 'parallelSafe, reads through scope', parameters, handler, parallelSafe: true, scope: (a) => [{ path: a.path, access: 'read' }] })

describe('declaring scope is declaring path-scoping', () => {
  test('a tool with scope and no pathScoped is path-scoped, not a barrier', () => {
    expect(scopedWriter.pathScoped).toBe(true)
    expect(computeFootprint(scopedWriter as AnyTool, { path: 'a.txt' }, context)).toEqual({ kind: 'scoped', touches: [{ target: '/w/a.txt', label: 'a.txt', isKey: false, access: 'write' }] })
  })

  test('parallelSafe with a read scope is scoped: it waits for a write of the same path instead of running beside it', () => {
    const read = computeFootprint(safeReader as AnyTool, { path: 'a.txt' }, context)
    const write = computeFootprint(scopedWriter as AnyTool, { path: 'a.txt' }, context)
    expect(read.kind).toBe('scoped')
    expect(conflictReason(write, read, 'w')).toBe('reads a.txt, which w writes too')
    expect(conflictReason(read, computeFootprint(safeReader as AnyTool, { path: 'a.txt' }, context), 'r')).toBeUndefined()
  })

  test('a tool object built without defineTool that declares scope alone is scoped too', () => {
    const raw = { ...(scopedWriter as AnyTool), pathScoped: false }
    expect(computeFootprint(raw, { path: 'b.txt' }, context).kind).toBe('scoped')
  })

  test('scope with pathScoped: false is refused, naming both fields', () => {
    expect(() => defineTool<{ path: string }>({ name: 'torn', description: 'contradicts itself', parameters, handler, pathScoped: false, scope: (a) => [{ path: a.path, access: 'read' }] })).toThrow(
      /tool "torn": `scope` says what each call touches, so the tool is path-scoped, but `pathScoped` is false; remove `pathScoped: false`/,
    )
  })
})

describe('footprintOrigin: who decided a footprint', () => {
  const shell = defineTool({ name: 'shell', description: 'declares nothing', parameters, handler })
  const lookup = defineTool({ name: 'lookup', description: 'parallel-safe', parameters, handler, parallelSafe: true })
  const editor = defineTool({ name: 'editor', description: 'path-scoped by args.path', parameters, handler, pathScoped: true })
  const sets: BehaviourSets = { parallelSafe: new Set(['shell']), neverParallel: new Set(['lookup']), pathScoped: new Set() }
  test.each([
    ['scope(args)', scopedWriter, none, { by: 'tool', detail: 'scope(args)' }],
    ['pathScoped', editor, none, { by: 'tool', detail: 'pathScoped: args.path and args.paths, read when readOnly(args) says so' }],
    ['parallelSafe', lookup, none, { by: 'tool', detail: 'parallelSafe' }],
    ['nothing declared', shell, none, { by: 'default', detail: 'declares neither parallelSafe nor pathScoped: runs alone' }],
    ['config parallel_safe wins over the default', shell, sets, { by: 'config', detail: 'dispatch.parallel_safe' }],
    ['config never_parallel wins over parallelSafe', lookup, sets, { by: 'config', detail: 'dispatch.never_parallel' }],
  ])('%s', (_why, tool, behaviour, origin) => {
    expect(footprintOrigin(tool as AnyTool, behaviour)).toEqual(origin)
  })
})
