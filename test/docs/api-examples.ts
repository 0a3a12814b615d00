// The @example blocks of the public API, read from the sources: each declaration an entry of
// package.json's exports names (followed through the files that re-export it), and the members of
// those classes and interfaces. TypeScript 7 has no compiler API in JavaScript, so this reads the
// text: JSDoc blocks, the declaration under each, and the entries' `export { … } from` lists.
import { readFileSync } from 'node:fs'
import path from 'node:path'

export interface ApiExample {
  /** The entry that exports the declaration (`toolhost`, `toolhost/mcp`, …). */
  entry: string
  /** The exported name, and the member when the example is a member's. */
  name: string
  file: string
  line: number
  code: string
}

const EXPORT_LIST = /^export\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/gm
const DECLARATION = /^export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|class|interface|type|const|let|enum)\s+([A-Za-z_$][\w$]*)/

/** Each name a module exports by an `export { … } from` list: the name it is known by and where it comes from. */
function reExports(file: string, text: string): Map<string, { file: string; original: string; typeOnly: boolean }> {
  const names = new Map<string, { file: string; original: string; typeOnly: boolean }>()
  for (const m of text.matchAll(EXPORT_LIST)) {
    const from = path.resolve(path.dirname(file), m[2]!.replace(/\.js$/, '.ts'))
    const listIsTypes = /^export\s+type\s/.test(m[0])
    for (const part of m[1]!.split(',').map((p) => p.replace(/\/\/.*$/gm, '').trim()).filter(Boolean)) {
      const [original, alias] = part.replace(/^type\s+/, '').split(/\s+as\s+/)
      names.set((alias ?? original)!.trim(), { file: from, original: original!.trim(), typeOnly: listIsTypes || part.startsWith('type ') })
    }
  }
  return names
}

/** The JSDoc blocks of a file with the line after each (0-based) and the text of their @example tags. */
function examplesIn(text: string): { endLine: number; codes: string[] }[] {
  const blocks: { endLine: number; codes: string[] }[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*\/\*\*/.test(lines[i]!)) continue
    let j = i
    while (!lines[j]!.includes('*/')) j++
    const body = lines.slice(i, j + 1).map((l) => l.replace(/^\s*\/\*\*\s?/, '').replace(/\s*\*\/\s*$/, '').replace(/^\s*\* ?/, ''))
    const codes: string[] = []
    let current: string[] | undefined
    for (const l of body) {
      if (/^@\w+/.test(l)) {
        if (current) codes.push(current.join('\n'))
        current = l.startsWith('@example') ? [l.slice('@example'.length).trim()] : undefined
      } else if (current) current.push(l)
    }
    if (current) codes.push(current.join('\n'))
    const cleaned = codes.map((c) => c.replace(/^```\w*\n?|```\s*$/gm, '').trim()).filter(Boolean)
    if (cleaned.length > 0) blocks.push({ endLine: j + 1, codes: cleaned })
    i = j
  }
  return blocks
}

const read = (file: string): string => readFileSync(file, 'utf8')

/** Where `name` is declared, following re-exports: the file and the declaration's line (0-based). */
function declarationOf(file: string, name: string, depth = 0): { file: string; line: number } | undefined {
  const text = read(file)
  const lines = text.split('\n')
  const at = lines.findIndex((l) => DECLARATION.exec(l)?.[1] === name)
  if (at >= 0) return { file, line: at }
  const via = reExports(file, text).get(name)
  return via && depth < 8 ? declarationOf(via.file, via.original, depth + 1) : undefined
}

/** The last line (0-based) of the class or interface body opened on `line`: its closing brace at column 0. */
function bodyEnd(lines: string[], line: number): number {
  for (let i = line; i < lines.length; i++) if (lines[i] === '}') return i
  return line
}

