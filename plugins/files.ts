// Built-in file tools: read_file, write_file, patch. Every path goes through the workspace wall
// (workspaceFor(ctx)): inside the root, off the deny list, symlinks and swaps refused.
import { lstatSync } from 'node:fs'
import { defineTool, isToolhostError, registry, ToolhostError } from 'toolhost'
import type { BehaviourContext, ScopeEntry, ToolContext } from 'toolhost'
import { applyHunks, canonicalPath, parseUnifiedDiff, replaceExact, workspaceFor } from 'toolhost/workspace'
import type { ResolvedPath, Workspace } from 'toolhost/workspace'

const DEFAULT_LIMIT = 2000

interface ReadArgs { path: string; offset?: number; limit?: number }

registry.register(
  defineTool<ReadArgs>({
    name: 'read_file',
    toolset: 'files',
    description:
      'Read a text file inside the workspace. Returns numbered lines ("  12\\tcode"), at most `limit` lines from line `offset`. ' +
      'A long file is paged: the result ends with the total line count and the offset to continue from. ' +
      'A PNG, JPEG, GIF or WebP image comes back as an image. Other binary files are refused.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'The file, relative to the workspace root (absolute paths must lie inside the root).' },
        offset: { type: 'integer', minimum: 1, description: 'The 1-based line to start from. Default 1.' },
        limit: { type: 'integer', minimum: 1, maximum: 100000, description: `How many lines to return at most. Default ${DEFAULT_LIMIT}.` },
      },
      required: ['path'],
      additionalProperties: false,
    },
    readOnly: () => true,
    parallelSafe: true,
    pathScoped: true,
    idempotent: true,
    scope: (args) => [{ path: args.path, access: 'read' }],
    // It pages itself (offset/limit, limits.max_read_chars); its output is never spilled to disk.
    maxResultChars: false,
    handler: async (args, ctx) => {
      const ws = workspaceFor(ctx)
      const file = ws.resolve(args.path, 'read')
      const bytes = await ws.readFile(file)
      const image = imageTypeOf(bytes)
      if (image !== undefined) return imageResult(bytes, image, file, ctx.settings.config.limits.max_result_bytes)
      return pageLines(decodeText(bytes, file), file.relative, args.offset ?? 1, args.limit ?? DEFAULT_LIMIT, ctx)
    },
  }),
)

type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'

/** The image type a file's first bytes say (never its name), or undefined. */
function imageTypeOf(bytes: Buffer): ImageType | undefined {
  const starts = (offset: number, text: string) => bytes.toString('latin1', offset, offset + text.length) === text
  if (starts(0, '\x89PNG\r\n\x1a\n')) return 'image/png'
  if (starts(0, '\xff\xd8\xff')) return 'image/jpeg'
  if (starts(0, 'GIF87a') || starts(0, 'GIF89a')) return 'image/gif'
  if (starts(0, 'RIFF') && starts(8, 'WEBP')) return 'image/webp'
  return undefined
}

// An image block (MCP and the model APIs show the image; a text-only reader gets the note of what
// was left out), or E_LIMIT with the size when it is over limits.max_result_bytes.
function imageResult(bytes: Buffer, type: ImageType, file: ResolvedPath, maxBytes: number): { content: [{ type: 'image'; data: string; mimeType: ImageType }] } {
  if (bytes.length > maxBytes) {
    throw new ToolhostError(
      'E_LIMIT',
      `"${file.input}" is an image (${type}) of ${bytes.length} bytes, over the ${maxBytes} bytes one result may carry (limits.max_result_bytes); read_file shows images up to that size. Use a smaller copy of the image`,
    )
  }
  return { content: [{ type: 'image', data: bytes.toString('base64'), mimeType: type }] }
}

/** UTF-8 text of a file, or E_ARGS_INVALID for anything that looks binary. */
function decodeText(bytes: Buffer, file: ResolvedPath): string {
  const head = bytes.subarray(0, 8192)
  let text: string | undefined
  if (!head.includes(0)) {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    } catch {
      text = undefined
    }
  }
  if (text === undefined) {
    throw new ToolhostError('E_ARGS_INVALID', `"${file.input}" looks like a binary file (${bytes.length} bytes, not UTF-8 text); read_file only reads text files`)
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
}

