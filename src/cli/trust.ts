import type { WorkspaceCode } from '../loader/workspace-code.js'
import { describeCode, isEmptyCode, workspaceCodeOf } from '../loader/workspace-code.js'
import { isTrusted, readTrust, trustFilePath, writeTrust } from '../loader/trust-store.js'
import { resolveSetup } from '../host/setup.js'
import type { CliArgs } from './args.js'
import type { Output } from './commands.js'

/**
 * The CLI's `workspaceTrust`: the person's trust file (`TOOLHOST_TRUST_FILE`, else the user's config
 * folder), read when asked, so a `toolhost trust` run meanwhile counts at the next hot reload. A trust
 * file set aside (a link, writable by others, malformed) trusts nothing and is said once.
 *
 * @example
 * createHost({ workspaceTrust: trustGate(io) })
 */
export function trustGate(io: Output, env: NodeJS.ProcessEnv = process.env): (code: WorkspaceCode) => boolean {
  // Read once, before a .env file of the workspace could name another trust file.
  const file = trustFilePath(env)
  let warned = false
  return (code) => {
    const read = readTrust(file)
    if (read.problem !== undefined && !warned) {
      warned = true
      io.err(`toolhost warn: ${file}: the trust file is set aside (${read.problem}); no folder is trusted until it is fixed`)
    }
    return isTrusted(read.trust, code.root, code.digest)
  }
}

/**
 * `toolhost trust [--revoke]`: trusts the workspace (its root, as --root and config resolve it) to
 * run the code it brings now: its plugin files, config hooks and MCP servers, by their digest; a
 * change to any of them needs trust again. `--revoke` forgets the folder.
 *
 * @example
 * trustCommand(parseCliArgs(['trust']), io) // 0; "trusted /home/me/app: 1 plugin file (plugins/hello.ts)"
 */
export async function trustCommand(args: CliArgs, io: Output): Promise<number> {
  const setup = resolveSetup({ ...(args.config !== undefined ? { config: args.config, configExplicit: true } : {}), ...(args.root !== undefined ? { root: args.root, rootOption: '--root' } : {}) })
  const file = trustFilePath()
  if (args.revoke) {
    const had = readTrust(file).trust.workspaces[setup.root] !== undefined
    writeTrust(file, setup.root, undefined)
    io.out(had ? `revoked: ${setup.root} runs only the built-in tools and --plugins folders until trusted again (${file})` : `${setup.root} was not trusted; nothing to revoke (${file})`)
    return 0
  }
  const code = await trustWorkspace(setup, file, 'toolhost trust')
  io.out(`trusted ${setup.root}: ${isEmptyCode(code) ? 'it brings no code of its own now' : describeCode(code)}; a change to any of it needs toolhost trust again (${file})`)
  return 0
}

/** Records trust for what `setup`'s workspace runs now; `by` says which command (`toolhost init`). */
export async function trustWorkspace(setup: ReturnType<typeof resolveSetup>, file: string, by: string): Promise<WorkspaceCode> {
  const code = await workspaceCodeOf(setup)
  writeTrust(file, setup.root, { digest: code.digest, trustedAt: new Date().toISOString(), by })
  return code
}
