/**
 * What workspace trust and the control plane cost (issue 32): `node bin/run-ts.mjs
 * scripts/bench/trust-cost.ts [--quick]`. Not part of `npm run bench`; figures go to bench-notes/.
 *
 * 1. The digest a gated start-up computes (workspaceCodeOf: every file of the plugin folders hashed)
 *    and the trust file read, for folders of 0 to 1,000 plugin files.
 * 2. `toolhost list` from the sources in a folder with 10 plugin files: untrusted (withheld), trusted,
 *    and named with --config from outside (no gate), wall time per run.
 * 3. Per call: the control-plane check of a file tool's write, and a terminal command's judgement
 *    with and without the control-plane scan.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { defaultConfig } from '../../src/config/defaults.js'
import { workspaceCodeOf } from '../../src/loader/workspace-code.js'
import { isTrusted, readTrust, writeTrust } from '../../src/loader/trust-store.js'
import { compileDangerousPatterns, isDangerousCommand } from '../../src/processes/dangerous-commands.js'
import { writesControlPlane } from '../../src/processes/control-plane-commands.js'
import { controlPlaneOf, refuseControlPlane } from '../../src/workspace/control-plane.js'
import { DEFAULT_DANGEROUS_PATTERNS } from '../../src/config/defaults.js'
import { fmt, median, renderTable, type Cell } from './table.js'

const quick = process.argv.includes('--quick')
const scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-bench-trust-')))
const CLI = path.resolve(import.meta.dirname, '../toolhost-dev.mjs')

function folderWith(files: number): string {
  const root = path.join(scratch, `w${files}`)
  mkdirSync(path.join(root, 'plugins'), { recursive: true })
  for (let i = 0; i < files; i++) {
    writeFileSync(path.join(root, 'plugins', `p${i}.mjs`), `import { defineTool, registry } from 'toolhost'\n// ${'x'.repeat(900)}\nregistry.register(defineTool({ name: 'bench_p${i}', description: 'x', parameters: { type: 'object' }, handler: () => 'ok' }))\n`)
  }
  return root
}

async function timeMs(runs: number, work: () => Promise<unknown> | unknown): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    await work()
    times.push(performance.now() - start)
  }
  return median(times)
}

try {
  // 1. The digest and the trust file.
  const trustFile = path.join(scratch, 'trust', 'trust.json')
  const digestRows: Cell[][] = []
  for (const files of [0, 10, 100, 1000]) {
    const root = folderWith(files)
    const setup = { config: defaultConfig(), file: undefined, baseDir: root, root }
    const code = await workspaceCodeOf(setup)
    writeTrust(trustFile, root, { digest: code.digest, trustedAt: new Date().toISOString(), by: 'bench' })
    const runs = files >= 1000 ? (quick ? 3 : 10) : quick ? 10 : 50
    for (let i = 0; i < 3; i++) await workspaceCodeOf(setup) // warm: fast-glob loaded, files in the page cache
    const digest = await timeMs(runs, () => workspaceCodeOf(setup))
    const read = await timeMs(runs, () => isTrusted(readTrust(trustFile).trust, root, code.digest))
    digestRows.push([files, `${fmt(digest, 2)} ms`, `${fmt(read, 3)} ms`])
  }
  console.log(renderTable({ title: 'Trust at start-up: the digest of a workspace\'s code, and the trust file read', headers: ['plugin files (~1 KB)', 'workspaceCodeOf (median)', 'readTrust + isTrusted (median)'], rows: digestRows, notes: ['Asked only by a gated host (the CLI, serve) whose config is the workspace\'s; an embedding without workspaceTrust pays nothing.'] }))

  // 2. `toolhost list` in a folder with 10 plugins.
  const root = folderWith(10)
  const outside = path.join(scratch, 'mine.yaml')
  writeFileSync(outside, `plugins: { dirs: [${JSON.stringify(path.join(root, 'plugins'))}] }\n`)
  const untrustedFile = path.join(scratch, 'empty-trust.json')
  const list = (env: NodeJS.ProcessEnv, extra: string[] = []) => () => {
    const run = spawnSync(process.execPath, [CLI, 'list', ...extra], { cwd: root, env: { ...process.env, TOOLHOST_STORE: 'memory', ...env }, encoding: 'utf8' })
    if (run.status !== 0) throw new Error(run.stderr)
  }
  const spawns = quick ? 3 : 7
  // (The folder is the one of table 1, trusted there.)
  const cliRows: Cell[][] = [
    ['untrusted: 10 plugin files withheld, one line', `${fmt(await timeMs(spawns, list({ TOOLHOST_TRUST_FILE: untrustedFile })), 0)} ms`],
    ['trusted: digest checked, 10 files loaded', `${fmt(await timeMs(spawns, list({ TOOLHOST_TRUST_FILE: trustFile })), 0)} ms`],
    ['--config from outside the root: no gate, 10 files loaded', `${fmt(await timeMs(spawns, list({ TOOLHOST_TRUST_FILE: untrustedFile }, ['--config', outside])), 0)} ms`],
  ]
  console.log(renderTable({ title: '`toolhost list` from the sources (tsx), 10 plugin files', headers: ['folder', 'wall time (median)'], rows: cliRows, notes: [`${spawns} runs each; the run from the sources includes tsx's start.`] }))

  // 3. Per call.
  const config = defaultConfig()
  const plane = controlPlaneOf({ root, config, configFile: path.join(root, 'config.yaml'), baseDir: root })
  const patterns = compileDangerousPatterns(DEFAULT_DANGEROUS_PATTERNS, 'defaults')
  const n = quick ? 20_000 : 200_000
  const perCall = (work: () => void): number => {
    for (let i = 0; i < 1000; i++) work()
    const start = performance.now()
    for (let i = 0; i < n; i++) work()
    return ((performance.now() - start) * 1000) / n
  }
  const target = path.join(root, 'src', 'index.ts')
  const command = 'cd src && npm test -- --reporter=dot > ../test-output.txt'
  const callRows: Cell[][] = [
    ['refuseControlPlane, an ordinary file', `${fmt(perCall(() => refuseControlPlane(plane, target, 'src/index.ts', false)), 3)} µs`],
    ['terminal judgement: dangerous patterns only', `${fmt(perCall(() => isDangerousCommand(command, patterns)), 3)} µs`],
    ['terminal judgement: + control-plane scan (cached per command)', `${fmt(perCall(() => isDangerousCommand(command, patterns) || writesControlPlane(command, root, plane)), 3)} µs`],
  ]
  console.log(renderTable({ title: 'Per call: the control plane', headers: ['check', 'cost (mean)'], rows: callRows, notes: [`${n.toLocaleString('en')} iterations after 1,000 warm-up; the command's parse is cached (analyse-command.ts), as it is across a call's judgements.`, `The control plane here holds ${plane.paths.length} paths.`] }))
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
