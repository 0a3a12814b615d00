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

test("new-plugin's output passes the lint; once committed as a built-in, it needs its AGENTS.md line", () => {
  mkdirSync(path.join(dir, 'src'))
  cpSync(path.join(REPO, 'src/index.ts'), path.join(dir, 'src/index.ts'))
  writeFileSync(path.join(dir, 'AGENTS.md'), 'src/index.ts  the public API\n')
  execFileSync('git', ['init', '-q'], { cwd: dir })
  const written = writePluginFiles('lint_probe', dir, { typescript: true, runner: 'vitest' })
  expect(lint()).toEqual({ code: 0, output: 'lint: ok\n' })
  execFileSync('git', ['add', '--', path.relative(dir, written.plugin)], { cwd: dir })
  expect(lint()).toEqual({ code: 1, output: expect.stringContaining('AGENTS.md: no line for plugins/lint_probe.ts') })
})
