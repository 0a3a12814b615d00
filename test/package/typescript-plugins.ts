// TypeScript plugins from the installed tarball (issue 23, item 1): compiled once by esbuild into the
// per-user cache, then loaded from it without tsx or esbuild; CommonJS and ES module projects and
// .mts; relative imports, 'toolhost' and the project's npm packages resolve as before; stack traces
// name the .ts line; nothing is left running. Registered by package.test.ts (one consumer install).
import { spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { childEnv, runTraced, type PackageKit } from './package-kit.js'

const SLOW = 180_000

// A helper module (TypeScript, imported by its .js name), a subpath, and an npm package of the project.
const HELPER = "export function shout(text: string): string {\n  return text.toUpperCase()\n}\n"
const GREET = `import { defineTool, registry } from 'toolhost'
import { workspaceFor } from 'toolhost/workspace'
import { z } from 'zod'
import { shout } from './lib/shout.js'

interface Args { name: string }
const Name = z.string()
registry.register(defineTool<Args>({
  name: 'greet',
  description: 'Greets.',
  parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
  readOnly: () => true,
  handler: (args: Args, ctx): string => {
    if (args.name === 'trace') return new Error('where').stack ?? ''
    return shout(\`hello \${Name.parse(args.name)} on \${workspaceFor(ctx).root === ctx.workspace.root ? 'the root' : 'elsewhere'}\`)
  },
}))
`
const TRACE_LINE = 14
// An ES module with a top-level await, in any project.
const COUNT = `import { defineTool, registry } from 'toolhost'
const n: number = await Promise.resolve(3)
registry.register(defineTool({ name: 'count', description: 'Counts.', parameters: { type: 'object' }, readOnly: () => true, handler: () => \`n=\${n}\` }))
`

const APP = `import { createRequire } from 'node:module'
import { createHost } from 'toolhost'
const host = await createHost({ root: '.', audit: false, config: { plugins: { builtins: false } } })
const results = await host.run([
  { id: 'a', name: 'greet', arguments: { name: 'ada' } },
  { id: 'b', name: 'count', arguments: {} },
  { id: 'c', name: 'greet', arguments: { name: 'trace' } },
])
// Code of tsx or esbuild that was loaded (esbuild's package.json is read for its version: not code).
const required = Object.keys(createRequire(import.meta.url).cache).filter((file) => /node_modules\\/(tsx|esbuild)\\//.test(file) && !file.endsWith('package.json'))
console.log(JSON.stringify({ failed: host.pluginReport.failed, tools: host.registry.list().map((t) => t.name).sort(), contents: results.map((r) => r.content), required }))
await host.close()
`

interface AppOutput {
  failed: unknown[]
  tools: string[]
  contents: string[]
  required: string[]
}

function writeProject(kit: PackageKit, name: string, type: 'module' | 'commonjs'): string {
  const dir = kit.project(name, { name, private: true, type })
  mkdirSync(path.join(dir, 'plugins/lib'), { recursive: true })
  writeFileSync(path.join(dir, 'plugins/greet.ts'), GREET)
  writeFileSync(path.join(dir, 'plugins/lib/shout.ts'), HELPER)
  writeFileSync(path.join(dir, 'plugins/count.mts'), COUNT)
  writeFileSync(path.join(dir, 'app.mjs'), APP)
  return dir
}

/** `toolhost ARGS` in its own process group; after it exits, the processes left in that group. */
function runInOwnGroup(dir: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; left: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(dir, 'node_modules/toolhost/bin/toolhost.mjs'), ...args], { cwd: dir, env: childEnv(env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, left: processesInGroup(child.pid!) }))
  })
}

// Every process (zombies included) whose process group is `group`, read from /proc.
function processesInGroup(group: number): string[] {
  const left: string[] = []
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const [, comm, rest] = /^\d+ \((.*)\) (.*)$/s.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))!
      const fields = rest!.split(' ')
      if (Number(fields[2]) === group) left.push(`${pid} ${comm} ${fields[0]}`)
    } catch {
      // Gone meanwhile.
    }
  }
  return left
}

