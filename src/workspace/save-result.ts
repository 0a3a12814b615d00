import { constants } from 'node:fs'
import { mkdir, open, unlink } from 'node:fs/promises'
import path from 'node:path'
import { isToolhostError, ToolhostError } from '../contract/errors.js'
import { writeFileAtomic } from './atomic-write.js'
import { isInsideRoot } from './resolve-in-root.js'
import { writeWhole } from './write-whole.js'

/** Where a whole over-long result is saved, and how (see `saveWholeResult`). */
export interface ResultsFolder {
  /** The canonical workspace root. */
  root: string
  /** The results folder (`limits.results_dir` resolved against the root). */
  dir: string
  caseInsensitive: boolean
}

/**
 * Saves a whole result as `folder.dir/name` and returns the file's path. Inside the root it is
 * written like any file of the wall (`writeFileAtomic`): every folder on the way is opened without
 * following a symbolic link, so a `.toolhost/results` planted as a link (to `../.git`, or out of the
 * root) stops the save instead of redirecting it, and a write that fails half-way (a full disk)
 * leaves no partial file. A results folder configured outside the root is the user's choice: it is
 * created as needed and the file is made new, never through a link.
 *
 * @example
 * await saveWholeResult({ root: '/w', dir: '/w/.toolhost/results', caseInsensitive: false }, 'call_1-x.txt', text)
 * // '/w/.toolhost/results/call_1-x.txt'
 */
export async function saveWholeResult(folder: ResultsFolder, name: string, content: string): Promise<string> {
  const file = path.join(folder.dir, name)
  if (isInsideRoot(folder.dir, folder.root, folder.caseInsensitive)) {
    const relative = path.relative(folder.root, file).split(path.sep).join('/')
    try {
      await writeFileAtomic(folder.root, { path: file, relative, input: relative }, content, folder.caseInsensitive)
    } catch (error) {
      if (isToolhostError(error) && error.code === 'E_PATH_OUTSIDE_ROOT') {
        throw new ToolhostError('E_PATH_OUTSIDE_ROOT', `the results folder ${path.relative(folder.root, folder.dir) || '.'} is, or passes through, a symbolic link; results are never saved through one`)
      }
      throw error
    }
    return file
  }
  await mkdir(folder.dir, { recursive: true })
  const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666)
  try {
    await writeWhole(handle, content)
  } catch (error) {
    await handle.close().catch(() => undefined)
    await unlink(file).catch(() => undefined)
    throw error
  }
  await handle.close()
  return file
}

/** The name a saved result gets: the call id made safe, a time and a random part. */
export function savedResultName(callId: string): string {
  const safe = callId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64) || 'call'
  return `${safe}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}.txt`
}

/**
 * True for a name `savedResultName` makes: the only files the results folder's read exemption from
 * `workspace.deny` covers (a `.env` or a `config` shipped inside the folder is not one).
 */
export function isSavedResultName(name: string): boolean {
  return SAVED_RESULT_NAME.test(name)
}

const SAVED_RESULT_NAME = /^[A-Za-z0-9_.-]{1,64}-[0-9a-z]{1,12}-[0-9a-z]{0,6}\.txt$/
