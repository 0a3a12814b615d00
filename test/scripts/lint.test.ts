import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { writePluginFiles } from '../../src/cli/new-plugin.js'
import { REPO } from '../toolhost-cli.js'

// The house rules are the house's: what `toolhost new-plugin` writes never fails the lint; a
// built-in plugin the repository commits must have its AGENTS.md line.
const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-lint-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const lint = (): { code: number; output: string } => {
  try {
    return { code: 0, output: execFileSync(process.execPath, [path.join(REPO, 'scripts/lint.mjs')], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) }
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string }
    return { code: e.status, output: e.stdout + e.stderr }
  }
}

// Each test runs the whole lint (dependency-cruiser over a tree) once or twice: ~5 s of CPU, far more on a busy machine.
const LINT_TIMEOUT_MS = 120_000

test("new-plugin's output passes the lint; once committed as a built-in, it needs its AGENTS.md line", () => {
  mkdirSync(path.join(dir, 'src'))
  cpSync(path.join(REPO, 'src/index.ts'), path.join(dir, 'src/index.ts'))
  writeFileSync(path.join(dir, 'AGENTS.md'), 'src/index.ts  the public API\n')
  execFileSync('git', ['init', '-q'], { cwd: dir })
  const written = writePluginFiles('lint_probe', dir, { typescript: true, runner: 'vitest' })
  expect(lint()).toEqual({ code: 0, output: 'lint: ok\n' })
  execFileSync('git', ['add', '--', path.relative(dir, written.plugin)], { cwd: dir })
  expect(lint()).toEqual({ code: 1, output: expect.stringContaining('AGENTS.md: no line for plugins/lint_probe.ts') })
}, LINT_TIMEOUT_MS)

// The layers of src/ (.dependency-cruiser.cjs) hold in whatever folder the lint runs: a tree of a
// few files, linted once clean, then with a planted circle, then with a planted upward import.
const lintTree = (files: Record<string, string>): { code: number; output: string } => {
  const tree = mkdtempSync(path.join(dir, 'layers-'))
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(tree, file)), { recursive: true })
    writeFileSync(path.join(tree, file), text)
  }
  writeFileSync(path.join(tree, 'AGENTS.md'), Object.keys(files).join('\n') + '\n')
  try {
    return { code: 0, output: execFileSync(process.execPath, [path.join(REPO, 'scripts/lint.mjs')], { cwd: tree, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) }
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string }
    return { code: e.status, output: e.stdout + e.stderr }
  }
}

const CLEAN = {
  'src/index.ts': "export { b } from './host/b.js'\n",
  'src/contract/a.ts': 'export type A = { a: number }\n',
  'src/registry/r.ts': "import type { A } from '../contract/a.js'\nexport const r = (a: A): number => a.a\n",
  'src/host/b.ts': "import { r } from '../registry/r.js'\nexport const b = r({ a: 1 })\n",
}

test('the lint refuses an import circle in src/, type-only imports included', () => {
  expect(lintTree(CLEAN)).toEqual({ code: 0, output: 'lint: ok\n' })
  const circle = lintTree({ ...CLEAN, 'src/contract/a.ts': "import type { C } from './c.js'\nexport type A = { a: number; c?: C }\n", 'src/contract/c.ts': "import type { A } from './a.js'\nexport type C = { parent: A }\n" })
  expect(circle.code).toBe(1)
  expect(circle.output).toContain('src/contract/a.ts → src/contract/c.ts: no-circular (circle: src/contract/a.ts → src/contract/c.ts → src/contract/a.ts)')
  expect(circle.output).not.toContain(': layer-')
}, LINT_TIMEOUT_MS)

