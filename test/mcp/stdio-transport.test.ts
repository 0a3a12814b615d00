// One stdio message over the limit is answered, not fatal (issue 12, item 6): before, a 20 MB
// write_file made `serve` exit 0 with nothing answered. The transport drops the oversized line as it
// arrives and answers it with a JSON-RPC error carrying its id; calls in flight and later messages go on.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BoundedStdioTransport } from '../../src/mcp/stdio-transport.js'
import { connectStdio, makeTempDir, REPO } from './serve-helpers.js'

function transportPair(maxMessageBytes: number): { stdin: PassThrough; sent: () => unknown[]; received: JSONRPCMessage[]; transport: BoundedStdioTransport } {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  let out = ''
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
  const transport = new BoundedStdioTransport({ maxMessageBytes, stdin, stdout })
  const received: JSONRPCMessage[] = []
  transport.onmessage = (message) => received.push(message)
  transport.onerror = () => undefined
  return { stdin, transport, received, sent: () => out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown) }
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
const request = (id: number, extra = ''): string => JSON.stringify({ method: 'tools/call', params: { name: 'echo', arguments: { text: extra } }, jsonrpc: '2.0', id })

describe('BoundedStdioTransport', () => {
  test('messages split across chunks are put together; several in one chunk are split', async () => {
    const { stdin, transport, received } = transportPair(1024)
    await transport.start()
    const two = `${request(1)}\n${request(2)}\n`
    stdin.write(two.slice(0, 10))
    stdin.write(two.slice(10))
    await flush()
    expect(received.map((m) => (m as { id: number }).id)).toEqual([1, 2])
  })

  test('an oversized message is answered with its id (read at its end, the SDK\'s order), and the next one is read', async () => {
    const { stdin, transport, received, sent } = transportPair(1024)
    await transport.start()
    const big = request(7, 'x'.repeat(10_000))
    for (let i = 0; i < big.length; i += 700) stdin.write(big.slice(i, i + 700))
    stdin.write(`\n${request(8)}\n`)
    await flush()
    expect(received.map((m) => (m as { id: number }).id)).toEqual([8])
    expect(sent()).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: ErrorCode.InvalidRequest, message: expect.stringMatching(/^the message is 10\d{3} bytes, over the limit of 1024 \(serve\.max_message_bytes\)/) } }])
  })

  test('the id is read at the start too; a message without one is answered with id null', async () => {
    const { stdin, transport, sent } = transportPair(256)
    await transport.start()
    stdin.write(`{"jsonrpc":"2.0","id":"first","method":"tools/call","params":{"x":"${'y'.repeat(1000)}"}}\n`)
    stdin.write(`{"jsonrpc":"2.0","method":"notifications/x","params":{"x":"${'y'.repeat(1000)}"}}\n`)
    await flush()
    expect(sent().map((m) => (m as { id: unknown }).id)).toEqual(['first', null])
  })

  test('a line that is not JSON is answered with a parse error; the next line is read', async () => {
    const { stdin, transport, received, sent } = transportPair(1024)
    await transport.start()
    stdin.write(`not json\n${request(3)}\n`)
    await flush()
    expect(sent()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: ErrorCode.ParseError, message: 'the message is not a valid JSON-RPC message' } }])
    expect(received).toHaveLength(1)
  })
})

describe('toolhost serve with a message over serve.max_message_bytes', { timeout: 60_000 }, () => {
  const tmp = makeTempDir('toolhost-mcp-size-')
  let client: Client
  beforeAll(async () => {
    const config = path.join(tmp.dir, 'config.yaml')
    writeFileSync(config, `env_file: ""\nplugins:\n  dirs: [${JSON.stringify(path.join(REPO, 'plugins'))}]\npermissions:\n  mode: bypass\nserve:\n  max_message_bytes: 1048576\n`)
    ;({ client } = await connectStdio(['--config', config], { root: tmp.dir }))
  }, 60_000)
  afterAll(async () => {
    await client?.close()
    tmp.remove()
  })

  test('a 2 MB write_file is refused with an error for that request; a call in flight and a later one are answered', async () => {
    const inFlight = client.callTool({ name: 'wait', arguments: { ms: 300 } })
    const refused = await client.callTool({ name: 'write_file', arguments: { path: 'big.txt', content: 'x'.repeat(2_000_000) } }).then(() => undefined, (e: unknown) => e)
    expect(refused).toBeInstanceOf(McpError)
    expect((refused as McpError).code).toBe(ErrorCode.InvalidRequest)
    expect((refused as McpError).message).toContain('over the limit of 1048576 (serve.max_message_bytes)')
    expect((await inFlight).isError).toBe(false)
    const after = await client.callTool({ name: 'echo', arguments: { text: 'still serving' } })
    expect((after.content as Array<{ text: string }>)[0]!.text).toBe('still serving')
  })
})
