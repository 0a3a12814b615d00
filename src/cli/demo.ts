import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CliArgs } from './args.js'
import { listCommand, runCommand, type Output } from './commands.js'
import { createHostForCli } from './main.js'
import { approveEverything } from '../permissions/approvals.js'
import { PERMISSION_MODES } from '../permissions/modes.js'

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url))

/**
 * What `npm start` shows: the built-in tools and their availability, then a sample batch run on a
 * scratch copy of `examples/workspace` with its timeline (what ran together, what waited and why).
 */
export async function demoCommand(args: CliArgs, io: Output): Promise<number> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'toolhost-demo-'))
  cpSync(path.join(EXAMPLES, 'workspace'), scratch, { recursive: true })
  // The demo never stops to ask (CI runs it without a terminal): accept-edits lets its file edits
  // run, and a call that would ask is answered E_DENIED, unless --permission-mode or --yes says otherwise.
  const permissionMode = (args.permissionMode ?? 'accept-edits') as keyof typeof PERMISSION_MODES
  const host = await createHostForCli(args, { root: scratch, options: { permissionMode, approve: args.yes ? approveEverything : undefined } })
  try {
    io.out(`permission mode: ${permissionMode} (${PERMISSION_MODES[permissionMode]})${args.yes ? '; --yes approves every call that asks' : '; a call that would ask is denied with E_DENIED (no one is asked in the demo)'}\n`)
    io.out('== toolhost list ==')
    await listCommand(host, { ...args, json: false }, io)
    const batch = path.join(EXAMPLES, 'demo-batch.json')
    io.out(`\n== toolhost run ${path.relative(process.cwd(), batch)} --trace (root: a scratch copy of examples/workspace) ==`)
    await runCommand(host, { ...args, json: false, trace: true, positionals: [batch] }, io)
    io.out('\nThe two failed calls are on purpose: a misspelt tool name and a mistyped argument each get an error result the model can act on, and the rest of the batch runs.')
    io.out('Try: toolhost explain examples/demo-batch.json · toolhost run examples/demo-batch.json --json --trace · toolhost doctor')
    return 0
  } finally {
    await host.close()
    rmSync(scratch, { recursive: true, force: true })
  }
}
