import { expect, test } from 'vitest'
import { WakeUps } from '../../src/store/wake-ups.js'

const LONG = 60_000

test('a wake-up taken before an announcement is woken by it, even when it waits only after', async () => {
  const wakeUps = new WakeUps()
  const early = wakeUps.take()
  wakeUps.wakeAll()
  await early.wait(LONG) // resolves at once: the announcement came after it was taken
  const waiting = wakeUps.take().wait(LONG)
  wakeUps.wakeAll()
  await waiting
})

test('a wait ends after its bound without an announcement, and rejects on abort', async () => {
  const wakeUps = new WakeUps()
  await wakeUps.take().wait(1)
  const controller = new AbortController()
  const aborted = wakeUps.take().wait(LONG, controller.signal)
  controller.abort(new Error('given up'))
  await expect(aborted).rejects.toThrow('given up')
})

test('after close every wait resolves at once', async () => {
  const wakeUps = new WakeUps()
  const pending = wakeUps.take().wait(LONG)
  wakeUps.close()
  await pending
  await wakeUps.take().wait(LONG)
})
