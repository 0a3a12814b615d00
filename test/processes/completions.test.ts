import { describe, expect, test } from 'vitest'
import { CompletionQueue, type ProcessCompletion } from '../../src/processes/completions.js'

const completion = (id: string): ProcessCompletion => ({ id, command: `run ${id}`, exitCode: 0, signal: null, tail: '', endedAt: '2026-01-01T00:00:00.000Z' })

describe('CompletionQueue', () => {
  test('each completion goes to exactly one of several drains, in order', async () => {
    const queue = new CompletionQueue()
    const controller = new AbortController()
    const a = queue.drain(controller.signal)
    const b = queue.drain(controller.signal)
    const nextA = a.next()
    const nextB = b.next()
    queue.push(completion('1'), completion('2'))
    const got = [(await nextA).value, (await nextB).value].map((c) => (c as ProcessCompletion).id)
    expect(got.sort()).toEqual(['1', '2'])
    expect(queue.pending).toEqual([])
    controller.abort()
    expect(await a.next()).toEqual({ done: true, value: undefined })
  })

  test('a pushed id already queued is not queued twice; onChange runs on every change', () => {
    let changes = 0
    const queue = new CompletionQueue(() => changes++)
    queue.push(completion('1'))
    queue.push(completion('1'))
    expect(queue.pending.map((c) => c.id)).toEqual(['1'])
    expect(changes).toBe(1)
    expect(queue.take()?.id).toBe('1')
    expect(queue.take()).toBeUndefined()
    expect(changes).toBe(2)
  })

  test('close ends a waiting drain; an aborted signal ends it before it waits', async () => {
    const queue = new CompletionQueue()
    const waiting = queue.drain().next()
    queue.close()
    expect(await waiting).toEqual({ done: true, value: undefined })
    const open = new CompletionQueue()
    open.push(completion('x'))
    expect(await open.drain(AbortSignal.abort()).next()).toEqual({ done: true, value: undefined })
    expect(open.pending).toHaveLength(1)
  })
})
