// A handler that throws names the file and line it threw at (issue 31, a new user's frictions): the
// first frame of its stack inside the tool's plugin file, never node's internals, relative to the root;
// in the result (so in --json) and in the debug log's line for the answer.
import { spawn } from 'node:child_process'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { thrownAt } from '../../../src/dispatch/execute/thrown-at.js'
import { outputOf, TOOLHOST_CLI } from '../../toolhost-cli.js'

const REPO = path.resolve('.')
const PLUGINS = path.resolve('test/fixtures/plugins/throwing')
const PLUGIN = path.join(PLUGINS, 'throwing.ts')
const CONFIG = path.resolve('test/fixtures/config/cli.yaml')

function errorWithStack(frames: string[]): Error {
  const error = new Error('boom')
  error.stack = ['Error: boom', ...frames].join('\n')
  return error
}

describe('thrownAt', () => {
  test.each([
    ['the first frame inside the plugin file, relative to the root', [`    at fail (${PLUGIN}:6:9)`, `    at handler (${PLUGIN}:18:20)`], PLUGIN, 'test/fixtures/plugins/throwing/throwing.ts:6'],
    ['node internals before it are skipped', ['    at JSON.parse (<anonymous>)', '    at readFile (node:fs:441:20)', '    at Module._compile (node:internal/modules/cjs/loader:1554:14)', `    at parseBroken (${PLUGIN}:10:15)`], PLUGIN, 'test/fixtures/plugins/throwing/throwing.ts:10'],
    ['a file:// frame (an ES module) is read as its path', ['    at file://' + PLUGIN + ':6:9'], PLUGIN, 'test/fixtures/plugins/throwing/throwing.ts:6'],
    ['a reloaded ES module (its URL carries a query): read as its path', ['    at file://' + PLUGIN + '?v=3:6:9'], PLUGIN, 'test/fixtures/plugins/throwing/throwing.ts:6'],
    ['a dependency\'s frame before the plugin\'s is skipped', [`    at x (${REPO}/node_modules/dep/index.js:1:1)`, `    at handler (${PLUGIN}:18:20)`], PLUGIN, 'test/fixtures/plugins/throwing/throwing.ts:18'],
    ['no frame in the plugin file: no place', [`    at x (${REPO}/node_modules/dep/index.js:1:1)`, '    at node:internal/process/task_queues:95:5'], PLUGIN, undefined],
    ['a tool registered from code (no plugin file): no place, its embedding has the stack', [`    at handler (${REPO}/app/tools.ts:3:11)`], undefined, undefined],
    ['outside the root: the absolute path', ['    at handler (/elsewhere/tools.ts:3:11)'], '/elsewhere/tools.ts', '/elsewhere/tools.ts:3'],
  ])('%s', (_name, frames, source, expected) => {
    expect(thrownAt(errorWithStack(frames), source, REPO)).toBe(expected)
  })

  test.each([
    ['a thrown string', 'boom'],
    ['an error without a stack', Object.assign(new Error('x'), { stack: undefined })],
    ['an error whose stack getter throws', Object.defineProperty(new Error('x'), 'stack', { get: () => { throw new Error('no') } })],
  ])('%s: no place', (_name, thrown) => {
    expect(thrownAt(thrown, PLUGIN, REPO)).toBeUndefined()
  })
})

// The CLI as a user runs it (vitest's own module runner would map the plugin's lines its way).
describe('a plugin\'s handler that throws, at the CLI', () => {
  test('call --json and TOOLHOST_LOG=debug name the plugin file and line, relative to the root', async () => {
    const run = await outputOf(spawn(process.execPath, [TOOLHOST_CLI, 'call', 'throws_here', '{}', '--json', '--plugins', PLUGINS, '--config', CONFIG, '--root', REPO], {
      env: { ...process.env, TOOLHOST_LOG: 'debug' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }))
    const result = JSON.parse(run.stdout) as { error: unknown }
    expect(result.error).toEqual({ code: 'E_TOOL_FAILED', message: 'throws_here failed: no luck (thrown at test/fixtures/plugins/throwing/throwing.ts:6)' })
    expect(run.stderr).toMatch(/call \S+ answered at [\d.]+ ms: E_TOOL_FAILED: throws_here failed: no luck \(thrown at test\/fixtures\/plugins\/throwing\/throwing\.ts:6\)/)

    const inNode = await outputOf(spawn(process.execPath, [TOOLHOST_CLI, 'call', 'throws_in_node', '{}', '--json', '--plugins', PLUGINS, '--config', CONFIG, '--root', REPO], { stdio: ['ignore', 'pipe', 'pipe'] }))
    expect((JSON.parse(inNode.stdout) as { error: { message: string } }).error.message).toMatch(/^throws_in_node failed: .*JSON.* \(thrown at test\/fixtures\/plugins\/throwing\/throwing\.ts:10\)$/)
  })
})

test('a built-in tool\'s throw names no place: its message is worded for the model already', () => {
  const builtIn = path.resolve('plugins/basics.ts')
  expect(thrownAt(errorWithStack([`    at handler (${builtIn}:40:11)`]), builtIn, REPO)).toBeUndefined()
})
