/**
 * Cut results (issue 16.6): the preview keeps at least a third of the limit as content, ends with the
 * longest note that fits (the saved file relative to the workspace root), never splits a surrogate
 * pair, and the whole text is on disk.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { detachString, limitContent, preview } from '../../../src/dispatch/results/limit-content.js'
import { capText } from '../../../src/dispatch/results/shape-result.js'

const root = mkdtempSync(path.join(os.tmpdir(), 'toolhost-shape-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const text = Array.from({ length: 2000 }, (_, i) => `line ${String(i).padStart(4, '0')}`).join('\n')

describe('limitContent', () => {
  test.each([
    [100, /\n\[truncated: \d+ of 19999 characters\]$/],
    [150, /\n\[truncated \d+\/19999 chars; whole text: \.toolhost\/results\/call_7-[\w-]+\.txt\]$/],
    [1000, /\n\[truncated: showing \d+ of 19999 characters; the whole result is saved at \.toolhost\/results\/call_7-[\w-]+\.txt\]$/],
  ])('limit %d: within the limit, a third or more of it content, and the note that fits', async (limit, note) => {
    const limited = await limitContent(text, limit, { root, dir: path.join(root, '.toolhost/results'), caseInsensitive: false }, 'call_7')
    expect(limited.content.length).toBeLessThanOrEqual(limit)
    expect(limited.content).toMatch(note)
    const kept = limited.content.slice(0, limited.content.indexOf('\n[truncated'))
    expect(kept.length).toBeGreaterThanOrEqual(Math.ceil(limit / 3) - 12) // cut back to a line boundary at most one line
    expect(text.startsWith(kept)).toBe(true)
    expect(limited.content).toContain(`${kept.length}`)
    expect(limited.savedTo && path.isAbsolute(limited.savedTo)).toBe(true)
    expect(readFileSync(limited.savedTo!, 'utf8')).toBe(text)
  })

  test('a save that fails still answers, saying so, within the limit', async () => {
    // results_dir under a plain file: the folder cannot be made.
    writeFileSync(path.join(root, 'a-file'), 'not a folder')
    const limited = await limitContent(text, 300, { root, dir: path.join(root, 'a-file', 'results'), caseInsensitive: false }, 'c')
    expect(limited).toMatchObject({ truncated: true })
    expect(limited.savedTo).toBeUndefined()
    expect(limited.content.length).toBeLessThanOrEqual(300)
    expect(limited.content).toMatch(/\[truncated: showing \d+ of 19999 characters; the whole text could not be saved \(.+\)\]$|\[truncated \d+\/19999 chars; the whole text was not saved\]$/)
  })
})

describe('preview', () => {
  test('never ends on half of a surrogate pair', () => {
    const emoji = '😀'.repeat(100) // 200 UTF-16 code units, no line breaks
    const shown = preview(emoji, 101, ['saved at x', 'x'])
    const kept = shown.slice(0, shown.indexOf('\n[truncated'))
    expect(kept.length % 2).toBe(0)
    expect(/[\ud800-\udbff]$/.test(kept)).toBe(false)
  })

  test('a limit too small for any note keeps the limit', () => {
    expect(preview(text, 10, ['saved at x', 'x']).length).toBeLessThanOrEqual(10)
  })
})

test('capText cuts an error message to its limit, saying how long it was', () => {
  const cut = capText('e'.repeat(5000), 100)
  expect(cut).toHaveLength(100)
  expect(cut).toMatch(/^e+ \[cut: 5000 characters in all\]$/)
})

test('detachString returns the same text (a copy that references no larger string)', () => {
  const huge = 'x'.repeat(100_000)
  expect(detachString(huge.slice(0, 500))).toBe('x'.repeat(500))
  expect(detachString('short')).toBe('short')
})
