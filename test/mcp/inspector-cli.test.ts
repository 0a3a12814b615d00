/**
 * The MCP Inspector CLI 1.x (`@modelcontextprotocol/inspector-cli`, an SDK v1 client speaking the
 * 2025 revisions) against a spawned `toolhost serve`, over stdio and over Streamable HTTP: the
 * listing, a call and its answer, a refused call, and plugin prompts, as a person using the
 * Inspector would see them (its JSON on stdout).
 *
 * Runs the Inspector's `build/index.js` (its `cli.js` only adds a deprecation banner). Inspector 1.0.3
 * looks for `../package.json` relative to the working folder before importing it relative to its own
 * file, so it is run from a folder whose parent has a package.json (the temp project below).
 */
import { execFile } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { TOOLHOST_CLI } from '../toolhost-cli.js'
import { FIXTURE_CONFIG, makeTempDir, REPO, startHttpServer } from './serve-helpers.js'

const INSPECTOR = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build/index.js')
const PROMPTS = path.join(REPO, 'test/fixtures/conformance/plugins')

const tmp = makeTempDir('toolhost-inspector-')
const cwd = path.join(tmp.dir, 'project', 'run')
afterAll(() => tmp.remove())
beforeAll(() => {
  mkdirSync(cwd, { recursive: true })
  writeFileSync(path.join(tmp.dir, 'project', 'package.json'), '{ "name": "inspector-user", "private": true }\n')
})

/** Runs the Inspector CLI with `args`; its stdout parsed as JSON when it exits 0. */
function inspect(args: string[]): Promise<{ code: number; json: unknown; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [INSPECTOR, ...args], { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1
      let json: unknown
      try {
        json = JSON.parse(stdout)
      } catch {
        json = undefined
      }
      resolve({ code, json, stderr: `${stderr}${stdout}` })
    })
  })
}

const text = (result: unknown): string => ((result as { content: Array<{ text: string }> }).content[0]?.text ?? '')

describe('MCP Inspector CLI 1.x over stdio', { timeout: 120_000 }, () => {
  const serve = ['node', TOOLHOST_CLI, 'serve', '--root', tmp.dir, '--config', FIXTURE_CONFIG, '--plugins', PROMPTS]

  test('tools/list names the fixture tools in order, each with its input schema', async () => {
    const out = await inspect([...serve, '--method', 'tools/list'])
    expect(out.code, out.stderr).toBe(0)
    const tools = (out.json as { tools: Array<{ name: string; inputSchema: { type: string } }> }).tools
    const names = tools.map((t) => t.name)
    expect(names).toEqual(expect.arrayContaining(['peek', 'touch_path', 'zap']))
    expect(names).toEqual([...names].sort())
    expect(tools.every((t) => t.inputSchema.type === 'object')).toBe(true)
  })

  test('tools/call runs the tool and answers its text; a bad argument is a tool error naming it, not a crash', async () => {
    const ok = await inspect([...serve, '--method', 'tools/call', '--tool-name', 'zap', '--tool-arg', 'path=a.txt'])
    expect(ok.code, ok.stderr).toBe(0)
    expect(text(ok.json)).toBe('zapped a.txt')
    const bad = await inspect([...serve, '--method', 'tools/call', '--tool-name', 'touch_path', '--tool-arg', 'path=a.txt', 'ms=-1'])
    expect(bad.code, bad.stderr).toBe(0)
    expect((bad.json as { isError?: boolean }).isError).toBe(true)
    expect(text(bad.json)).toMatch(/E_ARGS_INVALID[\s\S]*ms/)
  })

  test('prompts/list and prompts/get serve the plugins\' prompts', async () => {
    const list = await inspect([...serve, '--method', 'prompts/list'])
    expect(list.code, list.stderr).toBe(0)
    expect((list.json as { prompts: Array<{ name: string }> }).prompts.map((p) => p.name)).toContain('test_simple_prompt')
    const got = await inspect([...serve, '--method', 'prompts/get', '--prompt-name', 'test_simple_prompt'])
    expect(got.code, got.stderr).toBe(0)
    expect((got.json as { messages: unknown[] }).messages.length).toBeGreaterThan(0)
  })
})

describe('MCP Inspector CLI 1.x over Streamable HTTP', { timeout: 120_000 }, () => {
  let server: Awaited<ReturnType<typeof startHttpServer>> | undefined
  beforeAll(async () => {
    server = await startHttpServer(['--config', FIXTURE_CONFIG], tmp.dir)
  }, 60_000)
  afterAll(async () => server?.stop())

  test('tools/list and tools/call through a 2025 session', async () => {
    const url = server!.url.href
    const list = await inspect([url, '--transport', 'http', '--method', 'tools/list'])
    expect(list.code, list.stderr).toBe(0)
    expect((list.json as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toContain('peek')
    const call = await inspect([url, '--transport', 'http', '--method', 'tools/call', '--tool-name', 'peek'])
    expect(call.code, call.stderr).toBe(0)
    expect(text(call.json)).toBe('peeked')
  })

  test('an unknown tool is one clear error', async () => {
    const out = await inspect([server!.url.href, '--transport', 'http', '--method', 'tools/call', '--tool-name', 'no_such_tool'])
    const said = JSON.stringify(out.json ?? out.stderr)
    expect(said).toMatch(/no_such_tool/)
    expect(said.match(/MCP error -32602/g)?.length ?? 0).toBeLessThanOrEqual(1)
  })
})