function pageLines(text: string, label: string, offset: number, limit: number, ctx: ToolContext): string {
  const lines = splitLines(text)
  const total = lines.length
  if (total === 0) return `(${label} is empty)`
  if (offset > total) {
    throw new ToolhostError('E_ARGS_INVALID', `offset ${offset} is past the end of ${label}, which has ${total} line${total === 1 ? '' : 's'}; use an offset from 1 to ${total}`)
  }
  const maxChars = ctx.settings.config.limits.max_read_chars
  const last = Math.min(total, offset - 1 + limit)
  const width = String(last).length
  const out: string[] = []
  let used = 0
  let end = offset - 1
  const room = maxChars - 300
  for (let n = offset; n <= last; n++) {
    const line = `${String(n).padStart(width)}\t${lines[n - 1]}`
    if (used + line.length + 1 > room) break
    out.push(line)
    used += line.length + 1
    end = n
  }
  if (end < last) {
    if (ctx.settings.config.read_file.on_overflow === 'error') {
      const fits = Math.max(1, end - offset + 1)
      throw new ToolhostError(
        'E_LIMIT',
        `reading ${label} from line ${offset} (limit ${limit}) would return more than limits.max_read_chars (${maxChars} characters); the file has ${total} lines. ` +
          `Read a smaller range: offset ${offset} with limit ${fits} fits, then continue with a larger offset`,
      )
    }
    if (out.length === 0) {
      const line = lines[offset - 1]!
      const kept = line.slice(0, Math.max(0, room - 20))
      return `${String(offset).padStart(width)}\t${kept}\n[line ${offset} alone is ${line.length} characters, over limits.max_read_chars (${maxChars}); showing its first ${kept.length}. The file has ${total} lines; continue with offset ${offset + 1}]`
    }
    return `${out.join('\n')}\n[truncated at limits.max_read_chars (${maxChars} characters): showing lines ${offset}-${end} of ${total}; continue with offset ${end + 1}]`
  }
  if (last < total) return `${out.join('\n')}\n[showing lines ${offset}-${last} of ${total}; continue with offset ${last + 1}]`
  return out.join('\n')
}

interface WriteArgs { path: string; content: string }

registry.register(
  defineTool<WriteArgs>({
    name: 'write_file',
    toolset: 'files',
    description:
      'Write a whole text file inside the workspace, creating it (and any missing folders) or replacing it. The write is atomic: ' +
      'readers see the old file or the new one, never half. To change part of a file use patch instead.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'The file, relative to the workspace root. Missing folders are created.' },
        content: { type: 'string', description: 'The complete new text of the file (UTF-8).' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    pathScoped: true,
    idempotent: true,
    scope: (args) => [{ path: args.path, access: 'write' }],
    destructive: (args, context) => overwritesFile(args.path, context),
    handler: async (args, ctx) => {
      const ws = workspaceFor(ctx)
      const file = ws.resolve(args.path, 'write')
      const outcome = await ws.writeFile(file, args.content)
      const lines = splitLines(args.content).length
      return `${outcome.created ? 'created' : 'overwrote'} ${file.relative} (${outcome.bytes} byte${outcome.bytes === 1 ? '' : 's'}, ${lines} line${lines === 1 ? '' : 's'})`
    },
  }),
)

/** True when `input` names an existing file; true when unsure (no root given, or unresolvable). */
function overwritesFile(input: unknown, context: BehaviourContext | undefined): boolean {
  if (context === undefined) return true
  try {
    return lstatSync(canonicalPath(input, context.root)).isFile()
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT'
  }
}

interface PatchArgs { path?: string; old_string?: string; new_string?: string; replace_all?: boolean; diff?: string }

registry.register(
  defineTool<PatchArgs>({
    name: 'patch',
    toolset: 'files',
    description:
      'Edit text files inside the workspace. Either replace an exact string in one file (path, old_string, new_string, optionally replace_all), ' +
      'or apply a unified diff (diff) that may touch several files, create files (--- /dev/null) or delete them (+++ /dev/null). ' +
      'All or nothing: if any replacement or hunk does not apply, no file changes.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'String mode: the file to edit, relative to the workspace root.' },
        old_string: { type: 'string', minLength: 1, description: 'String mode: the exact text to replace, whitespace and indentation included. It must occur exactly once unless replace_all is true.' },
        new_string: { type: 'string', description: 'String mode: the text to put in its place.' },
        replace_all: { type: 'boolean', description: 'String mode: replace every occurrence of old_string. Default false.' },
        diff: { type: 'string', minLength: 1, description: 'Diff mode: a unified diff ("--- a/file", "+++ b/file", "@@ -l,n +l,n @@" hunks). Paths are relative to the workspace root. Do not combine with the string-mode fields.' },
      },
      additionalProperties: false,
    },
    pathScoped: true,
    // The footprint comes from the files the diff names, never from a `path` sent beside it.
    scope: (args) => patchScope(args),
    handler: async (args, ctx) => (args.diff !== undefined ? patchWithDiff(args, ctx) : patchString(args, ctx)),
  }),
)

function patchScope(args: PatchArgs): ScopeEntry[] {
  if (args.diff === undefined) return args.path === undefined ? [] : [{ path: args.path, access: 'write' }]
  const paths = new Set<string>()
  for (const file of parseUnifiedDiff(args.diff)) {
    if (file.oldPath !== null) paths.add(file.oldPath)
    if (file.newPath !== null) paths.add(file.newPath)
  }
  return [...paths].map((path) => ({ path, access: 'write' as const }))
}

