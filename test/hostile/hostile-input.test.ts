// The hostile-input suite (issue 12): fast-check batches of what an adversarial model or MCP client
// sends — arguments nested deep, huge, keyed "__proto__", unicode, lone surrogates, NUL, numbers at
// the edges, wrong shapes, paths out of the root, backtracking patterns, odd tool names — through all
// four entry points: createHost().run(), the CLI (run and call), MCP stdio and MCP HTTP. After every
// batch: the host is alive (it answers a follow-up echo), every call was answered exactly once with
// a result carrying a catalogue code, and nothing outside the root changed or leaked.
// Replay a failure with TOOLHOST_HOSTILE_SEED=<seed> (fast-check prints the seed and path).
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createHost, registry, type Host, type ToolCall, type ToolResult } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { connectStdio, REPO, startHttpServer } from '../mcp/serve-helpers.js'
import { makeSandbox, SECRET, snapshot, type Sandbox } from '../workspace/sandbox.js'
import { answerProblems, asMcpArguments, asObject, EXTREME_BATCH, hasCatalogueCode, hostileBatch, jsonText, SEED } from './hostile-arbitraries.js'
import { outputOf, TOOLHOST_CLI } from '../toolhost-cli.js'

const BIN = TOOLHOST_CLI

let sb: Sandbox
let config: string
let outside: Map<string, string>
// The suite's own files (config, batch files) live apart from the sandbox it watches.
const own = mkdtempSync(path.join(os.tmpdir(), 'toolhost-hostile-own-'))

beforeAll(() => {
  sb = makeSandbox('toolhost-hostile-')
  config = path.join(own, 'hostile.yaml')
  // No .env; every call runs except the terminal and process tools (a deny rule); small limits.
  writeFileSync(config, [
    'env_file: ""',
    `plugins: { dirs: [${JSON.stringify(path.join(REPO, 'plugins'))}, ${JSON.stringify(path.join(REPO, 'test/fixtures/hostile/plugins'))}] }`,
    'permissions: { mode: bypass, deny: [terminal, process] }',
    'limits: { max_argument_chars: 300000, max_result_chars: 20000 }',
    'dispatch: { timeout_ms: 5000, interrupt_grace_ms: 300 }',
  ].join('\n'))
  outside = snapshot(sb.base, sb.root)
})

afterAll(() => {
  registry.clear()
  sb.cleanup()
  rmSync(own, { recursive: true, force: true })
})

/** After each batch: nothing outside the root changed, and no answer carried the secret beside it. */
function expectNothingLeaked(texts: readonly string[]): void {
  const now = snapshot(sb.base, sb.root)
  const changed = [...new Set([...now.keys(), ...outside.keys()])].filter((key) => now.get(key) !== outside.get(key))
  expect(changed, `changed outside the root (seed ${SEED})`).toEqual([])
  const leaked = texts.filter((text) => text.includes(SECRET)).map((text) => text.slice(0, 200))
  expect(leaked, `answers carried the secret (seed ${SEED})`).toEqual([])
}

const runs = (n: number) => ({ seed: SEED, numRuns: n, endOnFailure: true })
// Properties of one batch start with the known breaks (fast-check runs `examples` first).
const batchRuns = (n: number) => ({ ...runs(n), examples: [[EXTREME_BATCH] as [ToolCall[]]] })

describe('createHost().run()', () => {
  let host: Host
  beforeAll(async () => {
    registry.clear()
    host = await createHost({ root: sb.root, config, configExplicit: true, log: silentLogger })
  })
  afterAll(() => host.close())

  test('hostile batches, as ToolCall[] and as an Anthropic message, answered once each; the host lives on', async () => {
    await fc.assert(
      fc.asyncProperty(hostileBatch, fc.boolean(), async (calls, asAnthropic) => {
        const input = asAnthropic
          ? { role: 'assistant', content: calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: asObject(c.arguments) })) }
          : calls
        const results = await host.run(input)
        expect(answerProblems(calls, results), `seed ${SEED}`).toEqual([])
        const [alive] = await host.run([{ id: 'alive', name: 'echo', arguments: { text: 'alive' } }])
        expect(alive).toMatchObject({ ok: true, content: 'alive' })
        expectNothingLeaked(results.map((r) => r.content))
      }),
      { ...runs(40), examples: [[EXTREME_BATCH, false], [EXTREME_BATCH, true]] },
    )
  })
})

