import { closeSync, mkdirSync, openSync, readdirSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { stateFolderProblem } from '../workspace/state-files.js'

/**
 * The last word on who delivers a completion: before a registry hands one out it claims it by
 * creating `<dir>/<id>.delivered` with O_EXCL, one atomic step that only one host on the workspace
 * can win, whatever each read of the checkpoint said. Two hosts starting together may both queue a
 * completion (the checkpoint's owner is decided under its lock, and a lock held past its stale limit
 * on a loaded machine is broken): the one that claims it first delivers it, the other drops it. A
 * claim that cannot be made for another reason (a read-only folder, a link planted on the way to it)
 * delivers anyway: a completion is never lost to a fault of the claim itself. (Whoever can write
 * the folder can drop a completion, as they can by editing the checkpoint.)
 *
 * @example
 * const claims = new CompletionClaims('/ws/.toolhost/processes', '/ws')
 * if (claims.claim('proc_1a2b')) deliver(completion)
 */
export class CompletionClaims {
  readonly #dir: string
  readonly #root: string | undefined

  /** `root`: the workspace root the folder lies in (its folders are checked for planted links). */
  constructor(dir: string, root?: string) {
    this.#dir = dir
    this.#root = root
  }

  /** True when this registry may deliver completion `id`: it made the claim, or no claim can be made here. */
  claim(id: string): boolean {
    if (!/^proc_[0-9a-f]+$/.test(id)) return true
    const file = path.join(this.#dir, `${id}.delivered`)
    if (this.#root !== undefined && stateFolderProblem(this.#root, file) !== undefined) return true
    try {
      mkdirSync(this.#dir, { recursive: true })
      // wx: O_CREAT | O_EXCL, which never follows a link planted at the name and fails when the claim exists.
      closeSync(openSync(file, 'wx', 0o600))
      return true
    } catch (error) {
      return (error as NodeJS.ErrnoException).code !== 'EEXIST'
    }
  }

  /** Removes claims older than `retentionMs` (their completions are long delivered; ids are never reused). */
  sweep(retentionMs: number): void {
    if (this.#root !== undefined && stateFolderProblem(this.#root, path.join(this.#dir, 'claim')) !== undefined) return
    let names: string[]
    try {
      names = readdirSync(this.#dir)
    } catch {
      return
    }
    const now = Date.now()
    for (const name of names) {
      if (!/^proc_[0-9a-f]+\.delivered$/.test(name)) continue
      const file = path.join(this.#dir, name)
      try {
        if (now - statSync(file).mtimeMs >= retentionMs) rmSync(file, { force: true })
      } catch {
        // Gone already.
      }
    }
  }
}
