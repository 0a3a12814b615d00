import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { CallToolResultSchema, ElicitRequestSchema, McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { connectStdio, eventually, FIXTURE_CONFIG, makeTempDir } from './serve-helpers.js'

type Text = { type: string; text: string }

// Spawned servers start through tsx; a busy machine needs generous hook and test timeouts.
describe('toolhost serve over stdio, with the official SDK client', { timeout: 60_000 }, () => {
  const tmp = makeTempDir('toolhost-mcp-stdio-')
  let client: Client
  beforeAll(async () => {
    ;({ client } = await connectStdio(['--config', FIXTURE_CONFIG], { root: tmp.dir }))
  }, 60_000)
  afterAll(async () => {
    await client?.close()
    tmp.remove()
  })

  test('lists the plugin tools with their schemas as-is and annotations from their declarations', async () => {
    const { tools } = await client.listTools()
    const byName = new Map(tools.map((t) => [t.name, t]))
    expect([...byName.keys()]).toEqual(expect.arrayContaining(['touch_path', 'peek', 'zap', 'always_fails', 'wait_for_abort']))
    expect(byName.get('peek')!.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })
    expect(byName.get('zap')!.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true })
    expect(byName.get('touch_path')!.inputSchema).toEqual({
      type: 'object',
      properties: { path: { type: 'string' }, ms: { type: 'integer', minimum: 0, maximum: 5000 } },
      required: ['path'],
      additionalProperties: false,
    })
  })

  test.each([
    { name: 'a call that succeeds', tool: 'peek', args: {}, isError: false, text: 'peeked' },
    { name: 'a handler that throws', tool: 'always_fails', args: {}, isError: true, text: 'E_TOOL_FAILED: always_fails failed: the fixture failed on purpose' },
    { name: 'arguments that fail the schema', tool: 'zap', args: { path: 3 }, isError: true, text: 'E_ARGS_INVALID' },
  ])('$name comes back as a result (isError $isError)', async ({ tool, args, isError, text }) => {
    const result = await client.callTool({ name: tool, arguments: args })
    expect(result.isError).toBe(isError)
    expect((result.content as Text[])[0]!.text).toContain(text)
  })

  test('an unknown tool is a protocol error (InvalidParams), not a result', async () => {
    const error = await client.callTool({ name: 'no_such_tool', arguments: {} }).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(McpError)
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams)
    expect((error as McpError).message).toContain('no_such_tool')
  })

  test('an unknown tool is one clear error: the code once, E_TOOL_UNKNOWN, and the closest tools the client is offered', async () => {
    const error = await client.callTool({ name: 'zapp', arguments: {} }).then(() => undefined, (e: unknown) => e)
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams)
    expect((error as McpError).data).toEqual({ code: 'E_TOOL_UNKNOWN' })
    // What the client shows a person or a model, whole: "MCP error -32602" appears once.
    expect((error as McpError).message).toBe('MCP error -32602: E_TOOL_UNKNOWN: there is no tool named "zapp". Did you mean "zap"?')
  })

  test('concurrent calls on overlapping paths are serialised; on disjoint paths they overlap (timestamps)', async () => {
    // Timing-based, labelled: each call holds its path 300 ms, so overlap would show in the timestamps.
    const call = (p: string) => client.callTool({ name: 'touch_path', arguments: { path: p, ms: 300 } })
    const [a, b, c] = await Promise.all([call('src'), call('src/deep/file.txt'), call('docs')])
    const span = (r: Awaited<ReturnType<typeof call>>) => JSON.parse((r.content as Text[])[0]!.text) as { start: number; end: number }
    const [sa, sb, sc] = [span(a), span(b), span(c)]
    const [first, second] = sa.start <= sb.start ? [sa, sb] : [sb, sa]
    expect(second.start).toBeGreaterThanOrEqual(first.end)
    expect(sc.start).toBeLessThan(Math.max(sa.end, sb.end)) // docs does not wait for src
  })

  test('a cancelled request aborts the running handler, and progress arrives for a progress token', async () => {
    const controller = new AbortController()
    const progress: number[] = []
    const pending = client.callTool({ name: 'wait_for_abort', arguments: { tag: 'cancel-1' } }, CallToolResultSchema, {
      signal: controller.signal,
      onprogress: (p) => progress.push(p.progress),
    })
    await eventually(() => (progress.length >= 2 ? true : undefined), 'two progress notifications')
    controller.abort('test cancels')
    await expect(pending).rejects.toThrow()
    const seen = path.join(tmp.dir, 'abort-seen.txt')
    await eventually(() => (existsSync(seen) && readFileSync(seen, 'utf8').includes('cancel-1') ? true : undefined), 'the handler to see its abort')
    expect(progress).toEqual([...progress].sort((x, y) => x - y))
  })
})

describe('elicitation: clarify and approvals ask the client only when it can be asked', { timeout: 60_000 }, () => {
  const tmp = makeTempDir('toolhost-mcp-elicit-')
  afterAll(() => tmp.remove())

  test('a client with elicitation answers clarify, and is asked to approve a call in ask mode; its answer decides', async () => {
    const { client } = await connectStdio(['--config', FIXTURE_CONFIG, '--permission-mode', 'ask'], { root: tmp.dir, elicitation: true })
    const asked: string[] = []
    let answer = 'allow-once'
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message)
      if (request.params.message.startsWith('Which')) {
        expect(Object.keys((request.params as { requestedSchema: { properties: object } }).requestedSchema.properties)).toEqual(['choice', 'other'])
        return { action: 'accept', content: { choice: 'blue' } }
      }
      return { action: 'accept', content: { decision: answer } }
    })
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('clarify')
      const clarified = await client.callTool({ name: 'clarify', arguments: { question: 'Which colour?', choices: ['red', 'blue'] } })
      expect(clarified).toMatchObject({ isError: false, content: [{ text: 'blue' }] })
      asked.length = 0
      const allowed = await client.callTool({ name: 'zap', arguments: { path: 'a.txt' } })
      expect(allowed.isError).toBe(false)
      expect((allowed.content as Text[])[0]!.text).toBe('zapped a.txt')
      answer = 'deny'
      const denied = await client.callTool({ name: 'zap', arguments: { path: 'b.txt' } })
      expect(denied.isError).toBe(true)
      expect((denied.content as Text[])[0]!.text).toContain('E_DENIED')
      expect(asked).toHaveLength(2)
      expect(asked[0]).toContain('zap')
    } finally {
      await client.close()
    }
  })

  test('a client without elicitation has no clarify and gets approvals denied', async () => {
    const { client } = await connectStdio(['--config', FIXTURE_CONFIG, '--permission-mode', 'ask'], { root: tmp.dir })
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('clarify')
      const clarify = await client.callTool({ name: 'clarify', arguments: { question: 'Which colour?' } })
      expect(clarify.isError).toBe(true)
      expect((clarify.content as Text[])[0]!.text).toContain('E_TOOL_UNAVAILABLE')
      const peek = await client.callTool({ name: 'peek', arguments: {} })
      expect(peek.isError).toBe(false) // read-only: no approval needed
      const denied = await client.callTool({ name: 'zap', arguments: { path: 'a.txt' } })
      expect(denied.isError).toBe(true)
      expect((denied.content as Text[])[0]!.text).toContain('E_DENIED')
    } finally {
      await client.close()
    }
  })
})
