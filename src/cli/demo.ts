import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { CliArgs } from './args.js'
import { listCommand, readBatch, runAndPrint, type Output } from './commands.js'
import { createHostForCli } from './cli-host.js'
import { packageRoot } from './package-info.js'
import { approveEverything } from '../permissions/approvals.js'
import type { PermissionMode } from '../config/types.js'

/** The calls of examples/demo-batch.json that fail on purpose (an unknown tool, a mistyped argument). */
const ON_PURPOSE = ['call_typo', 'call_bad_args']

/**
 * What `npm start` and `npx toolhost demo` show: the built-in tools, then a sample batch of tool
 * calls run on a fresh temporary copy of `examples/workspace` (nothing in the current folder is
 * read or written), with its timeline: what ran together, what waited and why.
 */
export async function demoCommand(args: CliArgs, io: Output): Promise<number> {
  const examples = path.join(packageRoot(), 'examples')
  const batch = path.join(examples, 'demo-batch.json')
  const calls = readBatch(batch)
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'toolhost-demo-'))
  cpSync(path.join(examples, 'workspace'), scratch, { recursive: true })
  // The demo never stops to ask (CI runs it without a terminal): its file edits run on the scratch
  // copy, and a call that would ask is refused, unless --permission-mode or --yes says otherwise.
  const permissionMode: PermissionMode = (args.permissionMode as PermissionMode | undefined) ?? 'accept-edits'
  // Only the built-in tools, and nothing of the current folder: not its config.yaml, .env or
  // plugins/ (a project's own plugins would ask for trust on the scratch copy), unless --config names one.
  const config = args.config === undefined ? { config: { env_file: '', plugins: { dirs: [] } } } : {}
  const host = await createHostForCli(args, { root: scratch, options: { ...config, permissionMode, approve: args.yes ? approveEverything : undefined } }, io)
  try {
    io.out('toolhost demo: first the tools toolhost comes with, then one batch of')
    io.out(`${calls.length} tool calls, as a model would send them, run on a scratch copy of a small project.`)
    io.out('Calls that cannot interfere run together; a call that touches what another writes waits for it.')
    io.out('Nothing in the current folder is read or changed.\n')
    io.out('== the tools (npx toolhost list) ==')
    await listCommand(host, { ...args, json: false }, io)
    io.out(`\n== the batch (${relativeOrAbsolute(batch)}), run with --trace ==`)
    const { results, exitCode } = await runAndPrint(host, calls, { ...args, json: false, trace: true }, io)
    if (exitCode(0) !== 0) return exitCode(1)
    const failed = results.filter((r) => !r.ok).map((r) => r.id)
    if (failed.join() !== ON_PURPOSE.join()) {
      io.err(`\ntoolhost demo: the batch did not go as it should: failed ${failed.join(', ') || 'nothing'}, expected only ${ON_PURPOSE.join(', ')} to fail; \`npx toolhost doctor\` shows what is missing`)
      return 1
    }
    io.out('\nThe two failed calls are on purpose: a misspelt tool name and a mistyped argument each get an error result the model can act on, and the rest of the batch runs.')
    // explain with the demo's permission mode, so it shows the writes as they ran, not as denied.
    io.out(`Try: npx toolhost call echo '{"text":"hi"}'  ·  npx toolhost explain ${relativeOrAbsolute(batch)} --permission-mode ${permissionMode}  ·  npx toolhost doctor  ·  npx toolhost --help`)
    return 0
  } finally {
    await host.close()
    rmSync(scratch, { recursive: true, force: true })
  }
}

// A path the reader can paste from where they are: relative when it is below the current folder.
function relativeOrAbsolute(file: string): string {
  const relative = path.relative(process.cwd(), file)
  const shown = relative.startsWith('..') || path.isAbsolute(relative) ? file : relative
  return /^[\w./@+-]+$/.test(shown) ? shown : `'${shown}'`
}
