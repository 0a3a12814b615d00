import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { ERROR_CODES } from '../../src/contract/errors.js'
import { createHost } from '../../src/host/create-host.js'
import type { Host } from '../../src/host/host.js'
import { silentLogger } from '../../src/contract/logger.js'
import { registry } from '../../src/registry/registry.js'
import type { ToolCall } from '../../src/contract/types.js'
import { countOf, resetCounters } from '../fixtures/counters.js'

// One host over the fixture plugins in test/fixtures/plugins/{calls,gated}: every error code of the
// call path, through host.run / host.call as an agent loop would use them.
const CALLS = 'test/fixtures/plugins/calls'
const GATED = 'test/fixtures/plugins/gated'

let host: Host
let root: string

beforeAll(async () => {
  registry.clear()
  root = mkdtempSync(path.join(os.tmpdir(), 'toolhost-call-'))
  host = await createHost({
    config: {
      plugins: { dirs: [] },
      env_file: '',
      availability: { check_timeout_ms: 100 },
      limits: { max_argument_chars: 200 },
      permissions: { mode: 'bypass' },
    },
    plugins: [CALLS, GATED],
    root,
    env: { TOOLHOST_FIXTURE_TOKEN: 'secret' },
    log: silentLogger,
  })
  expect(host.pluginReport.failed).toEqual([])
})

afterAll(async () => {
  await host.close()
  rmSync(root, { recursive: true, force: true })
})

beforeEach(() => resetCounters())

const call = (name: string, args?: ToolCall['arguments']) => host.call({ id: 'c1', name, arguments: args })

describe('parse: raw argument text → object', () => {
  test.each([
    { args: '', why: 'empty string' },
    { args: '   \n\t ', why: 'whitespace' },
    { args: undefined, why: 'undefined' },
    { args: null, why: 'null' },
    { args: '{}', why: 'empty object' },
    { args: {}, why: 'an already-parsed object' },
  ])('$why means {}', async ({ args }) => {
    expect(await call('no_args', args)).toEqual({ id: 'c1', name: 'no_args', ok: true, content: 'no args needed' })
  })

  test.each([
    { args: '{"name": ', expect: /^the arguments are not valid JSON \(.+\); send one JSON object$/ },
    { args: "{'name': 'x'}", expect: /not valid JSON/ },
    { args: '"text"', expect: /must be a JSON object, got string/ },
    { args: '42', expect: /must be a JSON object, got number/ },
    { args: 'null', expect: /must be a JSON object, got null/ },
    { args: 'true', expect: /must be a JSON object, got boolean/ },
    { args: '[1, 2]', expect: /must be a JSON object, got an array/ },
    { args: [] as unknown as Record<string, unknown>, expect: /must be a JSON object, got an array/ },
    { args: 7 as unknown as string, expect: /must be a JSON object, got number/ },
    { args: `{"name": "${'x'.repeat(200)}"}`, expect: /are 212 characters, over the limit of 200; send less data per call/ },
  ])('$args → E_ARGS_INVALID $expect', async ({ args, expect: message }) => {
    const result = await call('typed', args)
    expect(result).toMatchObject({ id: 'c1', name: 'typed', ok: false, error: { code: 'E_ARGS_INVALID' } })
    expect(result.error!.message).toMatch(message)
    expect(result.content).toBe(result.error!.message)
    expect(countOf('ran:typed')).toBe(0)
  })

  test('invalid JSON quotes the parser error', async () => {
    const raw = '{"name": "x",}'
    let parserMessage = ''
    try {
      JSON.parse(raw)
    } catch (error) {
      parserMessage = (error as Error).message
    }
    expect((await call('typed', raw)).error!.message).toContain(parserMessage)
  })
})

