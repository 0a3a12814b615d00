import path from 'node:path'
import { fileURLToPath } from 'node:url'

// A stack frame's location: `at fn (/abs/file.ts:12:5)`, `at /abs/file.ts:12:5`, `at file:///abs/file.mjs:3:9`.
const FRAME = /^\s*at (?:.*?\()?((?:file:\/\/)?[^()\s]+?):(\d+):(\d+)\)?\s*$/

// toolhost's built-in tools (plugins/ beside src/, dist/plugins/ beside dist/src/): their messages are
// worded for the model already, and their place means nothing to it.
const BUILT_IN = path.resolve(fileURLToPath(new URL('../../../plugins', import.meta.url))) + path.sep

/**
 * Where a handler's error was thrown, as `file:line` relative to `root` (absolute outside it): the
 * first frame of its stack inside `source`, the tool's plugin file, past node's internals and the
 * dependencies the plugin called. Undefined for a tool registered from code (no `source`: its
 * embedding has the stack), for toolhost's built-in tools, and when the stack names no line of the file (a thrown string, a
 * stack-less error, an error made by a dependency and rethrown).
 *
 * @example
 * thrownAt(new Error('boom'), '/ws/plugins/flaky.ts', '/ws') // 'plugins/flaky.ts:12'
 */
export function thrownAt(error: unknown, source: string | undefined, root: string): string | undefined {
  if (source === undefined || source.startsWith(BUILT_IN)) return undefined
  let stack: unknown
  try {
    stack = error instanceof Error ? error.stack : undefined
  } catch {
    return undefined // a stack getter that throws: no place to name
  }
  if (typeof stack !== 'string') return undefined
  for (const line of stack.split('\n')) {
    const frame = FRAME.exec(line)
    if (!frame) continue
    const file = fileOf(frame[1]!)
    if (file === undefined) continue
    if (file !== source) continue
    const relative = path.relative(root, file)
    const shown = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file
    return `${shown.split(path.sep).join('/')}:${frame[2]}`
  }
  return undefined
}

// An absolute file path of a frame, or undefined for node's internals (`node:fs`, `internal/…`, `<anonymous>`).
function fileOf(where: string): string | undefined {
  if (where.startsWith('file://')) {
    try {
      return fileURLToPath(where)
    } catch {
      return undefined
    }
  }
  return path.isAbsolute(where) ? where : undefined
}
