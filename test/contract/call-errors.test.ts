// The call path's error messages (src/contract/call-errors.ts), the catalogue (ERROR_CODES) and the
// docs' table of errors (docs/embedding.md) held to each other, as fastify's errors test does: each
// template carries a catalogue code, renders the docs' example for its code, is used by the code,
// and no other file of src/ writes its message by hand.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import fg from 'fast-glob'
import { describe, expect, test } from 'vitest'
import { CALL_ERRORS } from '../../src/contract/call-errors.js'
import { ERROR_CODES } from '../../src/contract/errors.js'

const ROOT = path.resolve(import.meta.dirname, '../..')
const SOURCES = fg.sync('src/**/*.ts', { cwd: ROOT }).filter((f) => f !== 'src/contract/call-errors.ts').map((f) => ({ file: f, text: readFileSync(path.join(ROOT, f), 'utf8') }))

/** The example column of docs/embedding.md's table of call errors, by code. */
function documentedExamples(): Map<string, string> {
  const doc = readFileSync(path.join(ROOT, 'docs/embedding.md'), 'utf8')
  const section = doc.slice(doc.indexOf('## Errors a call can get'))
  const rows = [...section.matchAll(/^\| `(E_[A-Z_]+)` \| .* \| (`{1,2})(.+?)\2 \|$/gm)]
  return new Map(rows.map((m) => [m[1]!, m[3]!.trim()]))
}

// What each template renders in the docs' examples (the table's tool is `hangs`, its limit 100 ms).
const SAMPLES: { [K in keyof typeof CALL_ERRORS]: Parameters<(typeof CALL_ERRORS)[K]> } = {
  unknownTool: ['ecko', ['echo']],
  removedTool: ['echo'],
  timedOut: ['hangs', 100],
  interruptedRunning: ['hangs'],
  interruptedInHook: ['hangs', 'audit'],
  skipped: [],
  stoppedInHook: ['hangs', 'audit'],
  stoppedInCheck: ['hangs'],
  awaitingAnswer: ['hangs', 'waiting for the MCP client to answer'],
  closedInHooks: [],
  closedUndecided: [5000],
}
const render = (name: keyof typeof CALL_ERRORS) => (CALL_ERRORS[name] as (...args: unknown[]) => { code: string; message: string })(...SAMPLES[name])
const NAMES = Object.keys(CALL_ERRORS) as (keyof typeof CALL_ERRORS)[]

describe('the call path\'s error messages', () => {
  test.each(NAMES)('%s carries a code of the catalogue, and renders it', (name) => {
    const error = render(name)
    expect(Object.hasOwn(ERROR_CODES, error.code)).toBe(true)
    expect(error.code).toBe(CALL_ERRORS[name].code)
    expect(error.message.length).toBeGreaterThan(10)
  })

  test('the docs\' example for each code a template has is what one of its templates renders', () => {
    const examples = documentedExamples()
    const codes = new Set(NAMES.map((name) => CALL_ERRORS[name].code))
    expect(codes.size).toBeGreaterThan(3)
    for (const code of codes) {
      const example = examples.get(code)
      expect(example, `docs/embedding.md gives an example message for ${code}`).toBeDefined()
      const prefix = example!.replace(/\s*…$/, '')
      const rendered = NAMES.filter((name) => CALL_ERRORS[name].code === code).map((name) => render(name).message)
      expect(rendered.some((message) => message.startsWith(prefix)), `${code}: "${prefix}" is not what ${rendered.join(' | ')} render`).toBe(true)
    }
  })

  test.each(NAMES)('%s is used by the call path', (name) => {
    expect(SOURCES.filter((s) => s.text.includes(`CALL_ERRORS.${name}(`)).map((s) => s.file)).not.toEqual([])
  })

  test('no other file of src/ writes one of these messages by hand', () => {
    // The fixed part of each message, before its first argument.
    const fragments = NAMES.map((name) => render(name).message).map((m) => m.replace(/"?(hangs|ecko|echo|audit)"?|\d+ ms/g, '\u0000').split('\u0000').sort((a, b) => b.length - a.length)[0]!.trim()).filter((f) => f.length > 15)
    expect(fragments.length).toBeGreaterThan(5)
    const copies = SOURCES.flatMap((s) => fragments.filter((f) => s.text.includes(f)).map((f) => `${s.file}: "${f}"`))
    expect(copies).toEqual([])
  })
})
