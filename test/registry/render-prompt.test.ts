import { describe, expect, test } from 'vitest'
import { createDeferred } from '../../src/contract/deferred.js'
import { definePrompt } from '../../src/contract/define-prompt.js'
import { ToolhostError } from '../../src/contract/errors.js'
import type { PromptSpec } from '../../src/contract/prompt-types.js'
import { ToolRegistry } from '../../src/registry/registry.js'

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC'
const args = { type: 'object', properties: { path: { type: 'string', minLength: 1 }, focus: { type: 'string', enum: ['bugs', 'style'] } }, required: ['path'], additionalProperties: false } as const

function catalogueWith(spec: Partial<PromptSpec> & { handler: PromptSpec['handler'] }) {
  const registry = new ToolRegistry()
  registry.register(definePrompt({ name: 'p', description: 'The prompt.', arguments: args, ...spec } as PromptSpec))
  return registry.promptsAndResources
}

const codeOf = (promise: Promise<unknown>): Promise<string | undefined> => promise.then(() => undefined, (error: { code?: string }) => error.code)

describe('renderPrompt: arguments are untrusted input, checked before the handler runs', () => {
  test.each<{ why: string; given: unknown; code: string | undefined; says?: string }>([
    { why: 'valid', given: { path: 'a.md', focus: 'bugs' }, code: undefined },
    { why: 'none given, one required', given: undefined, code: 'E_ARGS_INVALID', says: '`path` is required but missing' },
    { why: 'a value outside the enum', given: { path: 'a.md', focus: 'speed' }, code: 'E_ARGS_INVALID', says: '`focus` must be one of "bugs", "style"' },
    { why: 'an unknown argument', given: { path: 'a.md', extra: 'x' }, code: 'E_ARGS_INVALID', says: '`extra` is not an accepted field' },
    { why: 'a number', given: { path: 7 }, code: 'E_ARGS_INVALID', says: '`path` must be a string, got number' },
    { why: 'a list instead of an object', given: ['a.md'], code: 'E_ARGS_INVALID', says: 'must be an object of strings' },
    { why: 'a __proto__ key (an own key, refused by the schema)', given: JSON.parse('{"path":"a.md","__proto__":"x"}') as unknown, code: 'E_ARGS_INVALID', says: '`__proto__` is not an accepted field' },
    { why: 'a getter that throws', given: { path: 'a.md', get focus(): string { throw new Error('trap') } }, code: 'E_ARGS_INVALID', says: 'could not be read (trap)' },
    { why: 'over the size limit', given: { path: 'x'.repeat(200) }, code: 'E_ARGS_INVALID', says: 'over 100 characters' },
  ])('$why', async ({ given, code, says }) => {
    let ran = false
    const catalogue = catalogueWith({ handler: () => ((ran = true), 'ok') })
    const outcome = catalogue.renderPrompt('p', given, { maxInputChars: 100 })
    if (code === undefined) {
      await expect(outcome).resolves.toMatchObject({ messages: [{ role: 'user', content: { type: 'text', text: 'ok' } }] })
      expect(ran).toBe(true)
    } else {
      await expect(outcome).rejects.toMatchObject({ code, message: expect.stringContaining(says!) })
      expect(ran).toBe(false)
    }
  })

  test('the handler gets a plain copy, not the object sent', async () => {
    let seen: unknown
    const sent = { path: 'a.md' }
    const catalogue = catalogueWith({ handler: (a) => ((seen = a), 'ok') })
    await catalogue.renderPrompt('p', sent)
    expect(seen).toEqual(sent)
    expect(seen).not.toBe(sent)
  })
})

