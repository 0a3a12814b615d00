// Test helper (not a test): fast-check arbitraries for what a hostile model (or MCP client) sends —
// arguments nested deep, huge, with keys like __proto__, unicode, lone surrogates and NUL, numbers at
// the edges, wrong shapes; paths and patterns aimed at the workspace wall and the regex engines; and
// the checks every answer must pass.
import fc from 'fast-check'
import { ERROR_CODES } from '../../src/contract/errors.js'
import type { ToolCall, ToolResult } from '../../src/contract/types.js'

/** The seed of this run: set TOOLHOST_HOSTILE_SEED to replay one (fast-check prints it on failure). */
export const SEED = process.env.TOOLHOST_HOSTILE_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.TOOLHOST_HOSTILE_SEED)

/** Tools the suite calls by name (the terminal and process tools are denied by a rule in its config). */
export const TOOLS = ['echo', 'anything', 'touch', 'read_file', 'write_file', 'patch', 'search_files', 'current_time', 'terminal', 'process', 'clarify', 'notify_webhook'] as const

const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'then', 'path', 'command', 'content', 'text', '', '\u0000', 'a\u0000b', '\ud800', '\udc00x', '../..', 'ключ', '🔑'),
  fc.string({ unit: 'binary', maxLength: 10 }),
)

const edgeNumber = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 53 + 2, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, Number.EPSILON, 1e21, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
  fc.double(),
  fc.integer(),
)

/** Paths aimed at the wall: out of the root, at denied places, odd characters. */
export const hostilePath = fc.oneof(
  fc.constantFrom('../outside.txt', '../root-sibling/secret.txt', '/etc/passwd', '~/.ssh/id_rsa', 'a\u0000b', '.env', '.git/config', '.toolhost/audit.jsonl', '..', '/', '.', 'C:\\Windows\\x', '\\\\server\\share', '%2e%2e/x', 'a/../../b', 'ok/file.txt', 'notes.md', 'x'.repeat(5000), '\ud800.txt', 'dir/\u202e.txt'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
)

/** Patterns and globs aimed at backtracking engines, and plain ones. */
const hostilePattern = fc.oneof(
  fc.constantFrom('(.*.*)*q', '(a+)+$', '(a|aa)+b', '^(a|a?)+$', '(?<=a)b', '(a)\\1', '[', '(', 'a{2000}', '[a-z]{900}x', 'TODO|FIXME', 'x', '\\Aline', '(?-m)^a'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
)
const hostileGlob = fc.oneof(fc.constantFrom('*a*a*a*a*a*a*a*a*b', '**/**/**/*', '{a,{b,{c,d}}}', '[', '[!', '\\', '*.ts'), fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 }))

const hostileString = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.constantFrom('$(rm -rf /)', '`id`', '\u0000', '\r\n', '\ud83d', 'TOP-SECRET', '{"nested":"json"}', '</script>') },
  // Huge: past the suite's max_argument_chars (300,000) or close to it.
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }).map((n) => 'H'.repeat(n * 140_000)) },
)

const leaf = fc.oneof(hostileString, edgeNumber, fc.boolean(), fc.constant(null))

// Objects are built with Object.fromEntries, so a "__proto__" key is an own key, as JSON.parse makes it.
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('node'), { maxLength: 4 }),
    fc.array(fc.tuple(hostileKey, tie('node')), { maxLength: 4 }).map((entries) => Object.fromEntries(entries)),
  ),
})).node

/** A value nested `depth` levels, as objects or arrays (past max_argument_depth, or far past). */
export function nest(depth: number, kind: 'object' | 'array', leafValue: unknown = 1): unknown {
  let out: unknown = leafValue
  for (let i = 0; i < depth; i++) out = kind === 'object' ? { a: out } : [out]
  return out
}
// Deeper than the limit (64) and than a recursive walk survives (~2,500), kept below what the test's
// own JSON.stringify can write (the suite also sends 10,000-deep JSON text, built as text).
const deep = fc.tuple(fc.integer({ min: 30, max: 1800 }), fc.constantFrom('object' as const, 'array' as const)).map(([depth, kind]) => nest(depth, kind))

const freeArgs = fc.array(fc.tuple(hostileKey, fc.oneof({ weight: 5, arbitrary: value }, { weight: 1, arbitrary: deep })), { maxLength: 5 }).map((entries) => Object.fromEntries(entries) as Record<string, unknown>)

/** Arguments shaped for a tool, with hostile values where it matters. */
const toolArgs: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  echo: fc.record({ text: hostileString }),
  read_file: fc.record({ path: hostilePath, offset: edgeNumber, limit: edgeNumber }, { requiredKeys: ['path'] }),
  write_file: fc.record({ path: hostilePath, content: hostileString }),
  patch: fc.oneof(fc.record({ path: hostilePath, old_string: hostileString, new_string: hostileString }), fc.record({ diff: hostileString.map((t) => `--- a/${t}\n+++ b/${t}\n@@ -1 +1 @@\n-x\n+y\n`) })),
  search_files: fc.record({ pattern: hostilePattern, path: hostilePath, glob: hostileGlob, target: fc.constantFrom('content', 'files') }, { requiredKeys: ['pattern'] }),
  terminal: fc.record({ command: fc.constantFrom('rm -rf /', 'cat ../root-sibling/secret.txt', 'echo pwned > ../outside.txt') }),
}

