import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { closeSync, constants, realpathSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** What the loader needs besides the code of a compiled file. */
export interface CompiledMeta {
  /** 'module' (ES module output) or 'commonjs'. */
  format: 'module' | 'commonjs'
  /** The file's imports as esbuild saw them (specifier and kind: import-statement, dynamic-import, require-call). */
  imports: Array<{ path: string; kind: string }>
}

export interface CompiledFile extends CompiledMeta {
  code: string
}

/**
 * TypeScript plugin files compiled by esbuild, kept per user: one entry per key (the file's content,
 * its path, esbuild's version and every compile option; see `keyOf`). An entry is a header line
 * (its key, metadata and an HMAC-SHA256 of header and code under a secret of this cache) and the code;
 * an entry that does not verify is never used (read as a miss, compiled again and rewritten). The
 * folder, the secret and every entry must belong to this user and be writable by no one else, and
 * are opened without following links; otherwise the cache is off for the process and files are
 * compiled in memory. `TOOLHOST_TS_CACHE=off` turns it off; any other value names the folder.
 */
export class TsCache {
  #dir: string | undefined
  #secret: Buffer | null | undefined

  /** `dir`: the cache folder; undefined turns the cache off (every start compiles). */
  constructor(dir: string | undefined) {
    this.#dir = dir
  }

  /** Uses `dir` from now on (Node 20's loader thread takes the main thread's). */
  useDir(dir: string | undefined): void {
    if (dir === this.#dir) return
    this.#dir = dir
    this.#secret = undefined
  }

  /** The cache folder; undefined when the cache is off. */
  get dir(): string | undefined {
    return this.#dir
  }

  /**
   * Keeps the cache out of a workspace root: a cache inside one (the root at HOME holds ~/.cache)
   * is a file a model's tools could re-sign (its secret sits beside the entries), so it moves to the
   * temporary folder's, or is off when that too lies inside the root.
   *
   * @example
   * tsCache.keepOutOf(os.homedir()) // ~/.cache/toolhost/ts becomes /tmp/toolhost-1000/ts
   */
  keepOutOf(root: string): void {
    if (this.#dir === undefined || !isInside(this.#dir, root)) return
    const fallback = path.join(os.tmpdir(), `toolhost-${typeof process.getuid === 'function' ? String(process.getuid()) : 'user'}`, 'ts')
    this.#dir = isInside(fallback, root) ? undefined : fallback
    this.#secret = undefined
  }

  /** The key of one compile: everything the output depends on, the source's bytes last. */
  keyOf(source: Buffer | string, parts: readonly string[]): string {
    const hash = createHash('sha256')
    for (const part of parts) hash.update(part).update('\0')
    return hash.update(source).digest('hex').slice(0, 40)
  }

  /** The entry of `key` when there is one and it verifies; undefined otherwise (a miss). */
  read(key: string): CompiledFile | undefined {
    if (this.dir === undefined) return undefined
    const secret = this.#secretKey(false)
    if (secret === undefined) return undefined
    const text = readOwnFile(this.#entryFile(key), 64 << 20)
    if (text === undefined) return undefined
    const newline = text.indexOf('\n')
    if (newline < 0 || !text.startsWith(HEADER)) return undefined
    let header: { key?: unknown; mac?: unknown; meta?: unknown }
    try {
      header = JSON.parse(text.slice(HEADER.length, newline)) as typeof header
    } catch {
      return undefined
    }
    const code = text.slice(newline + 1)
    if (header.key !== key || typeof header.mac !== 'string' || !isMeta(header.meta)) return undefined
    const expected = macOf(secret, key, header.meta, code)
    const given = Buffer.from(header.mac, 'hex')
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
    return { ...header.meta, code }
  }

  /** Stores an entry (write then rename: a reader sees the old entry or the new one); never throws. */
  write(key: string, compiled: CompiledFile): void {
    if (this.dir === undefined) return
    try {
      const secret = this.#secretKey(true)
      if (secret === undefined) return
      const meta: CompiledMeta = { format: compiled.format, imports: compiled.imports }
      const header = JSON.stringify({ key, mac: macOf(secret, key, meta, compiled.code).toString('hex'), meta })
      const file = this.#entryFile(key)
      // 'wx' (O_EXCL): a link planted at the temporary name is refused, never written through.
      const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
      writeFileSync(temp, `${HEADER}${header}\n${compiled.code}`, { mode: 0o600, flag: 'wx' })
      try {
        renameSync(temp, file)
      } catch {
        unlinkSync(temp)
      }
    } catch {
      // A cache that cannot be written only costs the next start its compile.
    }
  }

  #entryFile(key: string): string {
    return path.join(this.dir!, `${key}.js-entry`)
  }

  // The secret that signs entries: made once per cache folder (mode 0600), read once per process.
  #secretKey(create: boolean): Buffer | undefined {
    if (this.#secret === undefined || (this.#secret === null && create)) {
      this.#secret = null
      if (create) {
        try {
          mkdirSync(this.dir!, { recursive: true, mode: 0o700 })
        } catch {
          // Checked just below.
        }
      }
      if (!isOwnFolder(this.dir!)) return undefined
      const file = path.join(this.dir!, 'secret')
      let text = readOwnFile(file, 1024)
      if (text === undefined && create) {
        try {
          writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' })
        } catch {
          // Another process made it first: read theirs.
        }
        text = readOwnFile(file, 1024)
      }
      if (text !== undefined && /^[0-9a-f]{64}$/.test(text)) this.#secret = Buffer.from(text, 'hex')
    }
    return this.#secret ?? undefined
  }
}

const HEADER = '// toolhost compiled TypeScript '

function macOf(secret: Buffer, key: string, meta: CompiledMeta, code: string): Buffer {
  return createHmac('sha256', secret).update(key).update('\0').update(JSON.stringify(meta)).update('\0').update(code).digest()
}

function isMeta(value: unknown): value is CompiledMeta {
  const meta = value as Partial<CompiledMeta> | null
  return (
    typeof meta === 'object' &&
    meta !== null &&
    (meta.format === 'module' || meta.format === 'commonjs') &&
    Array.isArray(meta.imports) &&
    meta.imports.every((i) => typeof i === 'object' && i !== null && typeof i.path === 'string' && typeof i.kind === 'string')
  )
}

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0
const NON_BLOCKING = constants.O_NONBLOCK ?? 0

// A regular file of this user that no one else may write, opened without following a link and
// without blocking on a FIFO; undefined for anything else.
function readOwnFile(file: string, maxBytes: number): string | undefined {
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | NO_FOLLOW | NON_BLOCKING)
  } catch {
    return undefined
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile() || stats.size > maxBytes || !isOwn(stats.uid, stats.mode)) return undefined
    return readFileSync(fd, 'utf8')
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

function isOwnFolder(dir: string): boolean {
  try {
    const stats = lstatSync(dir)
    return stats.isDirectory() && isOwn(stats.uid, stats.mode)
  } catch {
    return false
  }
}

function isOwn(uid: number, mode: number): boolean {
  const me = typeof process.getuid === 'function' ? process.getuid() : uid
  return uid === me && (mode & 0o022) === 0
}

// Whether `dir` (real or as spelt, which may not exist yet) lies in `root` (a real path).
function isInside(dir: string, root: string): boolean {
  const spelt = path.resolve(dir)
  let real = spelt
  try {
    real = realpathSync.native(spelt)
  } catch {
    // Not made yet: as spelt.
  }
  return [spelt, real].some((p) => {
    const relative = path.relative(root, p)
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
  })
}

/**
 * The folder of the cache: `TOOLHOST_TS_CACHE` (a folder, or `off`), else toolhost/ts under the
 * user's cache folder (`$XDG_CACHE_HOME`, else ~/.cache), else under the temporary folder.
 */
export function defaultTsCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const setting = env.TOOLHOST_TS_CACHE
  if (setting === 'off') return undefined
  if (setting) return path.resolve(setting)
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) return path.join(env.XDG_CACHE_HOME, 'toolhost', 'ts')
  let home = ''
  try {
    home = os.homedir()
  } catch {
    // No home folder (a service account): the temporary folder below.
  }
  if (home) return path.join(home, '.cache', 'toolhost', 'ts')
  const user = typeof process.getuid === 'function' ? String(process.getuid()) : 'user'
  return path.join(os.tmpdir(), `toolhost-${user}`, 'ts')
}
