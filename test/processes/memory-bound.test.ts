import { afterEach, describe, expect, test } from 'vitest'
import { ProcessTestKit } from './process-test-kit.js'

const kit = new ProcessTestKit()
afterEach(() => kit.cleanup())

const LINE = '0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxy' // 72 chars + '\n'
const BYTES = 300_000_000
const MB = 1024 * 1024

describe('memory bound', () => {
  // A bound on memory, not a speed assertion: the output is 300 MB; the host may grow by a small
  // fraction of that (buffers, GC slack), never by the output's size.
  test('a process printing 300 MB keeps the host memory flat and its tail right', { timeout: 120_000 }, async () => {
    const registry = await kit.open(kit.tempRoot(), { bufferChars: 200_000 })
    globalThis.gc?.()
    const before = process.memoryUsage().rss
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss)
    }, 25)
    try {
      const { id } = await registry.spawn(`yes ${LINE} | head -c ${BYTES}; echo; echo THE-END`)
      const { outcome, process: done } = await registry.wait(id, { tailChars: 200 })
      expect(outcome).toBe('exited')
      peak = Math.max(peak, process.memoryUsage().rss)
      const lineLength = LINE.length + 1
      const fullLines = Math.floor(BYTES / lineLength)
      const partial = LINE.slice(0, BYTES - fullLines * lineLength)
      expect(done.exitCode).toBe(0)
      expect(done.outputChars).toBe(BYTES + 1 + 'THE-END\n'.length)
      expect(done.droppedChars).toBe(done.outputChars - 200_000)
      expect(done.lines).toBe(fullLines + 2)
      expect(done.tail.endsWith(`${LINE}\n${partial}\nTHE-END\n`)).toBe(true)
      const page = await registry.log(id, { offset: 1, limit: 1 })
      expect(page).toMatchObject({ lines: [{ n: 1, text: LINE }], fromFile: { from: 1, to: 1 } })
    } finally {
      clearInterval(sampler)
    }
    const growth = peak - before
    console.log(`rss growth while a process printed ${BYTES / MB} MB: ${(growth / MB).toFixed(1)} MB`)
    expect(growth).toBeLessThan(BYTES / 6)
  })
})