/** What a call's `arguments` may be: an object, JSON text of one, or text that is not one. */
const argumentsFor = (name: string): fc.Arbitrary<ToolCall['arguments']> => {
  const shaped = Object.hasOwn(toolArgs, name) ? toolArgs[name]! : freeArgs
  const object = fc.oneof({ weight: 3, arbitrary: shaped }, { weight: 2, arbitrary: freeArgs })
  return fc.oneof(
    { weight: 4, arbitrary: object },
    { weight: 4, arbitrary: object.map((o) => jsonText(o)) },
    { weight: 1, arbitrary: fc.constantFrom('', '   ', 'null', '[]', '"text"', '{', '{"a":', '1e999', '{"a":1}{"b":2}', '{"__proto__":{"polluted":true}}', `{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  )
}

const toolName = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom(...TOOLS) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', '', 'echo\u0000', 'ЕСНО', 'ecko', 'x'.repeat(100_000)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
)

/** A batch of 1–6 hostile calls (ids may repeat: results are counted by position). */
export const hostileBatch: fc.Arbitrary<ToolCall[]> = fc.array(
  toolName.chain((name) => fc.record({ name: fc.constant(name), arguments: argumentsFor(name) })),
  { minLength: 1, maxLength: 6 },
).chain((calls) => fc.array(fc.constantFrom('c1', 'c2'), { minLength: calls.length, maxLength: calls.length }).map((dup) => calls.map((c, i) => ({ id: i % 3 === 2 ? dup[i]! : `h${i}`, ...c }))))

/**
 * Calls every run starts with (fast-check `examples`), whatever the seed: the breaks of issue 12 —
 * 3,000 and 100,000 levels deep, "__proto__" keys, a 5-million-character name, a backtracking search,
 * arguments over the size limit as an object, a path out of the root.
 */
export const EXTREME_BATCH: ToolCall[] = [
  { id: 'deep-object', name: 'anything', arguments: nest(3000, 'object') as Record<string, unknown> },
  { id: 'deep-text', name: 'anything', arguments: `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}` },
  { id: 'proto', name: 'anything', arguments: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}' },
  { id: 'long-name', name: 'n'.repeat(5_000_000), arguments: {} },
  { id: 'freeze', name: 'search_files', arguments: { pattern: '(.*.*)*q' } },
  { id: 'big-object', name: 'echo', arguments: { text: 'B'.repeat(400_000) } },
  { id: 'escape', name: 'write_file', arguments: { path: '../root-sibling/secret.txt', content: 'pwned' } },
  { id: 'read-secret', name: 'read_file', arguments: { path: '../root-sibling/secret.txt' } },
]

/** JSON text of a value (NaN and Infinity become null, as a model's serialiser would write them). */
export function jsonText(value: unknown): string {
  return JSON.stringify(value) ?? 'null'
}

/** The arguments as an object for a transport that only carries objects (MCP, Anthropic input). */
export function asObject(args: ToolCall['arguments']): Record<string, unknown> {
  if (typeof args === 'object' && args !== null) return args
  try {
    const parsed: unknown = JSON.parse(String(args))
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { raw: args }
  } catch {
    return { raw: args }
  }
}

/**
 * The arguments as an MCP client can send them: its JSON.stringify cannot write 100,000 levels (the
 * server never sees such a message), so those are sent 3,000 deep, still far past the limit.
 */
export function asMcpArguments(args: ToolCall['arguments']): Record<string, unknown> {
  const object = asObject(args)
  try {
    JSON.stringify(object)
    return object
  } catch {
    return nest(3000, 'object') as Record<string, unknown>
  }
}

/** Problems with a batch's answers: one per call, in order, each ok or carrying a catalogue code. */
export function answerProblems(calls: readonly ToolCall[], results: readonly ToolResult[]): string[] {
  const problems: string[] = []
  if (results.length !== calls.length) problems.push(`${results.length} results for ${calls.length} calls`)
  results.forEach((r, i) => {
    if (r.id !== calls[i]?.id) problems.push(`result ${i} has id ${JSON.stringify(r.id)}, call has ${JSON.stringify(calls[i]?.id)}`)
    if (!r.ok && !(r.error && Object.hasOwn(ERROR_CODES, r.error.code))) problems.push(`result ${i} failed without a catalogue code: ${JSON.stringify(r.error)}`)
    if (typeof r.content !== 'string') problems.push(`result ${i} has no text content`)
  })
  return problems
}

/** True for an MCP tool result's text that carries a catalogue code (a failed call), e.g. "E_DENIED: …". */
export function hasCatalogueCode(text: string): boolean {
  const code = /^(E_[A-Z_]+): /.exec(text)?.[1]
  return code !== undefined && Object.hasOwn(ERROR_CODES, code)
}
