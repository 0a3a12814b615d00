// The lint's type-aware rule: toolhost's own code (src/, plugins/) uses nothing toolhost itself marks
// @deprecated, such as ToolContext's flat names (`ctx.signal`, `ctx.root`, …; read `ctx.call.signal`,
// `ctx.workspace.root`, …). Built-in plugins are what plugin authors copy. There is no eslint here
// (so no @typescript-eslint/no-deprecated): the TypeScript compiler's own deprecation suggestions
// (codes 6385, 6387: `ctx.root`, `ctx['root']`, `ctx.progress(…)`) are read through its API
// (typescript/unstable/sync, the native compiler's; the project pins typescript exactly), plus the
// destructured names those miss (`const { signal } = ctx`, `({ root }: ToolContext) =>`). Only a
// symbol declared in this tree's src/ counts: a dependency's deprecations are its own business.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { API, SymbolFlags } from 'typescript/unstable/sync'
import { isIdentifier, isObjectBindingPattern } from 'typescript/unstable/ast/is'

const OWN_CODE = ['src/', 'plugins/']

/**
 * Every use in src/ and plugins/ of a symbol declared @deprecated in src/, as
 * `file:line:col: message` lines, for the project of `tsconfig` (its folder is the tree's root).
 *
 * @example
 * for (const problem of deprecatedUses('tsconfig.json')) console.error(problem)
 */
export function deprecatedUses(tsconfig) {
  const root = path.dirname(path.resolve(tsconfig))
  const relative = (file) => path.relative(root, file).split(path.sep).join('/')
  const inNodeModules = (file) => relative(file).split('/').includes('node_modules')
  const declaredInSrc = (symbol) => symbol.declarations.some((d) => relative(d.path).startsWith('src/') && !inNodeModules(d.path))
  const api = new API({ cwd: root })
  try {
    const project = api.updateSnapshot({ openProjects: [path.resolve(tsconfig)] }).getProjects()[0]
    if (project === undefined) return [`${tsconfig}: no TypeScript project`]
    const { program, checker } = project
    const advice = (symbol) => symbol.getJsDocTags(checker).find((tag) => tag.name === 'deprecated')
    // A Set: the compiler reports a renamed binding (`{ callId: id }`) that the pattern walk finds too.
    const problems = new Set()
    for (const file of program.getSourceFileNames()) {
      if (!OWN_CODE.some((folder) => relative(file).startsWith(folder)) || inNodeModules(file)) continue
      const text = readFileSync(file, 'utf8')
      const report = (pos, symbol, tag) => {
        const start = pos + (/^\s*/.exec(text.slice(pos))?.[0].length ?? 0)
        const lines = text.slice(0, start).split('\n')
        problems.add(`${relative(file)}:${lines.length}:${lines.at(-1).length + 1}: '${symbol.name}' is deprecated${tag?.text ? `: ${tag.text.trim()}` : ''} (toolhost's own code uses the current names)`)
      }
      for (const d of program.getSuggestionDiagnostics(file)) {
        if (!d.reportsDeprecated) continue
        const found = checker.getSymbolAtPosition(file, d.pos)
        // An imported name is an alias the import declares: what counts is where it leads.
        const symbol = found !== undefined && (found.flags & SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(found) : found
        if (symbol !== undefined && declaredInSrc(symbol)) report(d.pos, symbol, advice(symbol))
      }
      const visit = (node) => {
        if (isObjectBindingPattern(node)) {
          const type = checker.getTypeAtLocation(node)
          const properties = type === undefined ? [] : checker.getPropertiesOfType(type)
          for (const element of node.elements) {
            const key = element.propertyName ?? element.name
            if (!isIdentifier(key)) continue
            const property = properties.find((p) => p.name === key.text)
            const tag = property !== undefined && declaredInSrc(property) ? advice(property) : undefined
            if (tag !== undefined) report(key.pos, property, tag)
          }
        }
        node.forEachChild(visit)
      }
      visit(program.getSourceFile(file))
    }
    return [...problems]
  } finally {
    api.close()
  }
}
