// The rule scripts/api-report.mjs applies to a subpath's ae-forgotten-export notes. API Extractor
// reads one entry at a time and cannot share a symbol between entries (rushstack #1596, #3557), so it
// notes every type a subpath's signatures use that the subpath does not export, `Host` included. A
// type the main entry exports is no forgotten export: users import it from `toolhost`. Such a note is
// satisfied: it leaves the report, and the report names the type once at its top. A note about a type
// no entry exports stays (and test/package/api-report.test.ts fails on it).

/** The names a module-level declaration of `file` gives (imports and re-exports declare none). */
function declaredNames(ts, file) {
  const names = []
  for (const statement of file.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) names.push(declaration.name.text)
      }
    } else if (
      (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isClassDeclaration(statement) ||
        ts.isEnumDeclaration(statement) || ts.isFunctionDeclaration(statement) || ts.isModuleDeclaration(statement)) &&
      statement.name !== undefined && ts.isIdentifier(statement.name)
    ) {
      names.push(statement.name.text)
    }
  }
  return names
}

/**
 * The names a subpath's note may leave to the main entry: each name the main entry exports for a
 * declaration of that same name, when no other file of the build (`isOwn(fileName)`) declares that
 * name at module level. A note names only the symbol: with one declaration of the name in the
 * build, the symbol the subpath uses is the one the main entry exports; with two, it could be the
 * other, and the note stays.
 *
 * @example
 * const shared = namesExportedByMain(ts, compilerState.program, 'dist/src/index.d.ts', (file) => file.startsWith(dist))
 */
export function namesExportedByMain(ts, program, mainFile, isOwn) {
  const declaringFiles = new Map()
  for (const file of program.getSourceFiles()) {
    if (!isOwn(file.fileName)) continue
    for (const name of declaredNames(ts, file)) declaringFiles.set(name, (declaringFiles.get(name) ?? new Set()).add(file.fileName))
  }
  const checker = program.getTypeChecker()
  const main = program.getSourceFile(mainFile)
  if (main === undefined) throw new Error(`${mainFile} is not in the program`)
  const names = new Set()
  for (const exported of checker.getExportsOfModule(checker.getSymbolAtLocation(main))) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
    const files = new Set((symbol.declarations ?? []).map((declaration) => declaration.getSourceFile().fileName))
    const declaring = declaringFiles.get(exported.name)
    if (symbol.name === exported.name && files.size === 1 && declaring?.size === 1 && declaring.has([...files][0])) names.add(exported.name)
  }
  return names
}

// A note beside a declaration (`// Warning: (ae-forgotten-export) …`), or in the list at the
// bottom of notes API Extractor could not place (`// dist/src/a.d.ts:3:1 - (ae-forgotten-export) …`).
const NOTE = /^\s*\/\/ (?:Warning: |\S+ - )\(ae-forgotten-export\) The symbol "([^"]+)" needs to be exported by the entry point \S+\r?$/
const WARNING = /^\s*\/\/ Warning: /
const SEPARATOR = /^\s*\/\/\r?$/
const UNPLACED = /^\/\/ Warnings were encountered during analysis:\r?$/
const UNPLACED_NOTE = /^\/\/ \S/

/**
 * A subpath's report without the notes `shared` satisfies, and with the names they gave listed once
 * below the opening of its code block (sorted; none, no list). Where every warning above a
 * declaration goes, so does the `//` line API Extractor writes between the warnings and the rest;
 * where every note at the bottom goes, so does their heading.
 * Line ends are kept (API Extractor writes CRLF; the list takes the opening line's).
 *
 * @example
 * leaveToMain(report, new Set(['Host']), 'toolhost') // { report: '…// Types from "toolhost" used here: Host…', shared: ['Host'] }
 */
export function leaveToMain(report, shared, mainName) {
  const lines = report.split('\n')
  const kept = []
  const left = new Set()
  const stays = (line) => {
    const name = NOTE.exec(line)?.[1]
    if (name === undefined || !shared.has(name)) return true
    left.add(name)
    return false
  }
  for (let i = 0; i < lines.length; ) {
    if (UNPLACED.test(lines[i]) && SEPARATOR.test(lines[i + 1] ?? '')) {
      const heading = lines.slice(i, i + 2)
      i += 2
      const run = []
      while (i < lines.length && UNPLACED_NOTE.test(lines[i])) run.push(lines[i++])
      const staying = run.filter(stays)
      if (staying.length > 0) kept.push(...heading, ...staying)
      // The blank line API Extractor skips before the heading goes with it.
      else if (kept.length > 0 && kept[kept.length - 1].trim() === '') kept.pop()
      continue
    }
    if (!WARNING.test(lines[i])) {
      kept.push(lines[i++])
      continue
    }
    const run = []
    while (i < lines.length && WARNING.test(lines[i])) run.push(lines[i++])
    const staying = run.filter(stays)
    kept.push(...staying)
    if (staying.length === 0 && i < lines.length && SEPARATOR.test(lines[i])) i++
  }
  const names = [...left].sort()
  if (names.length === 0) return { report: kept.join('\n'), shared: names }
  const fence = kept.findIndex((line) => line.replace(/\r$/, '') === '```ts')
  if (fence === -1) throw new Error('the report has no ```ts block to list the types from the main entry in')
  const end = kept[fence].endsWith('\r') ? '\r' : ''
  kept.splice(fence + 1, 0, end, ...listLines(`// Types from "${mainName}" used here: `, names).map((line) => line + end))
  return { report: kept.join('\n'), shared: names }
}

/** `names` after `head`, comma-separated, in comment lines of at most 100 characters. */
function listLines(head, names) {
  const lines = []
  let line = head
  for (const [index, name] of names.entries()) {
    const piece = `${name}${index < names.length - 1 ? ',' : ''}`
    if (line.length + piece.length > 100 && line.trim() !== '//' && line !== head) {
      lines.push(line.trimEnd())
      line = '//     '
    }
    line += `${piece} `
  }
  lines.push(line.trimEnd())
  return lines
}
