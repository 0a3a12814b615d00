/**
 * Placing a diff's hunks is bounded work (issue 12, new variant: a 300 KB diff whose one hunk did not
 * match at its stated line, against a 400 KB file of equal lines, held the event loop for 14 s; the
 * search compared the whole hunk at every position). Checked by outcome, never by time.
 */
import { describe, expect, test } from 'vitest'
import { isToolhostError } from '../../src/index.js'
import { applyHunks, parseUnifiedDiff } from '../../src/workspace/unified-diff.js'

const diffOf = (body: string): ReturnType<typeof parseUnifiedDiff>[number] => parseUnifiedDiff(`--- a/f\n+++ b/f\n${body}`)[0]!

describe('applyHunks', () => {
  test('a big hunk that matches nowhere ends the search at its bound, with E_NOT_FOUND saying so', () => {
    const text = 'a\n'.repeat(60_000)
    const hunk = diffOf(`@@ -1,20001 +1,20001 @@\n${' a\n'.repeat(20_000)}-b\n+c\n`)
    let thrown: unknown
    try {
      applyHunks(text, hunk, 'f')
    } catch (error) {
      thrown = error
    }
    expect(isToolhostError(thrown) && thrown.code).toBe('E_NOT_FOUND')
    expect((thrown as Error).message).toContain('took too long')
  })

  test('a hunk a few lines off its stated line is still found', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n') + '\n'
    const hunk = diffOf('@@ -490,2 +490,2 @@\n line 500\n-line 501\n+LINE 501\n')
    expect(applyHunks(text, hunk, 'f').split('\n')[501]).toBe('LINE 501')
  })

  test('thousands of hunks and a quarter-million-line replacement apply in one pass', () => {
    const text = 'a\n'.repeat(60_000)
    let body = ''
    for (let i = 0; i < 10_000; i++) body += `@@ -${i * 6 + 1},1 +${i * 6 + 1},1 @@\n-a\n+b\n`
    const out = applyHunks(text, diffOf(body), 'f').split('\n')
    expect(out.filter((l) => l === 'b')).toHaveLength(10_000)
    expect(out[6]).toBe('b')
    const grown = applyHunks('x\n', diffOf(`@@ -1,1 +1,250000 @@\n-x\n${'+y\n'.repeat(250_000)}`), 'f')
    expect(grown.length).toBe(500_000)
  })
})