describe('the CLI', { timeout: 120_000 }, () => {
  // The command, then the options, then the rest: a `--` in the rest makes every later word a
  // positional, whatever it looks like.
  function toolhost(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, [BIN, args[0]!, '--config', config, '--root', sb.root, ...args.slice(1)], { stdio: ['ignore', 'pipe', 'pipe'] })
    return outputOf(child)
  }

  test('run: the known breaks and two hostile batches as OpenAI tool_calls; every call answered; exit 0 or 1', async () => {
    for (const calls of [EXTREME_BATCH, ...fc.sample(hostileBatch, { seed: SEED, numRuns: 2 })]) {
      const file = path.join(own, 'batch.json')
      writeFileSync(file, JSON.stringify({ tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : jsonText(c.arguments) } })) }))
      const run = await toolhost(['run', file, '--json'])
      expect([0, 1], `seed ${SEED}: ${run.stderr}`).toContain(run.code)
      const { results } = JSON.parse(run.stdout) as { results: ToolResult[] }
      expect(answerProblems(calls, results), `seed ${SEED}`).toEqual([])
      expectNothingLeaked(results.map((r) => r.content))
    }
  })

  test('call: a hostile call answered with a coded result; then the CLI answers an echo', async () => {
    // Command-line arguments are bounded by the OS (128 KiB each): keep the JSON below that.
    const [call] = fc.sample(hostileBatch.map((calls) => calls[0]!).filter((c) => jsonText(c.arguments).length < 100_000 && c.name.length < 1000 && !c.name.includes('\u0000')), { seed: SEED, numRuns: 1 })
    // After `--`: a generated name may start with "-" (or be empty); it is still the tool's name.
    const run = await toolhost(['call', '--json', '--', call!.name, typeof call!.arguments === 'string' ? call!.arguments : jsonText(call!.arguments)])
    expect([0, 1], `seed ${SEED}: ${run.stderr}`).toContain(run.code)
    const result = JSON.parse(run.stdout) as ToolResult
    expect(answerProblems([{ ...call!, id: 'call_1' }], [result])).toEqual([])
    const alive = await toolhost(['call', 'echo', '{"text":"alive"}'])
    expect(alive.stdout.trim()).toBe('alive')
    expectNothingLeaked([result.content])
  })
})

/** Sends a batch through an MCP client, all at once; returns one problem per call not properly answered. */
async function callOverMcp(client: Client, calls: readonly ToolCall[]): Promise<{ problems: string[]; texts: string[] }> {
  const answers = await Promise.allSettled(calls.map((c) => client.callTool({ name: c.name, arguments: asMcpArguments(c.arguments) })))
  const problems: string[] = []
  const texts: string[] = []
  answers.forEach((a, i) => {
    if (a.status === 'rejected') {
      // A protocol error is the MCP answer for an unknown tool (InvalidParams) or an unreadable message.
      const ok = a.reason instanceof McpError && (a.reason.code === ErrorCode.InvalidParams || a.reason.code === ErrorCode.InvalidRequest)
      if (!ok) problems.push(`call ${i} (${calls[i]!.name.slice(0, 40)}) failed: ${String(a.reason)}`)
      return
    }
    const content = a.value.content as Array<{ type: string; text: string }>
    const text = content[0]?.text ?? ''
    texts.push(text)
    if (content.length !== 1 || content[0]!.type !== 'text') problems.push(`call ${i} has ${content.length} content blocks`)
    if (a.value.isError === true && !hasCatalogueCode(text)) problems.push(`call ${i} failed without a catalogue code: ${text.slice(0, 200)}`)
  })
  return { problems, texts }
}

async function echoOverMcp(client: Client): Promise<string> {
  const result = await client.callTool({ name: 'echo', arguments: { text: 'alive' } })
  return (result.content as Array<{ text: string }>)[0]!.text
}

describe('MCP over stdio', { timeout: 120_000 }, () => {
  let client: Client
  beforeAll(async () => {
    ;({ client } = await connectStdio(['--config', config], { root: sb.root }))
  }, 60_000)
  afterAll(() => client?.close())

  test('hostile batches sent concurrently, each answered; the server lives on', async () => {
    await fc.assert(
      fc.asyncProperty(hostileBatch, async (calls) => {
        const { problems, texts } = await callOverMcp(client, calls)
        expect(problems, `seed ${SEED}`).toEqual([])
        expect(await echoOverMcp(client)).toBe('alive')
        expectNothingLeaked(texts)
      }),
      batchRuns(15),
    )
  })
})

describe('MCP over Streamable HTTP', { timeout: 120_000 }, () => {
  let client: Client
  let stop: () => Promise<void>
  beforeAll(async () => {
    const server = await startHttpServer(['--config', config], sb.root)
    stop = server.stop
    client = new Client({ name: 'toolhost-hostile', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(server.url))
  }, 60_000)
  afterAll(async () => {
    await client?.close()
    await stop?.()
  })

  test('hostile batches sent concurrently, each answered; the server lives on', async () => {
    await fc.assert(
      fc.asyncProperty(hostileBatch, async (calls) => {
        const { problems, texts } = await callOverMcp(client, calls)
        expect(problems, `seed ${SEED}`).toEqual([])
        expect(await echoOverMcp(client)).toBe('alive')
        expectNothingLeaked(texts)
      }),
      batchRuns(10),
    )
  })
})
