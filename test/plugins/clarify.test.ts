// clarify: asks through the host's ask handler; hidden (and refused by name) where there is none.
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { registry, type AskRequest } from '../../src/index.js'
import { call, hostOn, makeSandbox, type Sandbox } from '../workspace/sandbox.js'

let sb: Sandbox

beforeAll(() => {
  sb = makeSandbox('toolhost-clarify-')
  registry.clear()
})

afterAll(() => {
  registry.clear()
  sb.cleanup()
})

describe('clarify', () => {
  test('with an ask handler: offered, asks with the question and choices, returns the answer', async () => {
    const asked: AskRequest[] = []
    const host = await hostOn(sb.root, { ask: async (request) => (asked.push(request), 'the blue one') })
    try {
      expect((await host.definitions()).map((d) => d.function.name)).toContain('clarify')
      const result = await call(host, 'clarify', { question: 'Which colour?', choices: ['red', 'blue'] }, 'q1')
      expect(result).toMatchObject({ ok: true, content: 'the person answered: the blue one' })
      expect(asked).toEqual([{ question: 'Which colour?', choices: ['red', 'blue'], callId: 'q1' }])
    } finally {
      await host.close()
    }
  })

  test('without an ask handler: hidden from definitions, listed as unavailable with why, refused by name', async () => {
    const host = await hostOn(sb.root)
    try {
      expect((await host.definitions()).map((d) => d.function.name)).not.toContain('clarify')
      const [availability] = await host.registry.explainAvailability(['clarify'], { canAsk: false })
      expect(availability).toEqual({ name: 'clarify', available: false, reason: 'needs a person to ask; none here' })
      const result = await call(host, 'clarify', { question: 'Anyone there?' })
      expect(result.error).toMatchObject({ code: 'E_TOOL_UNAVAILABLE', message: expect.stringMatching(/^clarify is not available right now \(needs a person to ask; none here\); use another tool\./) })
    } finally {
      await host.close()
    }
  })

  test('an empty answer is reported as such; a failing ask handler is E_TOOL_FAILED', async () => {
    const empty = await hostOn(sb.root, { ask: async () => '  ' })
    const failing = await hostOn(sb.root, { ask: async () => { throw new Error('terminal closed') } })
    try {
      expect((await call(empty, 'clarify', { question: 'q' })).content).toBe('(the person gave an empty answer)')
      const result = await call(failing, 'clarify', { question: 'q' })
      expect(result.error?.code).toBe('E_TOOL_FAILED')
      expect(result.content).toMatch(/terminal closed/)
    } finally {
      await empty.close()
      await failing.close()
    }
  })

  test('runs alone: a call next to it waits', async () => {
    const host = await hostOn(sb.root, { ask: async () => 'ok' })
    try {
      const plan = await host.explain([
        { id: 'q', name: 'clarify', arguments: { question: 'q' } },
        { id: 'e', name: 'echo', arguments: { text: 'x' } },
      ])
      expect(plan.calls[0]!.footprint?.kind).toBe('barrier')
      expect(plan.calls[1]!.waitsFor.map((w) => w.id)).toEqual(['q'])
      const tool = registry.get('clarify')!
      expect(tool.neverParallel).toBe(true)
    } finally {
      await host.close()
    }
  })

  test('the question and choices are validated', async () => {
    const host = await hostOn(sb.root, { ask: async () => 'ok' })
    try {
      expect((await call(host, 'clarify', { question: '' })).error?.code).toBe('E_ARGS_INVALID')
      expect((await call(host, 'clarify', { question: 'q', choices: [] })).error?.code).toBe('E_ARGS_INVALID')
    } finally {
      await host.close()
    }
  })
})