export function describeTypescriptPlugins(kitOf: () => PackageKit): void {
  describe('TypeScript plugins, compiled once', () => {
    for (const type of ['commonjs', 'module'] as const) {
      test(`a ${type} project: .ts and .mts plugins load, first compiled then from the cache with neither tsx nor esbuild; imports resolve; the stack names the .ts line`, async () => {
        const kit = kitOf()
        const dir = writeProject(kit, `typescript-${type}`, type)
        const cache = path.join(path.dirname(dir), `${path.basename(dir)}-ts-cache`)
        const env = { TOOLHOST_TS_CACHE: cache }
        const first = await runTraced(dir, 'app.mjs', env)
        expect(first.code, first.stderr).toBe(0)
        const entries = readdirSync(cache).filter((name) => name.endsWith('.js-entry'))
        // greet.ts, lib/shout.ts (a plugin file too, registering nothing) and count.mts.
        expect(entries).toHaveLength(3)
        const second = await runTraced(dir, 'app.mjs', env)
        expect(second.code, second.stderr).toBe(0)
        for (const run of [first, second]) {
          const output = JSON.parse(run.stdout) as AppOutput
          expect(output.failed).toEqual([])
          expect(output.tools).toEqual(['count', 'greet'])
          expect(output.contents.slice(0, 2)).toEqual(['HELLO ADA ON THE ROOT', 'n=3'])
          expect(output.contents[2]).toContain(`${path.join(dir, 'plugins/greet.ts')}:${TRACE_LINE}:`)
          expect(run.loaded.filter((url) => /\/node_modules\/tsx\//.test(url))).toEqual([])
        }
        expect((JSON.parse(first.stdout) as AppOutput).required.some((file) => file.includes('/esbuild/lib/main.js'))).toBe(true)
        expect((JSON.parse(second.stdout) as AppOutput).required).toEqual([])
        expect(readdirSync(cache).filter((name) => name.endsWith('.js-entry')).sort()).toEqual(entries.sort())
      }, SLOW)
    }

    test('an edited plugin is compiled again; a tampered cache entry is not run but compiled again', async () => {
      const kit = kitOf()
      const dir = writeProject(kit, 'typescript-edits', 'commonjs')
      const env = { TOOLHOST_TS_CACHE: path.join(path.dirname(dir), `${path.basename(dir)}-ts-cache`) }
      expect((await runTraced(dir, 'app.mjs', env)).code).toBe(0)
      writeFileSync(path.join(dir, 'plugins/lib/shout.ts'), HELPER.replace('toUpperCase', 'toLowerCase'))
      const edited = await runTraced(dir, 'app.mjs', env)
      expect((JSON.parse(edited.stdout) as AppOutput).contents[0]).toBe('hello ada on the root')
      for (const name of readdirSync(env.TOOLHOST_TS_CACHE).filter((n) => n.endsWith('.js-entry'))) {
        const file = path.join(env.TOOLHOST_TS_CACHE, name)
        writeFileSync(file, readFileSync(file, 'utf8').replace(/return (text|args)/g, 'return "tampered " + $1'))
      }
      const tampered = await runTraced(dir, 'app.mjs', env)
      expect(tampered.code, tampered.stderr).toBe(0)
      expect((JSON.parse(tampered.stdout) as AppOutput).contents[0]).toBe('hello ada on the root')
      expect((JSON.parse(tampered.stdout) as AppOutput).required.some((file) => file.includes('/esbuild/lib/main.js'))).toBe(true)
    }, SLOW)

    test("list leaves nothing running in the CLI's process group, cold (esbuild compiles) and warm", async () => {
      const kit = kitOf()
      const dir = writeProject(kit, 'typescript-leftovers', 'module')
      const env = { TOOLHOST_TS_CACHE: path.join(path.dirname(dir), `${path.basename(dir)}-ts-cache`), TOOLHOST_LOG: 'error' }
      // The person's own project: its plugins run once they trust it.
      expect((await runInOwnGroup(dir, ['trust'], env)).code).toBe(0)
      for (const state of ['cold', 'warm']) {
        if (state === 'cold') rmSync(env.TOOLHOST_TS_CACHE, { recursive: true, force: true })
        const list = await runInOwnGroup(dir, ['list'], env)
        expect(list.code, state).toBe(0)
        expect(list.stdout).toMatch(/^greet +\w+ +available$/m)
        expect(list.left, state).toEqual([])
      }
    }, SLOW)
  })
}
