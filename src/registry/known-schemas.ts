import { createHash } from 'node:crypto'
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { readStateFile } from '../workspace/state-files.js'

/**
 * Schemas that compiled before, under the same ajv version and the same ajv set-up: a set of
 * fingerprints kept in a per-user cache file. A tool whose schema is in it is known to compile, so
 * the registry may build its validator on first use instead of at registration; an invalid schema
 * never gets in (only a successful compile adds it), so it still fails at registration.
 *
 * The fingerprint covers the schema's JSON text, ajv's version and the text of the module that
 * builds the validators (schema.ts, or its compiled form): a change to either starts a new set.
 * `TOOLHOST_SCHEMA_CACHE=off` turns the cache off; any other value names the file.
 */
export class KnownSchemas {
  readonly file: string | undefined
  #salt: string | null | undefined
  #known: Set<string> | undefined
  readonly #added = new Set<string>()
  #timer: NodeJS.Timeout | undefined

  /** `file`: the cache file; undefined turns the cache off (every schema compiles at registration). */
  constructor(file: string | undefined) {
    this.file = file
  }

  /** The fingerprint of a schema's JSON text; undefined when the cache is off or the set-up unknowable. */
  keyOf(schemaText: string): string | undefined {
    if (this.file === undefined) return undefined
    if (this.#salt === undefined) this.#salt = setupFingerprint()
    if (this.#salt === null) return undefined
    return createHash('sha256').update(this.#salt).update('\0').update(schemaText).digest('base64url').slice(0, 22)
  }

  has(key: string): boolean {
    return this.#load().has(key) || this.#added.has(key)
  }

  /** Records a schema that compiled; written out soon after (or at `save()`). */
  add(key: string): void {
    if (this.has(key)) return
    this.#added.add(key)
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.save(), 200)
      this.#timer.unref()
    }
  }

  /** Writes the new fingerprints (merged with the file's, newest kept); never throws. */
  save(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.file === undefined || this.#added.size === 0) return
    try {
      const merged = [...new Set([...readKeys(this.file), ...this.#added])].slice(-MAX_KEYS)
      mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 })
      if (!isOwnFolder(path.dirname(this.file))) return
      // Write then rename: a reader (another toolhost starting) sees the old set or the new one.
      // 'wx' (O_EXCL): a link planted at the temp name is refused, never written through.
      const temp = `${this.file}.${process.pid}.${Date.now().toString(36)}.tmp`
      writeFileSync(temp, merged.join('\n') + '\n', { mode: 0o600, flag: 'wx' })
      renameSync(temp, this.file)
      for (const key of this.#added) this.#known?.add(key)
      this.#added.clear()
    } catch {
      // A cache that cannot be written only costs the next start-up its compiles.
    }
  }

  #load(): Set<string> {
    this.#known ??= new Set(this.file === undefined ? [] : readKeys(this.file))
    return this.#known
  }
}

const MAX_KEYS = 20_000

function defaultCacheFile(): string | undefined {
  const setting = process.env.TOOLHOST_SCHEMA_CACHE
  if (setting === 'off') return undefined
  if (setting) return path.resolve(setting)
  const user = typeof process.getuid === 'function' ? String(process.getuid()) : 'user'
  return path.join(os.tmpdir(), `toolhost-${user}`, 'known-schemas.txt')
}

/** The process's set (shared by every registry, as the schema set-up is). */
export const knownSchemas = new KnownSchemas(defaultCacheFile())

// The cache lives in a shared temp folder by default: another local user could make the folder
// first and plant a FIFO (a synchronous read blocks every start-up), a link, or entries. Only a
// folder of our own, writable by us alone, and a regular file in it are used; anything else: no cache.
function readKeys(file: string): string[] {
  if (!isOwnFolder(path.dirname(file))) return []
  const read = readStateFile(file, 4 << 20)
  return read === undefined || 'problem' in read ? [] : read.text.split('\n').filter((line) => line.length > 0)
}

function isOwnFolder(dir: string): boolean {
  try {
    const stats = lstatSync(dir)
    const uid = typeof process.getuid === 'function' ? process.getuid() : stats.uid
    return stats.isDirectory() && stats.uid === uid && (stats.mode & 0o022) === 0
  } catch {
    return false
  }
}

// ajv's version and the text of the module that sets ajv up (schema.js beside this file).
function setupFingerprint(): string | null {
  const require = createRequire(import.meta.url)
  const setup = new URL(`./schema${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url)
  let text: string
  let ajvVersion: string
  try {
    text = readFileSync(setup, 'utf8')
    ajvVersion = (JSON.parse(readFileSync(require.resolve('ajv/package.json'), 'utf8')) as { version: string }).version
  } catch {
    // Unknowable set-up: no cache, every schema compiles at registration.
    return null
  }
  return createHash('sha256').update(ajvVersion).update('\0').update(text).digest('base64url')
}
