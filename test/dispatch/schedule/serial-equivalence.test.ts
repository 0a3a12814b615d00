/**
 * Invariant 2's consequence, on a real workspace: whatever the completion order, a batch of reads
 * and writes on overlapping paths leaves the same files, and reads the same text, in `graph` mode
 * as when run one call at a time (`serial`). The writes are read-modify-write with a pause in the
 * middle (controlled by fast-check's scheduler), so running two of them together would lose one.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { readFile, rm, writeFile, mkdir, readdir, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import { propertyRuns } from '../../property-runs.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { DispatchMode } from '../../../src/config/types.js'
import { defineTool } from '../../../src/contract/define-tool.js'
import { createHost } from '../../../src/host/create-host.js'
import { registry } from '../../../src/registry/registry.js'
import type { ToolCall } from '../../../src/contract/types.js'

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined }

let pause: (label: string) => Promise<void> = async () => undefined

/** Every file under `dir` (recursively) with its text, sorted: what a read of a folder returns. */
async function snapshot(dir: string, root: string): Promise<string> {
  let info
  try {
    info = await stat(dir)
  } catch {
    return '(missing)'
  }
  if (info.isFile()) return readFile(dir, 'utf8')
  const lines: string[] = []
  for (const entry of (await readdir(dir)).sort()) {
    const full = path.join(dir, entry)
    lines.push(`${path.relative(root, full)}: ${await snapshot(full, root)}`)
  }
  return lines.join('\n')
}

function registerTools(): void {
  const parameters = { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } }, required: ['path'], additionalProperties: false }
  registry.register(
    defineTool<{ path: string }>({
      name: 'ws_read',
      description: 'read a file or a folder (recursively)',
      parameters,
      pathScoped: true,
      readOnly: () => true,
      handler: async (args, ctx) => {
        const full = path.join(ctx.workspace.root, args.path)
        const first = await snapshot(full, ctx.workspace.root)
        await pause(`read ${args.path}`)
        // Read twice around a pause: a write running alongside would make the two differ.
        const second = await snapshot(full, ctx.workspace.root)
        return first === second ? second : `TORN READ: ${first} / ${second}`
      },
    }),
  )
  registry.register(
    defineTool<{ path: string; text: string }>({
      name: 'ws_append',
      description: 'append text to a file (read, pause, write back)',
      parameters,
      pathScoped: true,
      handler: async (args, ctx) => {
        const full = path.join(ctx.workspace.root, args.path)
        let before = ''
        try {
          before = await readFile(full, 'utf8')
        } catch {
          before = ''
        }
        await pause(`append ${args.path}`)
        await mkdir(path.dirname(full), { recursive: true })
        await writeFile(full, before + args.text)
        return `appended to ${args.path}`
      },
    }),
  )
  registry.register(
    defineTool<{ path: string; text: string }>({
      name: 'ws_overwrite',
      description: 'replace a file, or (for a folder) replace the folder with one file',
      parameters,
      pathScoped: true,
      handler: async (args, ctx) => {
        const full = path.join(ctx.workspace.root, args.path)
        await pause(`overwrite ${args.path}`)
        if ((await stat(full).catch(() => undefined))?.isDirectory()) {
          await rm(full, { recursive: true, force: true })
          await mkdir(full)
          await writeFile(path.join(full, 'reset'), args.text)
        } else {
          await mkdir(path.dirname(full), { recursive: true })
          await writeFile(full, args.text)
        }
        return `overwrote ${args.path}`
      },
    }),
  )
}

/** The seed workspace: a folder with two files and a top-level file. */
function makeWorkspace(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-equiv-'))
  mkdirSync(path.join(dir, 'd'))
  writeFileSync(path.join(dir, 'd', 'x'), 'x0;')
  writeFileSync(path.join(dir, 'd', 'y'), 'y0;')
  writeFileSync(path.join(dir, 'f'), 'f0;')
  return dir
}

function treeOf(dir: string, root = dir): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of readdirSync(dir).sort()) {
    if (entry === '.toolhost') continue // the host's own records (audit log, saved results)
    const full = path.join(dir, entry)
    if (statSync(full).isDirectory()) Object.assign(out, treeOf(full, root))
    else out[path.relative(root, full)] = readFileSync(full, 'utf8')
  }
  return out
}

// Folder `d` and its files overlap; `f` stands apart. Appends go to files (a new one too).
const opArb = fc.oneof(
  fc.record({ tool: fc.constant('ws_read'), path: fc.constantFrom('d', 'd/x', 'f'), text: fc.constant('') }),
  fc.record({ tool: fc.constant('ws_append'), path: fc.constantFrom('d/x', 'd/y', 'd/z', 'f'), text: fc.constantFrom('A;', 'B;') }),
  fc.record({ tool: fc.constant('ws_overwrite'), path: fc.constantFrom('d', 'd/x', 'f'), text: fc.constantFrom('C;', 'D;') }),
)

async function runOn(mode: DispatchMode, ops: Array<{ tool: string; path: string; text: string }>, s: fc.Scheduler | undefined): Promise<{ reads: string[]; files: Record<string, string> }> {
  const root = makeWorkspace()
  try {
    pause = s ? (label) => s.schedule(Promise.resolve(), label) : async () => undefined
    const host = await createHost({ root, loadPlugins: false, log: silent, config: { plugins: { dirs: [] }, env_file: '', permissions: { mode: 'bypass' }, dispatch: { mode, max_workers: 4 } } })
    const calls: ToolCall[] = ops.map((op, i) => ({ id: `c${i}`, name: op.tool, arguments: op.tool === 'ws_read' ? { path: op.path } : { path: op.path, text: `${op.text}${i};` } }))
    const running = host.run(calls)
    const results = s ? await s.waitFor(running) : await running
    await host.close()
    expect(results.filter((r) => !r.ok)).toEqual([])
    return { reads: results.map((r) => r.content), files: treeOf(root) }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

describe('serial equivalence on a real workspace', () => {
  beforeAll(() => {
    registry.clear()
    registerTools()
  })
  afterAll(() => registry.clear())

  test('graph mode ends with the same files and read results as serial mode, in any completion order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(opArb, { minLength: 2, maxLength: 8 }), async (s, ops) => {
        const serial = await runOn('serial', ops, undefined)
        const graph = await runOn('graph', ops, s)
        expect(graph.files).toEqual(serial.files)
        expect(graph.reads).toEqual(serial.reads)
      }),
      propertyRuns(40),
    )
  })
})