describe('resolve: name → tool', () => {
  test.each([
    { name: 'typd', hint: 'Did you mean "typed"?' },
    { name: 'THROWS', hint: 'Did you mean "throws" or' },
    { name: 'returns_nul', hint: '"returns_null"' },
    { name: 'zzzzqqqq', hint: 'Call one of the tools you were given.' },
  ])('$name → E_TOOL_UNKNOWN with $hint', async ({ name, hint }) => {
    const result = await call(name, '{}')
    expect(result).toMatchObject({ name, ok: false, error: { code: 'E_TOOL_UNKNOWN' } })
    expect(result.error!.message).toContain(`there is no tool named "${name}"`)
    expect(result.error!.message).toContain(hint)
  })

  test('a tool hidden right now is not suggested (calling it would only fail again)', async () => {
    expect((await call('check_fals', '{}')).error).toEqual({ code: 'E_TOOL_UNKNOWN', message: 'there is no tool named "check_fals". Call one of the tools you were given.' })
    expect((await call('check_async_tru', '{}')).error!.message).toBe('there is no tool named "check_async_tru". Did you mean "check_async_true" or "check_sync_true"?')
    expect(countOf('ran:check_false')).toBe(0)
  })

  test('unknown is decided before the arguments are validated, after they are parsed', async () => {
    expect((await call('typd', 'not json')).error!.code).toBe('E_ARGS_INVALID')
    expect((await call('typd', '{"bad": 1}')).error!.code).toBe('E_TOOL_UNKNOWN')
  })
})

describe('availability is re-checked at call time: a hidden tool never runs, even called by name', () => {
  test.each([
    { name: 'check_false', reason: 'check returned false' },
    { name: 'check_throws', reason: 'check threw: the service is down' },
    { name: 'check_rejects', reason: 'check threw: token expired' },
    { name: 'check_slow', reason: 'check took longer than 100 ms' },
    { name: 'gated_two_vars', reason: 'missing env vars TOOLHOST_FIXTURE_A, TOOLHOST_FIXTURE_B' },
  ])('$name → E_TOOL_UNAVAILABLE ($reason)', async ({ name, reason }) => {
    const result = await call(name, '{}')
    expect(result).toMatchObject({ ok: false, error: { code: 'E_TOOL_UNAVAILABLE' } })
    // An embedding's host: the model's advice first, then what offers the tool (see test/contract/messages.test.ts).
    expect(result.error!.message.startsWith(`${name} is not available right now (${reason}); use another tool. `)).toBe(true)
    expect(countOf(`ran:${name}`)).toBe(0)
  })

  test.each(['check_async_true', 'check_sync_true', 'shared_a', 'gated_env'])('%s is available and runs', async (name) => {
    expect(await call(name, '{}')).toMatchObject({ ok: true })
  })

  test('host.definitions: available tools only, sorted by name, OpenAI-shaped, filtered by toolset', async () => {
    const all = await host.definitions()
    const names = all.map((d) => d.function.name)
    expect(names).toEqual([...names].sort())
    expect(names).toEqual(expect.arrayContaining(['check_async_true', 'gated_env', 'shared_a', 'typed']))
    for (const hidden of ['check_false', 'check_throws', 'check_rejects', 'check_slow', 'gated_two_vars']) expect(names).not.toContain(hidden)
    expect(all.every((d) => d.type === 'function' && typeof d.function.description === 'string' && d.function.parameters.type === 'object')).toBe(true)
    expect((await host.definitions({ toolsets: ['gated'] })).map((d) => d.function.name)).toEqual(['gated_env'])
    expect((await host.definitions({ names: ['typed', 'check_false'] })).map((d) => d.function.name)).toEqual(['typed'])
  })
})