async function patchString(args: PatchArgs, ctx: ToolContext): Promise<string> {
  const missing = (['path', 'old_string', 'new_string'] as const).filter((k) => args[k] === undefined)
  if (missing.length > 0) {
    throw new ToolhostError('E_ARGS_INVALID', `patch needs either \`diff\`, or \`path\`, \`old_string\` and \`new_string\`; missing ${missing.map((k) => `\`${k}\``).join(', ')}`)
  }
  const ws = workspaceFor(ctx)
  const file = ws.resolve(args.path, 'write')
  const before = await readText(ws, file)
  const done = replaceExact(before, args.old_string!, args.new_string!, args.replace_all ?? false, file.relative)
  await ws.writeFile(file, done.text)
  return `patched ${file.relative}: replaced ${done.count} occurrence${done.count === 1 ? '' : 's'} (line${done.lines.length === 1 ? '' : 's'} ${done.lines.join(', ')})`
}

async function readText(ws: Workspace, file: ResolvedPath): Promise<string> {
  const bytes = await ws.readFile(file)
  if (bytes.subarray(0, 8192).includes(0)) throw new ToolhostError('E_ARGS_INVALID', `"${file.input}" looks like a binary file; patch only edits text`)
  return bytes.toString('utf8')
}

interface FileState { file: ResolvedPath; original: string | undefined; current: string | undefined; summary: string }

async function patchWithDiff(args: PatchArgs, ctx: ToolContext): Promise<string> {
  const extra = (['path', 'old_string', 'new_string', 'replace_all'] as const).filter((k) => args[k] !== undefined)
  if (extra.length > 0) {
    throw new ToolhostError('E_ARGS_INVALID', `patch takes either \`diff\` or the string-mode fields, not both; remove ${extra.map((k) => `\`${k}\``).join(', ')} (the diff names its own files)`)
  }
  const ws = workspaceFor(ctx)
  const patches = parseUnifiedDiff(args.diff!)
  // Validate everything first: every path through the wall, every hunk against the current text.
  const states = new Map<string, FileState>()
  const stateOf = async (input: string): Promise<FileState> => {
    const file = ws.resolve(input, 'write')
    let state = states.get(file.path)
    if (!state) {
      const original = await readIfExists(ws, file)
      state = { file, original, current: original, summary: '' }
      states.set(file.path, state)
    }
    return state
  }
  for (const patch of patches) {
    const from = patch.oldPath === null ? undefined : await stateOf(patch.oldPath)
    const to = patch.newPath === null ? undefined : await stateOf(patch.newPath)
    const label = (to ?? from)!.file.relative
    if (from === undefined && to!.current !== undefined) throw new ToolhostError('E_ARGS_INVALID', `the diff creates ${label}, which already exists; diff it against its current text instead`)
    if (from !== undefined && from.current === undefined) throw new ToolhostError('E_NOT_FOUND', `the diff edits ${from.file.relative}, which does not exist; check the path (or use --- /dev/null to create it)`)
    if (to !== undefined && from !== undefined && to !== from && to.current !== undefined) throw new ToolhostError('E_ARGS_INVALID', `the diff renames ${from.file.relative} to ${label}, which already exists`)
    const result = applyHunks(from?.current, patch, from?.file.relative ?? label)
    if (to === undefined) {
      if (result !== '') throw new ToolhostError('E_NOT_FOUND', `the diff deletes ${label} but its hunks do not remove the whole text; rebuild the diff from the current file`)
      from!.current = undefined
      from!.summary = 'deleted'
    } else {
      if (from !== undefined && from !== to) {
        from.current = undefined
        from.summary = `renamed to ${label}`
      }
      to.current = result
      to.summary = from === undefined ? 'created' : from === to ? `${patch.hunks.length} hunk${patch.hunks.length === 1 ? '' : 's'}` : `from ${from.file.relative}`
    }
  }
  // Then write; on any failure put back what was already changed.
  const changed = [...states.values()].filter((s) => s.current !== s.original)
  const done: FileState[] = []
  try {
    for (const state of changed) {
      if (state.current === undefined) await ws.removeFile(state.file)
      else await ws.writeFile(state.file, state.current)
      done.push(state)
    }
  } catch (error) {
    const failed = changed[done.length]!
    const unrestored = await rollBack(ws, done)
    const reason = error instanceof Error ? error.message : String(error)
    throw new ToolhostError(
      isToolhostError(error) ? error.code : 'E_TOOL_FAILED',
      `patch could not write ${failed.file.relative} (${reason}); ` +
        (unrestored.length === 0 ? `the ${done.length} file${done.length === 1 ? '' : 's'} already written were restored, so no file changed` : `ROLLBACK FAILED for ${unrestored.join(', ')}: check these files`),
    )
  }
  return `patched ${changed.length} file${changed.length === 1 ? '' : 's'}: ${changed.map((s) => `${s.file.relative} (${s.summary})`).join(', ')}`
}

async function readIfExists(ws: Workspace, file: ResolvedPath): Promise<string | undefined> {
  try {
    return await readText(ws, file)
  } catch (error) {
    if ((error as { code?: unknown }).code === 'E_NOT_FOUND') return undefined
    throw error
  }
}

async function rollBack(ws: Workspace, done: readonly FileState[]): Promise<string[]> {
  const unrestored: string[] = []
  for (const state of [...done].reverse()) {
    try {
      if (state.original === undefined) await ws.removeFile(state.file)
      else await ws.writeFile(state.file, state.original)
    } catch {
      unrestored.push(state.file.relative)
    }
  }
  return unrestored
}
