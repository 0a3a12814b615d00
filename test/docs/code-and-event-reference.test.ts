// The lists the manual keeps of things the code defines stay complete and invented-free: every error
// code of src/contract/errors.ts in docs/embedding.md (and no other code named anywhere in the docs), and
// every event type of HostEvent (src/observe/host-events.ts, src/dispatch/schedule/scheduler-types.ts) in the event
// tables of docs/scheduling.md (and no other there).
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { ERROR_CODES } from '../../src/contract/errors.js'

const ROOT = path.resolve(import.meta.dirname, '../..')
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8')
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
// `E_CODE` stands for any code in the docs' examples (`error E_CODE: message`).
const PLACEHOLDERS = new Set(['E_CODE'])

/** Event types a source file's event unions declare (`{ type: 'queued'; …}`). */
function declaredEventTypes(file: string): string[] {
  return [...read(file).matchAll(/\{ type: '([a-z-]+)'/g)].map((m) => m[1]!)
}

/** The first cells of the tables under `## Events` in docs/scheduling.md. */
function documentedEventTypes(): string[] {
  const doc = read('docs/scheduling.md')
  const section = doc.slice(doc.indexOf('\n## Events'))
  const end = section.indexOf('\n## ', 1)
  return [...(end === -1 ? section : section.slice(0, end)).matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]!)
}

describe('the error codes and events the docs list are the code\'s', () => {
  test.each(Object.keys(ERROR_CODES))('docs/embedding.md lists %s', (code) => {
    expect(read('docs/embedding.md')).toMatch(new RegExp(`\`${code}\``))
  })

  test('no page names an error code src/contract/errors.ts does not define', () => {
    const named = new Set(PAGES.flatMap((page) => [...read(page).matchAll(/\bE_[A-Z_]+\b/g)].map((m) => m[0])))
    expect([...named].filter((code) => !PLACEHOLDERS.has(code) && !Object.hasOwn(ERROR_CODES, code))).toEqual([])
  })

  test('docs/scheduling.md lists every event type of HostEvent, and no other', () => {
    const declared = [...declaredEventTypes('src/dispatch/schedule/scheduler-types.ts'), ...declaredEventTypes('src/observe/host-events.ts')]
    expect(declared.length).toBeGreaterThan(10)
    expect(documentedEventTypes().sort()).toEqual([...new Set(declared)].sort())
  })
})
