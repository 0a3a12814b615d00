import { createRequire } from 'node:module'
import type sh from 'mvdan-sh'

/**
 * The shell parser: mvdan/sh's parser (the one behind `shfmt`) compiled to JavaScript (`mvdan-sh`).
 * Synchronous, because a tool's `destructive(args)` is; loaded on the first command judged, so a host
 * that never sees a `terminal` call never pays for it.
 */

export type ShellNode = sh.Node
export type ShellFile = sh.File
export type ShellStmt = sh.Stmt
export type ShellWord = sh.Word
export type ShellCallExpr = sh.CallExpr
export type ShellRedirect = sh.Redirect

let syntax: sh.ShellScript['syntax'] | undefined
let parser: sh.Parser | undefined

function load(): sh.ShellScript['syntax'] {
  syntax ??= (createRequire(import.meta.url)('mvdan-sh') as sh.ShellScript).syntax
  return syntax
}

/**
 * Parses `source` as bash (a superset of the POSIX `sh` commands run under). Throws an Error with
 * the parser's message (`1:6: reached EOF without closing quote "`) when it does not parse.
 *
 * @example
 * parseShell('rm -rf build').Stmts.length // 1
 */
export function parseShell(source: string): ShellFile {
  const s = load()
  parser ??= s.NewParser()
  try {
    return parser.Parse(source, '')
  } catch (error) {
    // GopherJS throws Go error values: their text is in Error(), not `message`.
    const e = error as { Error?: () => string; message?: string }
    throw new Error(typeof e.Error === 'function' ? e.Error() : String(e.message ?? error))
  }
}

/** The node's type name (`CallExpr`, `Lit`, `SglQuoted`, …). */
export function nodeType(node: ShellNode): string {
  return load().NodeType(node)
}

/** Visits `node` and everything below it, depth first. */
export function walkShell(node: ShellNode, visit: (node: ShellNode) => void): void {
  load().Walk(node, (n) => {
    if (n) visit(n)
    return true
  })
}

/** Byte offsets of a node in its source (mvdan/sh counts UTF-8 bytes). */
export function offsets(node: ShellNode): [number, number] {
  return [node.Pos().Offset(), node.End().Offset()]
}
