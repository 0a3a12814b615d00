// Examples that compile (issue 28, item 6): every @example of the public API — each declaration an
// entry of package.json's exports names, and the members of those classes and interfaces — is
// type-checked by the repository's tsc as a module of its own, with every entry's names in scope and
// the names test/fixtures/api-examples/given.d.ts declares (a `host`, a handler's `ctx`, …).
// And the same check on a wrong example, to show it can fail.
import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { apiExamples, entryExports, exampleModule, type ApiExample } from './api-examples.js'

const REPO = path.resolve(import.meta.dirname, '../..')
const TSC = path.join(REPO, 'node_modules/typescript/bin/tsc')
const GIVEN = path.join(REPO, 'test/fixtures/api-examples/given.d.ts')
// One compiler run over src/ and the examples: a minute or more on a loaded machine.
const TSC_TIMEOUT_MS = 180_000
const manifest = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { exports: Record<string, string | { import: string }> }
const ENTRIES = Object.entries(manifest.exports).flatMap(([key, target]) =>
  typeof target === 'string' ? [] : [{ name: `toolhost${key.slice(1)}`, source: target.import.replace(/^\.\/dist\/(.*)\.js$/, '$1.ts') }],
)
const exportsOf = new Map(ENTRIES.map((e) => [e.name, entryExports(REPO, e.source)]))
const dirs: string[] = []
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

/** Writes each example as a module under test-artifacts/ and runs tsc on them: the errors, each as `file:line: message` of the source the example came from. */
async function compile(name: string, examples: ApiExample[]): Promise<string[]> {
  const dir = path.join(REPO, 'test-artifacts', name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  dirs.push(dir)
  examples.forEach((example, i) => writeFileSync(path.join(dir, `example-${i}.ts`), exampleModule(example, exportsOf, '')))
  // Every name of every entry is imported, used or not, and types among them without `type`.
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../../tsconfig.json', compilerOptions: { verbatimModuleSyntax: false, noUnusedLocals: false, noUnusedParameters: false }, include: ['*.ts'], files: [path.relative(dir, GIVEN)] }))
  const output = await new Promise<string>((resolve) => {
    execFile(process.execPath, [TSC, '--noEmit', '--pretty', 'false', '--singleThreaded', '-p', dir], { cwd: REPO, timeout: TSC_TIMEOUT_MS }, (_error, stdout, stderr) => resolve(`${stdout}${stderr}`))
  })
  return [...output.matchAll(/^(\S+?)\((\d+),\d+\): error (TS\d+: .*)$/gm)].map((m) => {
    const example = examples[Number(/example-(\d+)\.ts$/.exec(m[1]!)?.[1])]
    return example ? `${example.file}:${example.line} (${example.name}): ${m[3]}` : `${m[1]}:${m[2]}: ${m[3]}`
  })
}

describe('the public API\'s @example blocks', () => {
  const examples = apiExamples(REPO, ENTRIES)

  test('are found for every entry that has them (the main entry, workspace, mcp, console, otel, the frameworks)', () => {
    const entries = new Set(examples.map((e) => e.entry))
    for (const entry of ['toolhost', 'toolhost/workspace', 'toolhost/mcp', 'toolhost/console', 'toolhost/otel', 'toolhost/ai-sdk', 'toolhost/openai-agents']) expect(entries, entry).toContain(entry)
    expect(examples.map((e) => e.name)).toEqual(expect.arrayContaining(['defineTool', 'createHost', 'Host', 'workspaceFor', 'serveHttp']))
  })

  test('each compiles', { timeout: TSC_TIMEOUT_MS }, async () => {
    expect(await compile('api-examples', examples)).toEqual([])
  })

  test('a wrong example fails the check, named by its source line', { timeout: TSC_TIMEOUT_MS }, async () => {
    const wrong: ApiExample = { entry: 'toolhost', name: 'createHost', file: 'src/host/create-host.ts', line: 1, code: "const host = await createHost({ root: '.' })\nhost.runn([])" }
    const errors = await compile('api-examples-wrong', [wrong])
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/^src\/host\/create-host\.ts:1 \(createHost\): TS2551: Property 'runn' does not exist/)
  })
})