describe('renderPrompt: what a handler returns becomes MCP messages', () => {
  const text = (t: string, role: 'user' | 'assistant' = 'user') => ({ role, content: { type: 'text', text: t } })
  test.each<{ why: string; value: unknown; description?: string; messages: unknown[] }>([
    { why: 'a string: one user text message', value: 'hello', messages: [text('hello')] },
    { why: 'messages with string content', value: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }], messages: [text('q'), text('a', 'assistant')] },
    { why: 'an image block', value: [{ role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } }], messages: [{ role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } }] },
    {
      why: 'an embedded resource',
      value: [{ role: 'user', content: { type: 'resource', resource: { uri: 'notes://a', mimeType: 'text/plain', text: 'A' } } }],
      messages: [{ role: 'user', content: { type: 'resource', resource: { uri: 'notes://a', mimeType: 'text/plain', text: 'A' } } }],
    },
    { why: '{ description, messages }', value: { description: 'Rendered.', messages: ['x'].map((t) => ({ role: 'user', content: t })) }, description: 'Rendered.', messages: [text('x')] },
  ])('$why', async ({ value, description, messages }) => {
    const catalogue = catalogueWith({ handler: () => value as never })
    await expect(catalogue.renderPrompt('p', { path: 'a.md' })).resolves.toEqual({ description: description ?? 'The prompt.', messages })
  })

  test.each<{ why: string; value: unknown; says: string }>([
    { why: 'a number', value: 42, says: 'no list of messages' },
    { why: 'a message with role system', value: [{ role: 'system', content: 'x' }], says: 'message 0 with role "system"' },
    { why: 'an image without mimeType', value: [{ role: 'user', content: { type: 'image', data: PNG } }], says: 'message 0, whose content is not' },
    { why: 'a null message', value: ['ok', null].map((m) => (m === 'ok' ? { role: 'user', content: 'ok' } : m)), says: 'message 1, which is not an object' },
    { why: 'a description that is a number', value: { description: 1, messages: [] }, says: 'a `description` that is not a string' },
  ])('refuses $why with E_HANDLER_FAILED', async ({ value, says }) => {
    const catalogue = catalogueWith({ handler: () => value as never })
    await expect(catalogue.renderPrompt('p', { path: 'a.md' })).rejects.toMatchObject({ code: 'E_HANDLER_FAILED', message: expect.stringContaining(says) })
  })
})

describe('renderPrompt: failures of the prompt or its handler', () => {
  test('an unknown prompt is E_NOT_FOUND', async () => {
    const catalogue = catalogueWith({ handler: () => '' })
    await expect(catalogue.renderPrompt('nope')).rejects.toMatchObject({ code: 'E_NOT_FOUND', message: expect.stringContaining('"nope" is not registered') })
  })

  test('a hidden prompt is E_NOT_FOUND with the reason, and its handler never runs', async () => {
    let ran = false
    const catalogue = catalogueWith({ requiresEnv: ['NOTES_TOKEN'], handler: () => ((ran = true), '') })
    await expect(catalogue.renderPrompt('p', { path: 'a.md' }, { env: {} })).rejects.toMatchObject({ code: 'E_NOT_FOUND', message: 'prompt "p" is not available now: missing env var NOTES_TOKEN' })
    expect(ran).toBe(false)
  })

  test('a handler that throws is E_HANDLER_FAILED with its message; a coded throw keeps its code', async () => {
    await expect(catalogueWith({ handler: () => { throw new Error('disk full') } }).renderPrompt('p', { path: 'a' })).rejects.toMatchObject({ code: 'E_HANDLER_FAILED', message: 'prompt "p" failed: disk full' })
    await expect(catalogueWith({ handler: () => { throw new ToolhostError('E_NOT_FOUND', 'no such file a') } }).renderPrompt('p', { path: 'a' })).rejects.toMatchObject({ code: 'E_NOT_FOUND', message: 'no such file a' })
  })

  test('past its time limit: E_TIMEOUT at once, and its signal aborts', async () => {
    let signal: AbortSignal | undefined
    const catalogue = catalogueWith({ handler: (_a, ctx) => ((signal = ctx.signal), new Promise<string>(() => {})) })
    await expect(catalogue.renderPrompt('p', { path: 'a' }, { timeoutMs: 10 })).rejects.toMatchObject({ code: 'E_TIMEOUT', message: 'prompt "p" did not finish within 10 ms and was aborted' })
    expect(signal?.aborted).toBe(true)
  })

  test("the caller's signal: cancelled while running is E_INTERRUPTED; cancelled before, the handler never runs", async () => {
    const started = createDeferred<AbortSignal>()
    let runs = 0
    const catalogue = catalogueWith({ handler: (_a, ctx) => (runs++, started.resolve(ctx.signal), new Promise<string>(() => {})) })
    const caller = new AbortController()
    const outcome = catalogue.renderPrompt('p', { path: 'a' }, { signal: caller.signal })
    const handlerSignal = await started.promise
    caller.abort()
    await expect(outcome).rejects.toMatchObject({ code: 'E_INTERRUPTED' })
    expect(handlerSignal.aborted).toBe(true)
    await expect(codeOf(catalogue.renderPrompt('p', { path: 'a' }, { signal: caller.signal }))).resolves.toBe('E_INTERRUPTED')
    expect(runs).toBe(1)
  })

  test('the handler gets the env the request names', async () => {
    const catalogue = catalogueWith({ handler: (_a, ctx) => ctx.env.GREETING ?? 'none' })
    await expect(catalogue.renderPrompt('p', { path: 'a' }, { env: { GREETING: 'hi' } })).resolves.toMatchObject({ messages: [{ content: { text: 'hi' } }] })
  })
})
