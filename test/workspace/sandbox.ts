// Test helper (not a test): a real root beside a sibling folder holding a secret, a host loading the
// repository's plugins/, and a snapshot of everything outside the root to prove nothing changed.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createHost, type Host, type HostOptions, type ToolResult } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'

export const PLUGINS_DIR = fileURLToPath(new URL('../../plugins/', import.meta.url))
export const SECRET = 'TOP-SECRET-7f3a9c'

export interface Sandbox {
  base: string
  root: string
  sibling: string
  secretFile: string
  cleanup(): void
}

/** `base/root` (the workspace) and `base/root-sibling/secret.txt` (must never leak). */
export function makeSandbox(prefix = 'toolhost-wall-'): Sandbox {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)))
  const root = path.join(base, 'root')
  const sibling = path.join(base, 'root-sibling')
  mkdirSync(root)
  mkdirSync(sibling)
  const secretFile = path.join(sibling, 'secret.txt')
  writeFileSync(secretFile, `${SECRET}\n`)
  return { base, root, sibling, secretFile, cleanup: () => rmSync(base, { recursive: true, force: true }) }
}

/** A host on `root` with the repository's plugins, no .env, permissions bypassed. */
export function hostOn(root: string, extra: Partial<HostOptions> = {}, config: Record<string, unknown> = {}): Promise<Host> {
  return createHost({ root, config: { plugins: { dirs: [PLUGINS_DIR] }, env_file: '', permissions: { mode: 'bypass' }, ...config }, log: silentLogger, ...extra })
}

/** Every entry under `dir` except `skip` (the root): type, and content or link target. */
export function snapshot(dir: string, skip: string): Map<string, string> {
  const out = new Map<string, string>()
  const visit = (current: string): void => {
    for (const name of readdirSync(current)) {
      const full = path.join(current, name)
      if (full === skip) continue
      const stats = lstatSync(full)
      if (stats.isSymbolicLink()) out.set(full, `link:${readlinkSync(full)}`)
      else if (stats.isDirectory()) {
        out.set(full, 'dir')
        visit(full)
      } else out.set(full, `file:${readFileSync(full, 'utf8')}:${stats.mtimeMs}`)
    }
  }
  visit(dir)
  return out
}

/** One call by name with object arguments. */
export async function call(host: Host, name: string, args: Record<string, unknown>, id = 'c1'): Promise<ToolResult> {
  return host.call({ id, name, arguments: args })
}
