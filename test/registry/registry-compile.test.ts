import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Ajv } from 'ajv'
import { afterAll, afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { defineTool } from '../../src/contract/define-tool.js'
import { validateArguments } from '../../src/dispatch/admit/prepare.js'
import { KnownSchemas } from '../../src/registry/known-schemas.js'
import { ToolRegistry } from '../../src/registry/registry.js'
import type { JsonSchema } from '../../src/contract/types.js'

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

const tool = (name: string, parameters: object = schema()) => defineTool({ name, description: `tool ${name}`, parameters: parameters as JsonSchema, handler: () => 'ok' })

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
    { why: 'an unknown keyword (ajv strict mode)', parameters: { type: 'object', properties: { a: { type: 'string', maxLenght: 3 } } }, message: /`properties.a`: unknown keyword "maxLenght" \(did you mean "maxLength"\?\)/ },
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

describe('hot reload (staged swap) × the known-schemas cache × dialects', () => {
  const draft7 = { type: 'object', properties: { height: { type: 'number' } }, required: ['height'] }
  const v2020 = (max: number) => ({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'urn:toolhost:test:measure',
    type: 'object',
    $defs: { size: { type: 'number', maximum: max } },
    properties: { height: { $ref: '#/$defs/size' } },
    required: ['height'],
  })
  const source = '/plugins/measure.ts'
  const load = (registry: ToolRegistry, parameters: object, fail = false) => registry.replaceSource(source, async () => {
    registry.register(tool('measure', parameters))
    if (fail) throw new Error('the new version threw after registering')
  })

  test('a reloaded tool whose schema changed dialect or $id registers and validates in its new form; a failed reload leaves the old one serving', async () => {
    // An earlier run compiled the draft-07 form: this run builds its validator on first use.
    const earlier = new ToolRegistry({ knownSchemas: new KnownSchemas(cacheFile) })
    earlier.register(tool('measure', draft7))
    earlier.saveKnownSchemas()
    const registry = new ToolRegistry({ knownSchemas: new KnownSchemas(cacheFile) })

    await load(registry, draft7)
    expect(prepareCall(registry, 'measure', { height: 'tall' })).toMatch(/`height` must be number/)
    // To 2020-12 with an $id, $defs and a $ref.
    await load(registry, v2020(10))
    expect(prepareCall(registry, 'measure', { height: 11 })).toMatch(/`height` must be <= 10/)
    expect(prepareCall(registry, 'measure', { height: 9 })).toBeUndefined()
    // The same $id with new content, while the previous version still holds it.
    await load(registry, v2020(20))
    expect(prepareCall(registry, 'measure', { height: 11 })).toBeUndefined()
    // A version that fails after registering: nothing changes, and its schema is given back.
    await expect(load(registry, v2020(30), true)).rejects.toThrow('the new version threw after registering')
    expect(prepareCall(registry, 'measure', { height: 25 })).toMatch(/`height` must be <= 20/)
    await load(registry, v2020(30))
    expect(prepareCall(registry, 'measure', { height: 25 })).toBeUndefined()
    // Back to the known draft-07 form (compiled on first use again).
    await load(registry, draft7)
    expect(prepareCall(registry, 'measure', { height: 1000 })).toBeUndefined()
    expect(prepareCall(registry, 'measure', {})).toMatch(/`height` is required/)
    // The old $id was given back: the 2020-12 form registers once more.
    await load(registry, v2020(5))
    expect(prepareCall(registry, 'measure', { height: 6 })).toMatch(/`height` must be <= 5/)
  })
})

describe('a schema its plugin changes after registration', () => {
  // Issue 12 (new variant): the live object was compiled on first use and shown to the model, so a
  // plugin loosening its schema after registering (maxLength, additionalProperties) loosened both.
  test.each([
    ['compiled at registration', false],
    ['known to compile, compiled on first use', true],
  ])('changes neither what is checked nor what the model is shown (%s)', async (_when, known) => {
    if (known) new ToolRegistry({ knownSchemas: new KnownSchemas(cacheFile) }).register(tool('warm_up'))
    const registry = new ToolRegistry({ knownSchemas: new KnownSchemas(cacheFile) })
    const parameters = { type: 'object', properties: { height: { type: 'number', maximum: 10 } }, required: ['height'], additionalProperties: false }
    registry.register(tool('measure', parameters))
    parameters.properties.height.maximum = 1e9
    parameters.additionalProperties = true
    expect(prepareCall(registry, 'measure', { height: 500 })).toContain('height')
    expect(prepareCall(registry, 'measure', { height: 5, extra: 1 })).toContain('extra')
    expect((await registry.getDefinitions()).map((d) => d.function.parameters)).toEqual([{ type: 'object', properties: { height: { type: 'number', maximum: 10 } }, required: ['height'], additionalProperties: false }])
  })
})