describe('validate: each missing, unexpected or mistyped field named by its path', () => {
  test.each([
    { args: {}, problems: ['`name` is required but missing'] },
    { args: { name: 'a', colour: 'red' }, problems: ['`colour` is not an accepted field; remove it'] },
    { args: { name: 3 }, problems: ['`name` must be string, got integer'] },
    { args: { name: 'a', count: -1 }, problems: ['`count` must be >= 0, got -1'] },
    { args: { name: 'a', mode: 'medium' }, problems: ['`mode` must be one of "fast", "slow", got "medium"'] },
    { args: { name: 'a', opts: { deep: 'yes', wide: true } }, problems: ['`opts.wide` is not an accepted field; remove it', '`opts.deep` must be boolean, got string'] },
    { args: { name: 'a', tags: ['ok', 5] }, problems: ['`tags[1]` must be string, got integer'] },
    { args: { count: 'two', extra: 1 }, problems: ['`name` is required but missing', '`extra` is not an accepted field; remove it', '`count` must be integer, got string'] },
  ])('$args', async ({ args, problems }) => {
    const result = await call('typed', JSON.stringify(args))
    expect(result.error).toEqual({ code: 'E_ARGS_INVALID', message: `invalid arguments for typed: ${problems.join('; ')}. Fix these fields and call again.` })
    expect(countOf('ran:typed')).toBe(0)
  })

  test('valid arguments reach the handler unchanged', async () => {
    const args = { name: 'a', count: 2, mode: 'fast', opts: { deep: true }, tags: ['x'] }
    expect(await call('typed', JSON.stringify(args))).toEqual({ id: 'c1', name: 'typed', ok: true, content: JSON.stringify(args) })
    expect(countOf('ran:typed')).toBe(1)
  })
})

describe('run: the handler and its result', () => {
  test.each([
    { name: 'returns_object', content: '{"a":1,"list":[true,null]}' },
    { name: 'returns_null', content: 'null' },
  ])('$name → ok, JSON text', async ({ name, content }) => {
    expect(await call(name)).toEqual({ id: 'c1', name, ok: true, content })
  })

  test.each([
    // A plugin's throw names its file and line (issue 31); vitest's module runner maps the line its own way.
    { name: 'throws', message: /^throws failed: the disk is on fire \(thrown at \S*test\/fixtures\/plugins\/calls\/[\w-]+\.ts:\d+\)$/ },
    { name: 'rejects', message: /^rejects failed: the network went away \(thrown at \S*test\/fixtures\/plugins\/calls\/[\w-]+\.ts:\d+\)$/ },
    { name: 'throws_string', message: 'throws_string failed: plain string thrown' },
    { name: 'returns_bigint', message: /^returns_bigint returned a value that cannot be sent as JSON \(.*BigInt.*\); a tool must return a string, content blocks or a JSON-serialisable value$/ },
    { name: 'returns_circular', message: /^returns_circular returned a value that cannot be sent as JSON \(.*circular.*\)/is },
    { name: 'returns_undefined', message: 'returns_undefined returned nothing (undefined); a tool must return a string, content blocks or a JSON-serialisable value' },
    { name: 'returns_function', message: 'returns_function returned function; a tool must return a string, content blocks or a JSON-serialisable value' },
  ])('$name → E_TOOL_FAILED', async ({ name, message }) => {
    const result = await call(name)
    expect(result).toMatchObject({ id: 'c1', name, ok: false, error: { code: 'E_TOOL_FAILED' } })
    if (typeof message === 'string') expect(result.error!.message).toBe(message)
    else expect(result.error!.message).toMatch(message)
  })

  test.each(['E_NOT_FOUND', 'E_LIMIT', 'E_DENIED', 'E_ARGS_INVALID'])('a ToolhostError %s thrown by a handler keeps its code', async (code) => {
    expect((await call('coded', { code })).error).toEqual({ code, message: `coded failure ${code}` })
  })

  test('a thrown error with a code outside the catalogue is E_TOOL_FAILED', async () => {
    expect(Object.hasOwn(ERROR_CODES, 'E_MADE_UP')).toBe(false)
    expect((await call('coded', { code: 'E_MADE_UP' })).error).toEqual({ code: 'E_TOOL_FAILED', message: expect.stringMatching(/^coded failed: coded failure E_MADE_UP \(thrown at \S*test\/fixtures\/plugins\/calls\/[\w-]+\.ts:\d+\)$/) })
  })

  test('a path outside the workspace root → E_PATH_OUTSIDE_ROOT; inside → ok', async () => {
    expect((await call('inside_root', { path: '../elsewhere' })).error!.code).toBe('E_PATH_OUTSIDE_ROOT')
    expect(await call('inside_root', { path: 'sub/file.txt' })).toMatchObject({ ok: true, content: path.join(host.root, 'sub', 'file.txt') })
  })

  // Timing: the tool's own limit is 100 ms; the handler ends only through its abort signal.
  test('a handler past its time limit → E_TIMEOUT saying how long', async () => {
    const result = await call('hangs')
    expect(result.error!.code).toBe('E_TIMEOUT')
    expect(result.error!.message).toMatch(/^timed out after 100 ms running hangs/)
  })

  test('an interrupt: the running call → E_INTERRUPTED, the one not yet started → E_ABORTED', async () => {
    const controller = new AbortController()
    const stop = host.onEvent((event) => {
      // After the start has returned: the scheduler drops an abort heard inside its own 'started' event.
      if (event.type === 'started' && event.id === 'first') queueMicrotask(() => controller.abort())
    })
    try {
      const results = await host.run(
        [
          { id: 'first', name: 'until_abort', arguments: '{}' },
          { id: 'second', name: 'until_abort', arguments: '{}' },
        ],
        { signal: controller.signal },
      )
      expect(results.map((r) => [r.id, r.error?.code])).toEqual([
        ['first', 'E_INTERRUPTED'],
        ['second', 'E_ABORTED'],
      ])
      expect(countOf('ran:until_abort')).toBe(1)
    } finally {
      stop()
    }
  })

  test('a refusal by the authoriser → E_DENIED and the handler never runs', async () => {
    // A host of its own over the same (shared) registry, with an authoriser that refuses everything.
    const refusing = await createHost({
      config: { plugins: { dirs: [] }, env_file: '' },
      loadPlugins: false,
      root: mkdtempSync(path.join(os.tmpdir(), 'toolhost-call-refusing-')),
      log: silentLogger,
      authoriser: { authorise: async (items) => items.map(() => ({ run: false as const, error: { code: 'E_DENIED', message: 'not today' } })) },
    })
    try {
      expect((await refusing.call({ id: 'c1', name: 'typed', arguments: { name: 'a' } })).error).toEqual({ code: 'E_DENIED', message: 'not today' })
      expect(countOf('ran:typed')).toBe(0)
    } finally {
      await refusing.close()
      rmSync(refusing.root, { recursive: true, force: true })
    }
  })
})