/** Every @example of what the entries export, once each (a declaration two entries export counts for the first). */
export function apiExamples(repo: string, entries: { name: string; source: string }[]): ApiExample[] {
  const out: ApiExample[] = []
  const seen = new Set<string>()
  // Values first: a class one entry exports as a value and another as a type only is the value's example.
  const pass = (typeOnly: boolean) => entries.map((entry) => {
    const entryFile = path.join(repo, entry.source)
    const text = read(entryFile)
    const names = [...[...reExports(entryFile, text)].filter(([, r]) => r.typeOnly === typeOnly).map(([name]) => name), ...(typeOnly ? [] : text.split('\n').flatMap((l) => DECLARATION.exec(l)?.[1] ?? []))]
    return { entry, entryFile, names }
  })
  for (const { entry, entryFile, names } of [...pass(false), ...pass(true)]) {
    for (const name of names) {
      const found = declarationOf(entryFile, name)
      if (!found) continue
      const lines = read(found.file).split('\n')
      const isBody = /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:class|interface)\s/.test(lines[found.line]!)
      const last = isBody ? bodyEnd(lines, found.line) : found.line
      for (const block of examplesIn(read(found.file))) {
        // The declaration's own JSDoc ends right above it (or above its overloads); a member's lies in the body.
        const own = block.endLine <= found.line && !lines.slice(block.endLine, found.line).some((l) => l === '' || /^export\s/.test(l))
        const member = isBody && block.endLine > found.line && block.endLine <= last
        if (!own && !member) continue
        const key = `${found.file}:${block.endLine}`
        if (seen.has(key)) continue
        seen.add(key)
        const memberName = member ? /^\s*(?:readonly\s+|static\s+|async\s+|get\s+|\*)*([A-Za-z_$][\w$]*)/.exec(lines[block.endLine]!)?.[1] : undefined
        for (const code of block.codes) out.push({ entry: entry.name, name: memberName ? `${name}.${memberName}` : name, file: path.relative(repo, found.file), line: block.endLine, code })
      }
    }
  }
  return out
}

/** The names an example's own `import` lines bring in. */
function importedNames(imports: string[]): Set<string> {
  const names = new Set<string>()
  for (const line of imports) {
    const braces = /\{([^}]*)\}/.exec(line)?.[1]
    for (const part of braces?.split(',') ?? []) {
      const name = part.replace(/^\s*type\s+/, '').split(/\s+as\s+/).pop()?.trim()
      if (name) names.add(name)
    }
    const bare = /^import\s+(?:type\s+)?([A-Za-z_$][\w$]*)\s*(?:,|from)/.exec(line)?.[1]
    if (bare) names.add(bare)
    const star = /\*\s+as\s+([A-Za-z_$][\w$]*)/.exec(line)?.[1]
    if (star) names.add(star)
  }
  return names
}

/**
 * One example as a module of its own: every name of every entry in scope (the first entry that
 * exports a name wins, the example's own entry before the rest), the example's own imports hoisted, `prelude` (what examples take as given,
 * such as a `host`), and the example as the body of an async function (so `await` works).
 */
export function exampleModule(example: ApiExample, exportsOf: Map<string, string[]>, prelude: string): string {
  const lines = example.code.split('\n')
  const imports = lines.filter((l) => /^import\s/.test(l))
  const body = lines.filter((l) => !/^import\s/.test(l))
  const own = importedNames(imports)
  const taken = new Set<string>(own)
  const preludeImports: string[] = []
  // The example's own entry first: a name two entries export (a value here, a type there) is its.
  const order = [...exportsOf].sort(([a], [b]) => Number(b === example.entry) - Number(a === example.entry))
  for (const [entry, names] of order) {
    const fresh = names.filter((n) => !taken.has(n))
    fresh.forEach((n) => taken.add(n))
    if (fresh.length > 0) preludeImports.push(`import { ${fresh.join(', ')} } from '${entry}'`)
  }
  return [
    `// ${example.file}:${example.line} (${example.entry}: ${example.name})`,
    ...preludeImports,
    ...imports,
    prelude,
    'export async function example(): Promise<void> {',
    ...body.map((l) => `  ${l}`),
    '}',
    '',
  ].join('\n')
}

/** The names an entry exports (`export { … } from` lists and its own declarations). */
export function entryExports(repo: string, source: string): string[] {
  const file = path.join(repo, source)
  const text = read(file)
  return [...new Set([...reExports(file, text).keys(), ...text.split('\n').flatMap((l) => DECLARATION.exec(l)?.[1] ?? [])])]
}
