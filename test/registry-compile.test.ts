import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Ajv } from 'ajv'
import { afterAll, afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { defineTool } from '../src/define-tool.js'
import { validateArguments } from '../src/dispatch/prepare.js'
import { KnownSchemas } from '../src/known-schemas.js'
import { ToolRegistry } from '../src/registry.js'

// When schemas compile: at registration when new (so an invalid schema fails there, ajv strict
// errors included), on first use when an earlier run compiled the same schema text with the same
// ajv set-up; tools with the same schema text share one validator.
const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-known-schemas-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let cacheFile: string
let compile: ReturnType<typeof vi.spyOn>
let compileKnown: ReturnType<typeof vi.spyOn>
beforeEach(() => {
  cacheFile = path.join(mkdtempSync(path.join(dir, 'run-')), 'known.txt')
  // Both dialects' ajv classes (draft-07 and 2020-12) share ajv's core prototype.
  const core = Object.getPrototypeOf(Ajv.prototype) as Ajv
  compile = vi.spyOn(core, 'compile')
  // A known schema is compiled on first use without the meta-schema check: added, then fetched.
  compileKnown = vi.spyOn(core, 'getSchema')
})
afterEach(() => vi.restoreAllMocks())

const schema = () => ({ type: 'object', properties: { height: { type: 'number' } }, required: ['height'], additionalProperties: false }) as const
/** The validation error message a call with `args` gets (undefined: valid). */
const prepareCall = (registry: ToolRegistry, name: string, args: Record<string, unknown>): string | undefined => validateArguments(registry, registry.get(name)!, args)?.message

const tool = (name: string, parameters: object = schema()) => defineTool({ name, description: `tool ${name}`, parameters: parameters as never, handler: () => 'ok' })

describe('when schemas compile', () => {
  test('a new schema compiles at registration; the next run (same cache) compiles it only on first use', () => {
    const first = new ToolRegistry({ knownSchemas: new KnownSchemas(cacheFile) })
    first.register(tool('measure'))
    expect(compile).toHaveBeenCalledTimes(1)
    first.saveKnownSchemas()
    expect(readFileSync(cacheFile, 'utf8').trim().split('\n')).toHaveLength(1)

    compile.mockClear()
    compileKnown.mockClear()
    const second = new ToolRegistry({ knownSchemas: new KnownSchemas(cacheFile) })
    second.register(tool('measure'))
    expect(compile).not.toHaveBeenCalled()
    expect(compileKnown).not.toHaveBeenCalled()
    expect(prepareCall(second, 'measure', { heigth: 2 })).toMatch(/`height` is required but missing; `heigth` is not an accepted field/)
    expect(compileKnown).toHaveBeenCalledTimes(1)
    expect(prepareCall(second, 'measure', { height: 2 })).toBeUndefined()
    expect(compileKnown).toHaveBeenCalledTimes(1)
    expect(compile).not.toHaveBeenCalled()
  })

  test.each([
    { why: 'an unknown keyword (ajv strict mode)', parameters: { type: 'object', properties: { a: { type: 'string', maxLenght: 3 } } }, message: /unknown keyword: "maxLenght"/ },
    { why: 'a misspelt type', parameters: { type: 'object', properties: { a: { type: 'strin' } } }, message: /invalid parameters schema/ },
    { why: 'an unknown format', parameters: { type: 'object', properties: { a: { type: 'string', format: 'emial' } } }, message: /unknown format "emial"/ },
  ])('$why fails at registration, every time: an invalid schema never enters the cache', ({ parameters, message }) => {
    for (let run = 0; run < 2; run++) {
      const registry = new ToolRegistry({ knownSchemas: new KnownSchemas(cacheFile) })
      expect(() => registry.register(tool('broken', parameters))).toThrow(expect.objectContaining({ code: 'E_SCHEMA_INVALID', message: expect.stringMatching(message) }))
      registry.saveKnownSchemas()
    }
    expect(existsSync(cacheFile)).toBe(false)
  })

  test('tools with the same schema text share one compiled validator', () => {
    const registry = new ToolRegistry({ knownSchemas: new KnownSchemas(undefined) })
    for (let i = 0; i < 50; i++) registry.register(tool(`same_${i}`))
    expect(compile).toHaveBeenCalledTimes(1)
    expect(prepareCall(registry, 'same_49', {})).toMatch(/`height` is required/)
  })

  test('a schema with an $id compiles at registration even when known, and registers again after it is removed', () => {
    const known = new KnownSchemas(cacheFile)
    const withId = { $id: 'https://example.com/measure', ...schema() }
    const registry = new ToolRegistry({ knownSchemas: known })
    registry.register(tool('with_id', withId))
    registry.unregister('with_id')
    registry.register(tool('with_id', { ...withId }))
    expect(compile).toHaveBeenCalledTimes(2)
  })

  test('with the cache off (no file) every new schema compiles at registration and nothing is written', () => {
    const registry = new ToolRegistry({ knownSchemas: new KnownSchemas(undefined) })
    registry.register(tool('a', { type: 'object' }))
    registry.register(tool('b', { type: 'object', properties: {} }))
    registry.saveKnownSchemas()
    expect(compile).toHaveBeenCalledTimes(2)
  })

  test('a cache entry that no longer compiles refuses the calls with the reason; the batch still answers', () => {
    // A schema text that fails to compile, listed as known (as a cache outliving a change would).
    const known = new KnownSchemas(cacheFile)
    const bad = { type: 'object', properties: { a: { type: 'string', maxLenght: 3 } } }
    known.add(known.keyOf(JSON.stringify(bad))!)
    const registry = new ToolRegistry({ knownSchemas: known })
    registry.register(tool('stale', bad))
    expect(prepareCall(registry, 'stale', { a: 'x' })).toMatch(/cannot be checked: the tool stale has an invalid parameters schema \(strict mode: unknown keyword: "maxLenght"\)/)
  })
})
