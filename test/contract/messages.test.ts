// One message catalogue, rendered for its reader: a model over MCP, a person at the CLI, a developer
// embedding the host. The end-to-end tests read what each reader really gets: the CLI's stderr, the
// MCP client's tool result, the embedding's ToolResult.
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { createHost, defineTool, ToolRegistry } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { noOneToAskMessage, stripRootPath, unavailableMessage } from '../../src/contract/messages.js'
import { makeRoot } from '../fixtures/permissions/tools.js'
import { connectStdio, REPO } from '../mcp/serve-helpers.js'
import { outputOf, TOOLHOST_CLI } from '../toolhost-cli.js'

const CONFIG = path.join(REPO, 'test/fixtures/permissions/cli.yaml')
const NOTES = path.join(REPO, 'test/fixtures/permissions/plugins')
const GATED = path.join(REPO, 'test/fixtures/plugins/gated')
const weather = { tool: 'weather', reason: 'missing env var WEATHER_API_KEY', missingEnv: ['WEATHER_API_KEY'] }
const edit = { tool: 'write_file', reason: 'write_file is not read-only for these arguments (mode ask)', rule: 'write_file(notes.md)', modes: ['accept-edits', 'auto', 'bypass'] }

describe('E_TOOL_UNAVAILABLE for each reader', () => {
  test.each([
    ['model', 'weather is not available right now (missing env var WEATHER_API_KEY); use another tool'],
    ['person', 'weather is not available: missing env var WEATHER_API_KEY. Set WEATHER_API_KEY (in the environment or the .env file) and run it again.'],
    ['developer', 'weather is not available right now (missing env var WEATHER_API_KEY); use another tool. To offer it, set WEATHER_API_KEY in the environment the host reads (createHost({ env }), or the .env file).'],
  ] as const)('%s', (audience, text) => {
    expect(unavailableMessage(weather, audience)).toBe(text)
  })

  test('hidden by a check rather than a variable: the person is pointed at list and doctor', () => {
    expect(unavailableMessage({ tool: 'clarify', reason: 'check returned false', missingEnv: [] }, 'person')).toBe('clarify is not available: check returned false. `toolhost list` shows why each tool is hidden; `toolhost doctor` checks the set-up.')
  })
})

describe('E_DENIED when no one could be asked, for each reader: never "the user denied"', () => {
  test.each([
    ['model', /nobody refused it\. Do not retry it as is\. Tell the user what you wanted to do: they can allow it in the toolhost server's permissions \(permissions\.allow: \["write_file\(notes\.md\)"\] in its config\.yaml/],
    ['person', /To allow it: add permissions\.allow: \["write_file\(notes\.md\)"\] to config\.yaml, run with --permission-mode accept-edits or auto or bypass, or pass --yes/],
    ['developer', /To allow it: pass createHost\(\{ permissionMode: 'accept-edits' or 'auto' or 'bypass' \}\), an approve handler \(createHost\(\{ approve \}\)\), or add permissions\.allow: \["write_file\(notes\.md\)"\] to the host's config\./],
  ] as const)('%s', (audience, advice) => {
    const text = noOneToAskMessage(edit, audience)
    expect(text.startsWith('write_file did not run: it needs approval (write_file is not read-only for these arguments (mode ask)) and no one could be asked; nobody refused it.')).toBe(true)
    expect(text).toMatch(advice)
    expect(text).not.toMatch(/user denied/)
  })

  test('the embedding names no CLI flag, the CLI no createHost option', () => {
    expect(noOneToAskMessage(edit, 'developer')).not.toMatch(/--permission-mode|--yes/)
    expect(noOneToAskMessage(edit, 'person')).not.toMatch(/createHost/)
  })
})

describe('stripRootPath: no absolute server paths in messages to clients', () => {
  test.each([
    ["ENOENT: no such file or directory, open '/srv/w/a/b.txt'", "ENOENT: no such file or directory, open 'a/b.txt'"],
    ['the workspace root (/srv/w) and /srv/w.bak', 'the workspace root (.) and /srv/w.bak'],
    ['the folder /srv/w', 'the folder .'],
    ['a sibling /srv/work/x is left alone', 'a sibling /srv/work/x is left alone'],
    ['nothing to change', 'nothing to change'],
  ])('%s', (text, expected) => {
    expect(stripRootPath(text, '/srv/w')).toBe(expected)
  })
})

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [TOOLHOST_CLI, ...args], { cwd: REPO, env, stdio: ['pipe', 'pipe', 'pipe'] })
  child.stdin.end()
  return outputOf(child)
}