test('the lint refuses an import of a higher layer, and of an entry file', () => {
  const upward = lintTree({ ...CLEAN, 'src/registry/r.ts': "import type { A } from '../contract/a.js'\nimport type { b } from '../host/b.js'\nexport const r = (a: A): number => a.a\nexport type B = typeof b\n" })
  expect(upward.code).toBe(1)
  expect(upward.output).toContain('src/registry/r.ts → src/host/b.ts: layer-registry: registry may import only itself and contract, patterns, http, shell, workspace, adapters')
  const entry = lintTree({ ...CLEAN, 'src/contract/c.ts': "export type { b } from '../index.js'\n" })
  expect(entry.output).toContain('src/contract/c.ts → src/index.ts: layer-contract')
  const unlayered = lintTree({ ...CLEAN, 'src/misc/m.ts': "export { r } from '../registry/r.js'\n" })
  expect(unlayered.output).toContain('src/misc/m.ts → src/registry/r.ts: no-layer')
}, LINT_TIMEOUT_MS)

// Toolhost's own code uses none of its own deprecated names (issue 28.2: ToolContext's flat names):
// a TypeScript tree with a contract of one grouped and one flat name, linted once using the grouped
// one, then with the flat one read in src/ and plugins/ (access, element access, destructuring, a
// Pick of it, a call); test/ may read it (the test that the flat names still work lives there).
const TYPED = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true, types: [] }, include: ['src', 'plugins', 'test'] }),
  'src/index.ts': "export type { Ctx } from './contract/types.js'\n",
  'src/contract/types.ts': 'export interface Ctx {\n  readonly workspace: { readonly root: string }\n  /** @deprecated Read `ctx.workspace.root`. */\n  readonly root: string\n  /** @deprecated Call `ctx.workspace.root`. */\n  progress(message: string): void\n}\n',
  'src/host/use.ts': "import type { Ctx } from '../contract/types.js'\nexport const rootOf = (ctx: Ctx): string => ctx.workspace.root\n",
  'plugins/p.ts': "import type { Ctx } from '../src/contract/types.js'\nexport const p = (ctx: Ctx): string => ctx.workspace.root\n",
  'test/old-names.test.ts': "import type { Ctx } from '../src/contract/types.js'\nexport const old = (ctx: Ctx): string => ctx.root\n",
}

test('the lint refuses a deprecated name of src/ used in src/ or plugins/, however it is read; test/ may use it', () => {
  expect(lintTree(TYPED)).toEqual({ code: 0, output: 'lint: ok\n' })
  const flat = lintTree({
    ...TYPED,
    'src/host/use.ts': "import type { Ctx } from '../contract/types.js'\nexport const rootOf = (ctx: Ctx): string => ctx.root\nexport const picked = (ctx: Pick<Ctx, 'root'>): string => ctx['root']\n",
    'plugins/p.ts': "import type { Ctx } from '../src/contract/types.js'\nexport const p = ({ root }: Ctx): string => root\nexport const q = (ctx: Ctx): void => {\n  const { root: r } = ctx\n  ctx.progress(r)\n}\n",
  })
  expect(flat.code).toBe(1)
  const problems = flat.output.split('\n').filter((line) => line.includes('is deprecated')).sort()
  expect(problems).toEqual([
    "plugins/p.ts:2:21: 'root' is deprecated: Read `ctx.workspace.root`. (toolhost's own code uses the current names)",
    "plugins/p.ts:4:11: 'root' is deprecated: Read `ctx.workspace.root`. (toolhost's own code uses the current names)",
    "plugins/p.ts:5:7: 'progress' is deprecated: Call `ctx.workspace.root`. (toolhost's own code uses the current names)",
    "src/host/use.ts:2:49: 'root' is deprecated: Read `ctx.workspace.root`. (toolhost's own code uses the current names)",
    "src/host/use.ts:3:63: 'root' is deprecated: Read `ctx.workspace.root`. (toolhost's own code uses the current names)",
  ])
  expect(flat.output).not.toContain('test/old-names.test.ts')
  expect(flat.output).toContain('lint: 5 problem(s)')
}, LINT_TIMEOUT_MS)
