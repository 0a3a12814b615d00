import { createRequire } from 'node:module'
import path from 'node:path'
import type { CompiledFile } from './ts-cache.js'

/** One file to compile, and how Node will load it. */
export interface CompileJob {
  file: string
  format: 'module' | 'commonjs'
}

type Esbuild = typeof import('esbuild')

const require = createRequire(import.meta.url)
let esbuild: Esbuild | undefined

/**
 * esbuild's JavaScript API, loaded on the first compile. Its synchronous calls then run the esbuild
 * binary to completion (ESBUILD_WORKER_THREADS=0 while it loads): no worker thread and no service
 * process is left behind, so nothing is running when a command ends.
 */
function loadEsbuild(): Esbuild {
  if (esbuild === undefined) {
    const before = process.env.ESBUILD_WORKER_THREADS
    process.env.ESBUILD_WORKER_THREADS = '0'
    try {
      esbuild = require('esbuild') as Esbuild
    } finally {
      if (before === undefined) delete process.env.ESBUILD_WORKER_THREADS
      else process.env.ESBUILD_WORKER_THREADS = before
    }
  }
  return esbuild
}

/** esbuild's version, read from its package.json (no esbuild code is loaded): part of every cache key. */
export function readEsbuildVersion(): string {
  return (require('esbuild/package.json') as { version: string }).version
}

/** The options of a compile for one output format (part of every cache key). */
export function compileOptions(format: 'module' | 'commonjs'): Record<string, unknown> {
  return {
    format: format === 'module' ? 'esm' : 'cjs',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    sourcemap: 'inline',
    // import.meta in CommonJS output: what Node gives an ES module (esbuild would leave an empty object).
    ...(format === 'commonjs'
      ? {
          define: { 'import.meta.url': '__toolhostImportMetaUrl', 'import.meta.filename': '__filename', 'import.meta.dirname': '__dirname' },
          banner: { js: 'var __toolhostImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
        }
      : {}),
  }
}

/**
 * Compiles TypeScript files, one esbuild run per output format, each file on its own (no bundling:
 * imports stay as written). esbuild reads the tsconfig.json nearest each file, as tsc would. The
 * source map (inline, `sources` relative to the file) names the .ts lines in stack traces. A file
 * that fails gets an Error with esbuild's words (`FILE:LINE:COLUMN: ERROR: …`); the others still compile.
 */
export function compileTypescript(jobs: readonly CompileJob[]): Map<string, CompiledFile | Error> {
  const results = new Map<string, CompiledFile | Error>()
  for (const format of ['commonjs', 'module'] as const) {
    const files = jobs.filter((j) => j.format === format).map((j) => j.file)
    if (files.length === 0) continue
    try {
      for (const [file, compiled] of compileBatch(files, format)) results.set(file, compiled)
    } catch (error) {
      // One file's error fails the run: compile each alone, so every other file still gets its code.
      if (files.length === 1) results.set(files[0]!, describeFailure(error, path.parse(files[0]!).root))
      else for (const file of files) results.set(file, compileTypescript([{ file, format }]).get(file)!)
    }
  }
  return results
}

function compileBatch(files: readonly string[], format: 'module' | 'commonjs'): Map<string, CompiledFile> {
  const root = path.parse(files[0]!).root
  const result = loadEsbuild().buildSync({
    ...compileOptions(format),
    entryPoints: [...files],
    bundle: false,
    write: false,
    metafile: true,
    absWorkingDir: root,
    outbase: root,
    outdir: root,
    // Beside each source, so the source map names it by its own name; never written.
    entryNames: '[dir]/[name]-[hash]',
    logLevel: 'silent',
  })
  const byOutput = new Map(result.outputFiles.map((o) => [o.path, o.text]))
  const compiled = new Map<string, CompiledFile>()
  for (const [output, info] of Object.entries(result.metafile.outputs)) {
    if (info.entryPoint === undefined) continue
    const code = byOutput.get(path.resolve(root, output))
    if (code === undefined) continue
    const imports = info.imports.filter((i) => i.external === true).map((i) => ({ path: i.path, kind: i.kind }))
    compiled.set(path.resolve(root, info.entryPoint), { format, imports, code })
  }
  for (const file of files) if (!compiled.has(file)) throw new Error(`esbuild gave no output for ${file}`)
  return compiled
}

// esbuild's failure as tsx reports it: "Transform failed with N error(s):" and a line per error.
function describeFailure(error: unknown, root: string): Error {
  const errors = (error as { errors?: Array<{ text: string; location: { file: string; line: number; column: number } | null }> }).errors
  if (!Array.isArray(errors) || errors.length === 0) return error instanceof Error ? error : new Error(String(error))
  const lines = errors.map((e) => (e.location ? `${path.resolve(root, e.location.file)}:${e.location.line}:${e.location.column}: ERROR: ${e.text}` : `ERROR: ${e.text}`))
  const failure = new Error(`Transform failed with ${errors.length} error${errors.length === 1 ? '' : 's'}:\n${lines.join('\n')}`)
  failure.name = 'TransformError'
  return failure
}