describe('what each reader actually gets', () => {
  let root: string
  let cleanup: () => void
  beforeEach(() => ({ root, cleanup } = makeRoot()))
  afterEach(() => cleanup())
  const env = (): NodeJS.ProcessEnv => {
    const { TOOLHOST_FIXTURE_TOKEN: _drop, ...rest } = process.env
    return rest
  }

  test('a person at `toolhost call`: what makes the tool available, and how to allow a call', async () => {
    const common = ['--config', CONFIG, '--root', root, '--plugins', NOTES, '--plugins', GATED]
    const hidden = await cli(['call', 'gated_env', '{}', ...common], env())
    expect(hidden.code).toBe(1)
    expect(hidden.stderr).toContain('gated_env is not available: missing env var TOOLHOST_FIXTURE_TOKEN. Set TOOLHOST_FIXTURE_TOKEN (in the environment or the .env file) and run it again.')
    expect(hidden.stderr).not.toContain('use another tool')
    const denied = await cli(['call', 'save_note', '{"path":"a.txt","text":"hi"}', ...common], env())
    expect(denied.stderr).toContain('no one could be asked; nobody refused it. To allow it: add permissions.allow: ["save_note(a.txt)"] to config.yaml, run with --permission-mode')
    expect(denied.stderr).not.toContain(root)
  })

  test('a model over MCP (a client without elicitation): use another tool; no one could be asked, not "the user denied"', async () => {
    const { client } = await connectStdio(['--config', CONFIG, '--plugins', NOTES, '--plugins', GATED], { root, env: env() as Record<string, string> })
    try {
      const hidden = await client.callTool({ name: 'gated_env', arguments: {} })
      expect(hidden).toMatchObject({ isError: true, content: [{ type: 'text', text: 'E_TOOL_UNAVAILABLE: gated_env is not available right now (missing env var TOOLHOST_FIXTURE_TOKEN); use another tool' }] })
      const denied = await client.callTool({ name: 'save_note', arguments: { path: 'a.txt', text: 'hi' } })
      const text = (denied.content as Array<{ text: string }>)[0]!.text
      expect(denied.isError).toBe(true)
      expect(text).toContain('E_DENIED: save_note did not run: it needs approval')
      expect(text).toContain('no one could be asked (this MCP client cannot answer questions: it has no elicitation capability); nobody refused it. Do not retry it as is. Tell the user what you wanted to do')
      expect(text).not.toMatch(/user denied|--yes|createHost/)
      expect(text).not.toContain(root)
    } finally {
      await client.close()
    }
  })

  test('a developer embedding the host: createHost options, approve, a rule; paths relative to the root', async () => {
    const registry = new ToolRegistry()
    registry.register(defineTool({ name: 'save', description: 'Save.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, pathScoped: true, handler: () => 'saved' }))
    registry.register(defineTool({ name: 'load', description: 'Load.', parameters: { type: 'object' }, readOnly: () => true, parallelSafe: true, handler: (_args, ctx) => readFile(path.join(ctx.workspace.root, 'missing', 'file.txt'), 'utf8') }))
    const host = await createHost({ root, registry, loadPlugins: false, log: silentLogger, env: {}, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'ask' } } })
    try {
      const [denied, failed] = await host.run([{ id: 'a', name: 'save', arguments: { path: 'x.txt' } }, { id: 'b', name: 'load' }])
      expect(denied!.error!.message).toContain("To allow it: pass createHost({ permissionMode: 'accept-edits' or 'auto' or 'bypass' }), an approve handler (createHost({ approve })), or add permissions.allow: [\"save(x.txt)\"] to the host's config.")
      expect(denied!.error!.message).not.toMatch(/--permission-mode|--yes|user denied/)
      expect(failed!.error).toEqual({ code: 'E_TOOL_FAILED', message: "load failed: ENOENT: no such file or directory, open 'missing/file.txt'" })
    } finally {
      await host.close()
    }
  })

  test('a batch run for another reader (RunOptions.audience, as the console\'s form runs as a person) gets that reader\'s words; the host\'s own calls keep its', async () => {
    const registry = new ToolRegistry()
    registry.register(defineTool({ name: 'weather', description: 'Weather.', parameters: { type: 'object' }, requiresEnv: ['WEATHER_API_KEY'], handler: () => 'sunny' }))
    registry.register(defineTool({ name: 'save', description: 'Save.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, pathScoped: true, handler: () => 'saved' }))
    const host = await createHost({ root, registry, loadPlugins: false, log: silentLogger, env: {}, audience: 'model', config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'ask', deny: ['save(secret/**)'] } } })
    try {
      const batch = [{ id: 'w', name: 'weather' }, { id: 's', name: 'save', arguments: { path: 'x.txt' } }]
      const byRule = [{ id: 'r', name: 'save', arguments: { path: 'secret/k.txt' } }]
      const [ruleForModel] = await host.run(byRule)
      expect(ruleForModel!.error!.message).toBe('save did not run: the permission rule permissions.deny[0] "save(secret/**)" denies it. Do not retry it; do something else, or ask the user to change the rule')
      const [ruleForPerson] = await host.run(byRule, { audience: 'person' })
      expect(ruleForPerson!.error!.message).toBe('save did not run: the permission rule permissions.deny[0] "save(secret/**)" denies it. To run it, remove or narrow that rule in config.yaml')
      const [hiddenForModel, deniedForModel] = await host.run(batch)
      expect(hiddenForModel!.error!.message).toBe(unavailableMessage({ tool: 'weather', reason: 'missing env var WEATHER_API_KEY', missingEnv: ['WEATHER_API_KEY'] }, 'model'))
      expect(deniedForModel!.error!.message).toContain('Tell the user what you wanted to do')
      const [hiddenForPerson, deniedForPerson] = await host.run(batch, { audience: 'person' })
      expect(hiddenForPerson!.error!.message).toBe(unavailableMessage({ tool: 'weather', reason: 'missing env var WEATHER_API_KEY', missingEnv: ['WEATHER_API_KEY'] }, 'person'))
      expect(deniedForPerson!.error!.message).toContain('To allow it: add permissions.allow: ["save(x.txt)"] to config.yaml')
      expect(deniedForPerson!.error!.message).not.toContain('Tell the user')
    } finally {
      await host.close()
    }
  })
})
