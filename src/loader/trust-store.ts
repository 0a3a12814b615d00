import { randomBytes } from 'node:crypto'
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ToolhostError } from '../contract/errors.js'
import { isWithin } from '../workspace/paths.js'

/** One trusted workspace: the digest of what it runs, when and how it was trusted. */
export interface TrustedWorkspace {
  digest: string
  trustedAt: string
  /** `toolhost trust` or `toolhost init`. */
  by: string
}

/** The per-user trust file (`trust.json`). */
export interface TrustFile {
  version: 1
  /** By the workspace root's real path. */
  workspaces: Record<string, TrustedWorkspace>
  /**
   * Folders whose workspaces (each one under them) are trusted whatever they run; written by hand,
   * like VS Code's trusted parent folders (a CI machine, a folder of one's own projects).
   */
  folders?: string[]
}

/** The store read: its entries, or why it was set aside (it then trusts nothing). */
export interface TrustRead {
  file: string
  trust: TrustFile
  problem?: string
}

const MAX_TRUST_BYTES = 4 * 1024 * 1024

/**
 * Where the person's trust is kept: `TOOLHOST_TRUST_FILE`, else `$XDG_CONFIG_HOME/toolhost/trust.json`,
 * else `~/.config/toolhost/trust.json` (`%APPDATA%\toolhost\trust.json` on Windows). Never inside a
 * workspace: it is the person's, not a repository's.
 *
 * @example
 * trustFilePath({ HOME: '/home/me' }) // '/home/me/.config/toolhost/trust.json'
 */
export function trustFilePath(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.TOOLHOST_TRUST_FILE
  if (named !== undefined && named !== '') return path.resolve(named)
  const base = env.XDG_CONFIG_HOME || (process.platform === 'win32' && env.APPDATA ? env.APPDATA : path.join(env.HOME || os.homedir(), '.config'))
  return path.join(base, 'toolhost', 'trust.json')
}

/**
 * Reads the trust file. Missing is empty; a file that is a link, not a regular file, writable by
 * others, owned by another user, oversized or malformed is set aside with `problem` (nothing is
 * trusted), so a store another user or a repository planted cannot trust anything.
 */
export function readTrust(file: string): TrustRead {
  const empty: TrustFile = { version: 1, workspaces: {} }
  let stat
  try {
    stat = lstatSync(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { file, trust: empty }
    return { file, trust: empty, problem: `cannot read it: ${(error as Error).message}` }
  }
  if (stat.isSymbolicLink()) return { file, trust: empty, problem: 'it is a symbolic link' }
  if (!stat.isFile()) return { file, trust: empty, problem: 'it is not a regular file' }
  if (stat.size > MAX_TRUST_BYTES) return { file, trust: empty, problem: `it is ${stat.size} bytes (at most ${MAX_TRUST_BYTES})` }
  if (process.platform !== 'win32') {
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) return { file, trust: empty, problem: 'it belongs to another user' }
    if ((stat.mode & 0o022) !== 0) return { file, trust: empty, problem: `others may write it (mode ${(stat.mode & 0o777).toString(8)}); chmod 600 it` }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    return { file, trust: empty, problem: `it is not valid JSON: ${(error as Error).message}` }
  }
  const trust = asTrustFile(parsed)
  return trust === undefined ? { file, trust: empty, problem: 'it is not a toolhost trust file ({"version": 1, "workspaces": {…}})' } : { file, trust }
}

/**
 * Whether `root` is trusted to run the code whose digest is `digest`.
 *
 * @example
 * isTrusted(readTrust(trustFilePath()).trust, '/home/me/app', code.digest) // true once `toolhost trust` ran there
 */
export function isTrusted(trust: TrustFile, root: string, digest: string): boolean {
  if (Object.hasOwn(trust.workspaces, root) && trust.workspaces[root]!.digest === digest) return true
  return (trust.folders ?? []).some((folder) => path.isAbsolute(folder) && isWithin(root, path.resolve(folder)))
}

/**
 * Trusts (or, with `digest` undefined, forgets) a workspace root, writing the file atomically (a
 * temp file renamed over it), mode 0600 in a folder of mode 0700. A trust file that cannot be read
 * is never overwritten: its owner fixes or deletes it.
 */
export function writeTrust(file: string, root: string, entry: TrustedWorkspace | undefined): void {
  const read = readTrust(file)
  if (read.problem !== undefined) throw new ToolhostError('E_CONFIG_INVALID', `${file}: the trust file is not used (${read.problem}); fix or delete it, then trust again`)
  const workspaces = { ...read.trust.workspaces }
  if (entry === undefined) delete workspaces[root]
  else workspaces[root] = entry
  const next: TrustFile = { ...read.trust, version: 1, workspaces }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  const temp = path.join(path.dirname(file), `.trust-${randomBytes(6).toString('hex')}.tmp`)
  const fd = openSync(temp, 'wx', 0o600)
  try {
    writeSync(fd, JSON.stringify(next, null, 2) + '\n')
    fsyncSync(fd)
  } catch (error) {
    closeSync(fd)
    rmSync(temp, { force: true })
    throw error
  }
  closeSync(fd)
  renameSync(temp, file)
}

function asTrustFile(value: unknown): TrustFile | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const v = value as Record<string, unknown>
  if (v.version !== 1 || typeof v.workspaces !== 'object' || v.workspaces === null || Array.isArray(v.workspaces)) return undefined
  const workspaces: Record<string, TrustedWorkspace> = Object.create(null) as Record<string, TrustedWorkspace>
  for (const [root, entry] of Object.entries(v.workspaces)) {
    const e = entry as Partial<TrustedWorkspace> | null
    if (typeof e?.digest !== 'string') return undefined
    workspaces[root] = { digest: e.digest, trustedAt: typeof e.trustedAt === 'string' ? e.trustedAt : '', by: typeof e.by === 'string' ? e.by : '' }
  }
  const folders = v.folders === undefined ? undefined : Array.isArray(v.folders) && v.folders.every((f) => typeof f === 'string') ? (v.folders as string[]) : null
  if (folders === null) return undefined
  return { version: 1, workspaces: { ...workspaces }, ...(folders ? { folders } : {}) }
}