test('a batch gets exactly one result per call, in call order, each failure in its own slot', async () => {
  const calls: ToolCall[] = [
    { id: '1', name: 'typed', arguments: '{"name":"ok"}' },
    { id: '2', name: 'typed', arguments: '{' },
    { id: '3', name: 'nope', arguments: '{}' },
    { id: '4', name: 'check_false', arguments: '{}' },
    { id: '5', name: 'typed', arguments: '{}' },
    { id: '6', name: 'throws', arguments: '' },
    { id: '7', name: 'returns_object' },
  ]
  const results = await host.run(calls)
  expect(results.map((r) => [r.id, r.name, r.ok, r.error?.code])).toEqual([
    ['1', 'typed', true, undefined],
    ['2', 'typed', false, 'E_ARGS_INVALID'],
    ['3', 'nope', false, 'E_TOOL_UNKNOWN'],
    ['4', 'check_false', false, 'E_TOOL_UNAVAILABLE'],
    ['5', 'typed', false, 'E_ARGS_INVALID'],
    ['6', 'throws', false, 'E_TOOL_FAILED'],
    ['7', 'returns_object', true, undefined],
  ])
  for (const r of results) expect(Object.keys(r).sort()).toEqual(r.ok ? ['content', 'id', 'name', 'ok'] : ['content', 'error', 'id', 'name', 'ok'])
})
