import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ASSET_NAMES } from '../../src/console/console-assets.js'
import { childEnv, preparePackage, REPO, run, runTraced, typeCheck, type PackageKit } from './package-kit.js'
import { describeSubpathEntries, SUBPATHS } from './subpath-entries.js'
import { describeTypescriptPlugins } from './typescript-plugins.js'

// CI proves the package as a user gets it (issue 11, item 8): packed, installed into a project of
// its own, and used there from plain Node, strict TypeScript, npx and each test runner. One install
// of the tarball serves every test of this file, the README's commands and code blocks included.
let kit: PackageKit
beforeAll(async () => {
  kit = await preparePackage()
}, 20 * 60_000)
afterAll(() => kit?.remove(), 5 * 60_000)

const SLOW = 180_000

describe('the tarball', () => {
  test('holds the compiled package, its types, the built-in plugins and the demo, and no tests, CI or scripts', async ({ annotate }) => {
    const paths = kit.files.map((f) => f.path).sort()
    await annotate(`tarball ${(kit.size / 1024).toFixed(0)} kB, ${paths.length} files, ${(kit.files.reduce((n, f) => n + f.size, 0) / 1024).toFixed(0)} kB unpacked`)
    const allowed = /^(package\.json|README\.md|LICENSE|config\.yaml|bin\/toolhost\.mjs|docs\/[\w-]+\.md|examples\/demo-batch\.json|examples\/workspace\/.+|dist\/(src|plugins)\/.+)$/
    expect(paths.filter((p) => !allowed.test(p))).toEqual([])
    expect(paths.filter((p) => /(^|\/)test\/|\.test\.|\.spec\.|^\.ci|^scripts\/|AGENTS\.md|BENCHMARKS\.md|^src\/|^plugins\//.test(p))).toEqual([])
    // Repository-only: conformance and sandbox fixtures, configs of the tools that build and test it.
    expect(paths.filter((p) => /conformance|fixtures|crash-host|test-artifacts|tsconfig|vitest\.config|package-lock|run-ts|toolhost-dev|bench/.test(p))).toEqual([])
    // TypeScript only as declarations (and the demo workspace's sample file).
    expect(paths.filter((p) => /\.m?ts$/.test(p) && !/\.d\.ts$/.test(p))).toEqual(['examples/workspace/src/math.ts'])
    for (const file of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/mcp/index.js', 'dist/src/mcp/index.d.ts', 'dist/src/loader/resolve-toolhost.mjs', 'dist/src/cli/main.js', 'dist/src/cli/templates/plugin.ts.tmpl', 'dist/src/cli/templates/plugin.node-test.tmpl', 'dist/plugins/basics.js', 'dist/plugins/files.js']) {
      expect(paths).toContain(file)
    }
    // Every entry of `exports` is in the tarball, with its types; the subpath tests cover each one.
    const manifestExports = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { exports: Record<string, string | Record<string, string>> }).exports
    expect(Object.keys(manifestExports).filter((key) => key !== '.' && key !== './package.json').map((key) => key.replace('.', 'toolhost'))).toEqual([...SUBPATHS])
    for (const target of Object.values(manifestExports).flatMap((value) => (typeof value === 'string' ? [value] : Object.values(value)))) expect(paths).toContain(target.replace(/^\.\//, ''))
    for (const name of ASSET_NAMES) expect(paths).toContain(`dist/src/console/assets/${name}`)
    const manifest = JSON.parse(readFileSync(path.join(kit.consumer, 'node_modules/toolhost/package.json'), 'utf8')) as { license: string; scripts: Record<string, string> }
    expect(manifest.license).toBe('MIT')
    // No prepare (npm warns of it at a user's install; the tarball is built), nor the pack scripts that
    // strip it (issue 31); the clone's package.json is back as it was, prepare and all.
    expect(Object.keys(manifest.scripts).filter((name) => /^(pre|post)?(prepare|pack|install)$/.test(name))).toEqual([])
    expect(readFileSync(path.join(kit.clone, 'package.json'), 'utf8')).toBe(readFileSync(path.join(REPO, 'package.json'), 'utf8'))
    expect(existsSync(path.join(kit.clone, '.package.json.packing'))).toBe(false)
    expect(readFileSync(path.join(kit.consumer, 'node_modules/toolhost/LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) 2026 toolhost contributors/)
  })
})

describeSubpathEntries(() => kit)
describeTypescriptPlugins(() => kit)

describe('plain Node', () => {
  test('imports toolhost and runs a batch on the built-in tools, loading neither tsx nor the MCP SDK', async () => {
    const dir = kit.project('plain-node')
    writeFileSync(path.join(dir, 'notes.txt'), 'line one\nline two\n')
    writeFileSync(
      path.join(dir, 'app.mjs'),
      `import { createHost } from 'toolhost'
const host = await createHost({ root: '.', audit: false, permissionMode: 'accept-edits' })
const results = await host.run([
  { id: 'a', name: 'echo', arguments: '{"text":"hi"}' },
  { id: 'b', name: 'read_file', arguments: '{"path":"notes.txt"}' },
  { id: 'c', name: 'write_file', arguments: '{"path":"out/new.txt","content":"written"}' },
  { id: 'd', name: 'ecko', arguments: '{}' },
])
console.log(JSON.stringify(results.map((r) => ({ id: r.id, ok: r.ok, code: r.error?.code ?? null }))))
await host.close()
`,
    )
    const result = await runTraced(dir, 'app.mjs')
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual([
      { id: 'a', ok: true, code: null },
      { id: 'b', ok: true, code: null },
      { id: 'c', ok: true, code: null },
      { id: 'd', ok: false, code: 'E_TOOL_UNKNOWN' },
    ])
    expect(readFileSync(path.join(dir, 'out/new.txt'), 'utf8')).toBe('written')
    expect(result.loaded.some((url) => url.includes('/node_modules/toolhost/dist/src/index.js'))).toBe(true)
    expect(result.loaded.filter((url) => /\/node_modules\/(tsx|@modelcontextprotocol)\//.test(url))).toEqual([])
  }, SLOW)

  test('a TypeScript plugin loads no tsx (esbuild compiles it once); a JavaScript plugin outside any project shares the registry', async () => {
    const dir = kit.project('plugin-kinds')
    const outside = path.join(kit.work, 'outside-plugins')
    mkdirSync(outside)
    // Outside any project: 'toolhost' and its subpaths resolve through the loader's hook to the running copy.
    writeFileSync(path.join(outside, 'far.mjs'), "import { defineTool, registry } from 'toolhost'\nimport { workspaceFor } from 'toolhost/workspace'\nregistry.register(defineTool({ name: 'far', description: 'Far away.', parameters: { type: 'object' }, readOnly: () => true, handler: (args, ctx) => `far ran on the wall of ${workspaceFor(ctx).root === ctx.workspace.root ? 'its root' : 'another root'}` }))\n")
    mkdirSync(path.join(dir, 'plugins'))
    writeFileSync(path.join(dir, 'plugins/typed.ts'), "import { defineTool, registry } from 'toolhost'\nconst n: number = 2\nregistry.register(defineTool({ name: 'typed', description: 'Typed.', parameters: { type: 'object' }, readOnly: () => true, handler: () => `typed ${n}` }))\n")
    writeFileSync(
      path.join(dir, 'app.mjs'),
      `import { createHost, registry } from 'toolhost'
const host = await createHost({ root: '.', audit: false, plugins: [${JSON.stringify(outside)}], config: { plugins: { builtins: false } } })
const results = await host.run([{ id: 'a', name: 'far', arguments: {} }, { id: 'b', name: 'typed', arguments: {} }])
console.log(JSON.stringify({ failed: host.pluginReport.failed, contents: results.map((r) => r.content), shared: host.registry === registry }))
await host.close()
`,
    )
    const result = await runTraced(dir, 'app.mjs')
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ failed: [], contents: ['far ran on the wall of its root', 'typed 2'], shared: true })
    expect(result.loaded.filter((url) => /\/node_modules\/tsx\//.test(url))).toEqual([])
  }, SLOW)

  test('a CommonJS .ts plugin with a top-level await is told to be named .mts', async () => {
    const dir = kit.project('top-level-await', { name: 'top-level-await', private: true })
    mkdirSync(path.join(dir, 'plugins'))
    writeFileSync(path.join(dir, 'plugins/waits.ts'), "import { registry } from 'toolhost'\nawait Promise.resolve(registry)\n")
    expect((await run('npx', ['--no-install', 'toolhost', 'trust'], dir)).code).toBe(0)
    const result = await run('npx', ['--no-install', 'toolhost', 'list', '--json'], dir)
    expect(result.code).toBe(0)
    expect(result.stderr).toContain(`plugin ${path.join(dir, 'plugins/waits.ts')} failed to load: ${path.join(dir, 'plugins/waits.ts')}:2:0: top-level await needs an ES module`)
    expect(result.stderr).toContain('rename the file to waits.mts')
    expect(result.stderr).not.toContain('output format')
  }, SLOW)

  test("require('toolhost') and its subpaths for tools work from CommonJS (Node 20.19+ loads the ES modules); Host is no value", async () => {
    const dir = kit.project('commonjs', { name: 'commonjs', private: true, type: 'commonjs' })
    writeFileSync(
      path.join(dir, 'app.js'),
      "const toolhost = require('toolhost')\nconst { workspaceFor } = require('toolhost/workspace')\nconst { ProcessRegistry } = require('toolhost/processes')\n" +
        "console.log(typeof toolhost.createHost, typeof toolhost.defineTool, typeof workspaceFor, typeof ProcessRegistry.open, 'Host' in toolhost)\n",
    )
    const result = await run(process.execPath, ['app.js'], dir)
    expect(result).toMatchObject({ code: 0, stdout: 'function function function function false\n' })
  }, SLOW)
})

describe('strict TypeScript', () => {
  const CONSUMER = `// A strict consumer of the published types: embedding and a typed plugin.
import { createHost, defineTool, registry, type Host, type HostOptions, type ToolResult } from 'toolhost'

const options: HostOptions = { root: '.', audit: false, config: { plugins: { builtins: ['basics'] } } }
const host: Host = await createHost(options)
const results: ToolResult[] = await host.run([{ id: '1', name: 'echo', arguments: { text: 'hi' } }])
const first: ToolResult | undefined = results[0]
if (first?.error) console.log(first.error.code, first.error.message)
console.log((await host.definitions('anthropic')).length, host.toMessages(results, 'anthropic').role)

registry.register(
  defineTool({
    name: 'resize',
    description: 'Resize an image.',
    parameters: {
      type: 'object',
      properties: { width: { type: 'integer' }, height: { type: 'integer' } },
      required: ['width', 'height'],
      additionalProperties: false,
    } as const,
    handler: (args) => {
      // @ts-expect-error a misspelt field is a type error: typed schema inference works from the .d.ts
      console.log(args.heigth)
      return String(args.width * args.height)
    },
  }),
)
await host.close()
`
  test.each([
    { resolution: 'NodeNext', module: 'NodeNext' },
    { resolution: 'Bundler', module: 'ESNext' },
    { resolution: 'Bundler', module: 'Preserve' },
  ])('the .d.ts type-check under moduleResolution $resolution (module $module), skipLibCheck false, with nothing extra installed', async ({ resolution, module }) => {
    const dir = path.join(kit.consumer, `types-${module}`)
    mkdirSync(dir, { recursive: true })
    writeFileSync(path.join(dir, 'consumer.ts'), CONSUMER)
    const result = await typeCheck(dir, 'tsconfig.json', { module, moduleResolution: resolution }, { files: ['consumer.ts'] })
    expect(result.stdout + result.stderr).toBe('')
    expect(result.code).toBe(0)
    // The check can fail: a misspelt field outside @ts-expect-error is an error.
    writeFileSync(path.join(dir, 'consumer.ts'), CONSUMER.replace('      // @ts-expect-error a misspelt field is a type error: typed schema inference works from the .d.ts\n', ''))
    const broken = await typeCheck(dir, 'tsconfig.json', { module, moduleResolution: resolution }, { files: ['consumer.ts'] })
    expect(broken.stdout).toMatch(/consumer\.ts\(\d+,\d+\): error TS2551: Property 'heigth' does not exist on type '\{ (width: number; height|height: number; width): number; \}'/)
  }, SLOW)
})

describe('npx toolhost', () => {
  test('list shows the built-in tools in a project with no plugins folder; --version is the package version', async () => {
    const dir = kit.project('npx-list')
    const list = await run('npx', ['--no-install', 'toolhost', 'list'], dir)
    expect(list.code, list.stderr).toBe(0)
    for (const name of ['echo', 'current_time', 'read_file', 'write_file', 'patch', 'search_files', 'terminal', 'process']) expect(list.stdout).toMatch(new RegExp(`^${name} +\\w+ +available$`, 'm'))
    expect(list.stdout).toMatch(/^\d+ of 12 tools available$/m)
    const version = await run('npx', ['--no-install', 'toolhost', '--version'], dir)
    expect(version.stdout.trim()).toBe((JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version)
  }, SLOW)

  test('demo exits 0 with the results it promises, on a scratch copy: the project folder is left as it was', async () => {
    const dir = kit.consumer
    const demo = await run('npx', ['--no-install', 'toolhost', 'demo'], dir)
    expect(demo.code, demo.stderr).toBe(0)
    expect(demo.stdout.match(/^ok +call_\w+ \w+$/gm)).toHaveLength(10)
    expect(demo.stdout.match(/^error call_(typo ecko E_TOOL_UNKNOWN|bad_args wait E_ARGS_INVALID)$/gm)).toHaveLength(2)
    expect(demo.stdout).toContain('npx toolhost explain node_modules/toolhost/examples/demo-batch.json')
    expect(existsSync(path.join(dir, 'docs'))).toBe(false)
    expect(existsSync(path.join(dir, '.toolhost'))).toBe(false)
  }, SLOW)
})

describe('new-plugin in a user project', () => {
  const writePlugin = async (dir: string, name: string): Promise<{ plugin: string; test: string; next: string }> => {
    const result = await run('npx', ['--no-install', 'toolhost', 'new-plugin', name], dir)
    expect(result.code, result.stderr).toBe(0)
    const [plugin, test, next] = result.stdout.trim().split('\n')
    return { plugin: plugin!.replace(/^wrote /, ''), test: test!.replace(/^wrote /, ''), next: next!.replace(/^next: edit the schema and handler, then run /, '') }
  }
  const importsPackage = (file: string): void => {
    const text = readFileSync(file, 'utf8')
    expect(text).toMatch(/from 'toolhost'/)
    expect(text).not.toMatch(/node_modules|\.\.\/src|dist\//)
  }

  test('a JavaScript project: plugins/NAME.mjs and a node --test test that passes', async () => {
    const dir = kit.project('new-plugin-js')
    const written = await writePlugin(dir, 'weather')
    expect(written).toEqual({ plugin: path.join(dir, 'plugins/weather.mjs'), test: path.join(dir, 'test/plugins/weather.test.mjs'), next: 'node --test test/plugins/weather.test.mjs' })
    importsPackage(written.plugin)
    importsPackage(written.test)
    const tested = await run(process.execPath, ['--test', '--test-reporter=tap', 'test/plugins/weather.test.mjs'], dir)
    expect(tested.stdout).toMatch(/^# pass 3$/m)
    expect(tested.code, tested.stdout).toBe(0)
  }, SLOW)

  test('a TypeScript project without vitest: plugins/NAME.ts that strict tsc accepts, and a node --test test that passes', async () => {
    const dir = kit.project('new-plugin-ts', { name: 'new-plugin-ts', private: true, type: 'module', devDependencies: { typescript: '*' } })
    const written = await writePlugin(dir, 'weather_ts')
    expect(written).toEqual({ plugin: path.join(dir, 'plugins/weather_ts.ts'), test: path.join(dir, 'test/plugins/weather_ts.test.mjs'), next: 'node --test test/plugins/weather_ts.test.mjs' })
    importsPackage(written.plugin)
    const checked = await typeCheck(dir, 'tsconfig.json', { module: 'NodeNext', moduleResolution: 'NodeNext' }, { include: ['plugins'] })
    expect(checked.stdout + checked.stderr).toBe('')
    const tested = await run(process.execPath, ['--test', '--test-reporter=tap', 'test/plugins/weather_ts.test.mjs'], dir)
    expect(tested.stdout).toMatch(/^# pass 3$/m)
    expect(tested.code, tested.stdout).toBe(0)
  }, SLOW)

  test('a TypeScript project with vitest: a vitest test that passes', async () => {
    const dir = kit.project('new-plugin-vitest', { name: 'new-plugin-vitest', private: true, type: 'module', devDependencies: { typescript: '*', vitest: '4.1.12' } })
    // The project's own vitest (this repository's copy, linked in, rather than a second install).
    rmLink(dir)
    mkdirSync(path.join(dir, 'node_modules'))
    symlinkSync(path.join(kit.consumer, 'node_modules/toolhost'), path.join(dir, 'node_modules/toolhost'), 'dir')
    symlinkSync(path.join(REPO, 'node_modules/vitest'), path.join(dir, 'node_modules/vitest'), 'dir')
    mkdirSync(path.join(dir, 'node_modules/.bin'))
    symlinkSync(path.join(dir, 'node_modules/toolhost/bin/toolhost.mjs'), path.join(dir, 'node_modules/.bin/toolhost'))
    writeFileSync(path.join(dir, 'tsconfig.json'), '{}')
    const written = await writePlugin(dir, 'weather_v')
    expect(written).toEqual({ plugin: path.join(dir, 'plugins/weather_v.ts'), test: path.join(dir, 'test/plugins/weather_v.test.ts'), next: 'npx vitest run test/plugins/weather_v.test.ts' })
    importsPackage(written.test)
    const tested = await run(process.execPath, [path.join(dir, 'node_modules/vitest/vitest.mjs'), 'run', 'test/plugins/weather_v.test.ts'], dir)
    expect(tested.stdout).toMatch(/Tests +3 passed \(3\)/)
    expect(tested.code, tested.stdout + tested.stderr).toBe(0)
  }, SLOW)
})

// kit.project links node_modules whole; a project needing its own folder of links drops that link.
function rmLink(dir: string): void {
  unlinkSync(path.join(dir, 'node_modules'))
}

describe('README.md: every shell command and code block runs', () => {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8')
  const blocks = [...readme.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, text: m[2]!, line: readme.slice(0, m.index).split('\n').length }))
  const shellLines = blocks.filter((b) => b.lang === 'sh').flatMap((b) => b.text.split('\n').filter((l) => l.trim() !== ''))
  // Commands a test other than the walk-through below runs: the set-up of a clone, and the install.
  const SET_UP = ['npm install && npm start', 'npm test', 'npm install toolhost']
  const command = (line: string): string => line.replace(/\s+#.*$/, '')

  test('fits the first screens: at most 15 KB, with install, quick starts and links into docs/ that exist', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(15 * 1024)
    for (const heading of ['## Install', '## The CLI in 30 seconds', '## Embed it in an agent loop', '## A plugin in 10 lines', '## Documentation']) expect(readme).toContain(heading)
    const links = [...readme.matchAll(/\]\(((?:docs\/)?[\w./-]+\.md)\)/g)].map((m) => m[1]!)
    expect(links.length).toBeGreaterThan(8)
    for (const link of links) expect(existsSync(path.join(REPO, link)), link).toBe(true)
    expect(readdirSync(path.join(REPO, 'docs')).filter((f) => !links.includes(`docs/${f}`))).toEqual([])
  })

  test('set-up in a fresh clone: npm install builds dist/ (prepare), npm start runs the demo, npm test runs the tests', async () => {
    expect(shellLines.map(command)).toEqual(expect.arrayContaining(SET_UP))
    expect(kit.builtByInstall).toBe(true)
    const start = await run('npm', ['start'], kit.clone)
    expect(start.code, start.stderr).toBe(0)
    expect(start.stdout).toContain('toolhost demo: first the tools toolhost comes with')
    // `npm test` is the command CI runs on the whole suite; in the clone it runs on one file.
    const tested = await run('npm', ['test', '--', 'test/contract/define-tool.test.ts'], kit.clone)
    expect(tested.stdout).toMatch(/Tests +\d+ passed/)
    expect(tested.code, tested.stdout + tested.stderr).toBe(0)
  }, 2 * SLOW)

  test('the quick starts, in order, in a new project: each command exits 0 and does what its line says', async () => {
    const dir = kit.project('readme')
    const sh = (line: string) => run('sh', ['-c', line], dir, { env: { npm_config_yes: 'false' } })
    const expectations: Record<string, (out: { stdout: string; stderr: string }) => void | Promise<void>> = {
      'npx toolhost demo': (out) => expect(out.stdout).toMatch(/^error call_typo ecko E_TOOL_UNKNOWN$/m),
      'npx toolhost list': (out) => expect(out.stdout).toMatch(/^echo +basics +available$/m),
      'npx toolhost call echo \'{"text":"hi"}\'': (out) => expect(out.stdout).toBe('hi\n'),
      // init from the installed package: the config it writes loads, and its example's own test passes.
      'npx toolhost init': async (out) => {
        expect(out.stdout).toMatch(/^wrote +config\.yaml: /m)
        expect(out.stdout).toContain('wrote   plugins/hello.mjs: an example tool, hello')
        expect(readFileSync(path.join(dir, '.gitignore'), 'utf8')).toMatch(/^\.toolhost\/$/m)
        const tested = await sh('node --test test/plugins/hello.test.mjs')
        expect(tested.code, tested.stdout + tested.stderr).toBe(0)
      },
      'npx toolhost new-plugin weather': () => expect(existsSync(path.join(dir, 'plugins/weather.mjs'))).toBe(true),
      'npx toolhost trust': (out) => expect(out.stdout).toMatch(/^trusted \S+: 3 plugin files \(plugins\/greet\.ts, plugins\/hello\.mjs, plugins\/weather\.mjs\)/m),
      'npx toolhost call greet \'{"name":"Ada"}\'': (out) => expect(out.stdout).toBe('hello Ada\n'),
    }
    let ran = 0
    for (const block of blocks) {
      if (block.lang === 'sh') {
        for (const line of block.text.split('\n').map(command).filter((l) => l !== '' && !SET_UP.includes(l))) {
          if (line === 'npx toolhost serve') {
            await expectServes(dir)
          } else {
            const out = await sh(line)
            expect(out.code, `README line ${block.line}: ${line}\n${out.stderr}`).toBe(0)
            expect(expectations[line], `README line ${block.line}: no test says what "${line}" should do`).toBeDefined()
            await expectations[line]!(out)
          }
          ran++
        }
      } else if (block.lang === 'js') {
        const file = /^\/\/ ([\w.-]+\.mjs)\b/.exec(block.text)?.[1]
        expect(file, `README line ${block.line}: a js block starts with // FILE.mjs`).toBeDefined()
        writeFileSync(path.join(dir, file!), block.text)
        rmSync(path.join(dir, '.toolhost'), { recursive: true, force: true })
        const out = await run(process.execPath, [file!], dir)
        expect(out.code, out.stderr).toBe(0)
        expect(out.stdout).toMatch(/^current_time echo .*write_file$/m)
        expect(out.stdout).toContain("content: 'error E_TOOL_UNKNOWN: there is no tool named \"ecko\". Did you mean \"echo\"?'")
        expect(existsSync(path.join(dir, '.toolhost/audit.jsonl'))).toBe(false)
        ran++
      } else if (block.lang === 'ts') {
        const file = /^\/\/ (plugins\/[\w.-]+\.ts)\n/.exec(block.text)?.[1]
        expect(file, `README line ${block.line}: a ts block starts with // plugins/FILE.ts`).toBeDefined()
        mkdirSync(path.join(dir, 'plugins'), { recursive: true })
        writeFileSync(path.join(dir, file!), block.text)
        const checked = await typeCheck(dir, 'tsconfig.readme.json', { module: 'NodeNext', moduleResolution: 'NodeNext' }, { files: [file!] })
        expect(checked.stdout + checked.stderr, `README line ${block.line}: strict tsc`).toBe('')
        ran++
      } else {
        expect.fail(`README line ${block.line}: no test runs a \`\`\`${block.lang} block`)
      }
    }
    expect(ran).toBeGreaterThanOrEqual(8)
  }, 6 * SLOW)
})

/** `npx toolhost serve` in `dir`, as an MCP client starts it: the built-in tools are listed. */
async function expectServes(dir: string): Promise<void> {
  const env = Object.fromEntries(Object.entries(childEnv({ npm_config_yes: 'false' })).filter((e): e is [string, string] => e[1] !== undefined))
  const transport = new StdioClientTransport({ command: 'npx', args: ['toolhost', 'serve'], cwd: dir, env, stderr: 'pipe' })
  const client = new Client({ name: 'readme-test', version: '1.0.0' })
  await client.connect(transport)
  try {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'read_file', 'weather']))
  } finally {
    await client.close()
  }
}
