// A plugin's prompts and resources at the CLI (issue 31, a new user's frictions): doctor showed a
// prompts-and-resources plugin as "(no tools)", and the CLI could neither list them nor render a
// prompt or read a resource. In-process through main(), as cli-core.test.ts runs its variations.
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { main } from '../../src/cli/main.js'
import { registry } from '../../src/registry/registry.js'

const CONFIG = path.resolve('test/fixtures/config/cli.yaml')
const PLUGINS = path.resolve('test/fixtures/conformance/plugins')
let root: string

async function toolhost(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const code = await main([...argv, '--plugins', PLUGINS, '--config', CONFIG, '--root', root], { out: (t) => (stdout += t + '\n'), err: (t) => (stderr += t + '\n') })
  return { code, stdout, stderr }
}

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolhost-cli-prompts-'))
})
beforeEach(() => registry.clear())
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('doctor and list show prompts and resources', () => {
  test('doctor names what a prompts-and-resources plugin registered (was "(no tools)")', async () => {
    const { stdout } = await toolhost('doctor')
    expect(stdout).toContain(`  ok      ${PLUGINS}/prompts.ts (prompts test_prompt_with_arguments, test_prompt_with_embedded_resource, test_prompt_with_image, test_simple_prompt)\n`)
    expect(stdout).toContain(`  ok      ${PLUGINS}/resources.ts (resources test://static-binary, test://static-text, test://template/{id}/data, test://watched-resource)\n`)
    expect(stdout).not.toContain('(no tools)')
  })

  test('list: a table of prompts (with their arguments) and one of resources under the tools', async () => {
    const { code, stdout } = await toolhost('list')
    expect(code).toBe(0)
    expect(stdout).toMatch(/^test_prompt_with_arguments +arg1, arg2 +available$/m)
    expect(stdout).toMatch(/^test_simple_prompt +- +available$/m)
    expect(stdout).toMatch(/^test:\/\/static-text +available$/m)
    expect(stdout).toMatch(/^test:\/\/template\/\{id\}\/data \(template\) +available$/m)
  })

  test('list --json: prompts and resources beside the tools', async () => {
    const json = JSON.parse((await toolhost('list', '--json')).stdout) as { prompts: unknown[]; resources: unknown[] }
    expect(json.prompts).toContainEqual({ name: 'test_prompt_with_arguments', description: 'A prompt with two required arguments.', arguments: ['arg1', 'arg2'], available: true })
    expect(json.resources).toContainEqual({ uri: 'test://static-text', name: 'static-text', description: 'A static text resource.', mimeType: 'text/plain', available: true })
    expect(json.resources).toContainEqual({ uriTemplate: 'test://template/{id}/data', name: 'template-data', description: 'Data for an id.', mimeType: 'application/json', available: true })
  })
})

describe('toolhost prompt NAME [--arg K=V]', () => {
  test('renders the prompt\'s messages with its arguments', async () => {
    const { code, stdout } = await toolhost('prompt', 'test_prompt_with_arguments', '--arg', 'arg1=a b', '--arg', 'arg2=x=y')
    expect(code).toBe(0)
    expect(stdout).toBe("# A prompt with two required arguments.\nuser: Prompt with arguments: arg1='a b', arg2='x=y'\n")
  })

  test('--json: the rendered prompt as prompts/get answers it', async () => {
    const json = JSON.parse((await toolhost('prompt', 'test_prompt_with_image', '--json')).stdout) as { messages: Array<{ role: string; content: { type: string } }> }
    expect(json.messages.map((m) => [m.role, m.content.type])).toEqual([['user', 'image'], ['user', 'text']])
  })

  test.each([
    ['a missing required argument', ['test_prompt_with_arguments', '--arg', 'arg1=a'], /^error E_ARGS_INVALID: .*`arg2` is required/],
    ['an unknown prompt', ['test_nope'], /^error E_NOT_FOUND: /],
  ])('%s: said on stderr with its code, exit 1', async (_why, argv, message) => {
    const { code, stderr } = await toolhost('prompt', ...argv)
    expect(code).toBe(1)
    expect(stderr.split('\n').find((line) => line.startsWith('error '))).toMatch(message)
  })

  test.each([
    [['prompt', 'test_simple_prompt', '--arg', 'novalue'], /--arg takes KEY=VALUE; got "novalue"/],
    [['list', '--arg', 'a=b'], /--arg gives a prompt's argument/],
  ])('%j: a usage error, exit 2', async (argv, message) => {
    const { code, stderr } = await toolhost(...argv)
    expect(code).toBe(2)
    expect(stderr).toMatch(message)
  })
})

describe('toolhost resource URI', () => {
  test.each([
    ['a fixed resource: its text', 'test://static-text', 'This is the content of the static text resource.\n'],
    ['a template\'s URI: what its read gives', 'test://template/7/data', '{"id":"7","templateTest":true,"data":"Data for ID: 7"}\n'],
    ['a binary part: its type and size', 'test://static-binary', '[image/png, 69 bytes; --json gives it in base64]\n'],
  ])('%s', async (_why, uri, expected) => {
    const { code, stdout } = await toolhost('resource', uri)
    expect(code).toBe(0)
    expect(stdout).toBe(expected)
  })

  test('--json: {contents}, a binary part in base64', async () => {
    const json = JSON.parse((await toolhost('resource', 'test://static-binary', '--json')).stdout) as { contents: Array<{ uri: string; mimeType: string; blob: string }> }
    expect(json.contents).toEqual([{ uri: 'test://static-binary', mimeType: 'image/png', blob: expect.stringMatching(/^iVBOR/) }])
  })

  test('an unknown URI: E_NOT_FOUND on stderr, exit 1', async () => {
    const { code, stderr } = await toolhost('resource', 'test://nope')
    expect(code).toBe(1)
    expect(stderr).toMatch(/^error E_NOT_FOUND: resource "test:\/\/nope" not found/m)
  })
})
