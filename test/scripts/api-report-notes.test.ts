// scripts/api-report-notes.mjs, the rule of the API reports for a subpath's ae-forgotten-export
// notes (issue 28, item 2): a note about a type the main entry exports (the same declaration) leaves
// the report and the type is listed at its top; a note about a type no entry exports stays.
import { createRequire } from 'node:module'
import path from 'node:path'
import { expect, test } from 'vitest'
import { leaveToMain, namesExportedByMain } from '../../scripts/api-report-notes.mjs'

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/api-report')
// The TypeScript API Extractor compiles with (the repository's own has no compiler API).
const ts = createRequire(createRequire(import.meta.url).resolve('@microsoft/api-extractor'))('typescript')

test('the main entry satisfies a name it exports for the one declaration of that name; not a name declared twice, renamed, or exported by no entry', () => {
  const files = ['main.d.ts', 'sub.d.ts'].map((file) => path.join(FIXTURE, file))
  const program = ts.createProgram(files, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, types: [] })
  const names = namesExportedByMain(ts, program, path.join(FIXTURE, 'main.d.ts'), (file) => file.startsWith(FIXTURE))
  // Twice: the main entry's is twice-a's, the subpath's twice-b's. Alias: the note would say Renamed.
  expect([...names].sort()).toEqual(['Shared', 'VERSION'])
})

const note = (name: string, indent = '') => `${indent}// Warning: (ae-forgotten-export) The symbol "${name}" needs to be exported by the entry point sub.d.ts`
const unplaced = (name: string) => `// dist/src/sub.d.ts:3:1 - (ae-forgotten-export) The symbol "${name}" needs to be exported by the entry point sub.d.ts`
const report = (...body: string[]) => ['## API Report File for "pkg"', '', '```ts', '', ...body, '', '```', ''].join('\r\n')
const shared = new Set(['Host', 'HostEvent', 'ToolResult'])

test.each([
  ['a note beside a declaration, with the // line before its footer', [note('Host'), '//', '// @public', 'export function f(host: Host): void;'], ['// @public', 'export function f(host: Host): void;'], ['Host']],
  ['notes beside a member', ['export interface I {', note('HostEvent', '    '), note('ToolResult', '    '), '    e(event: HostEvent): ToolResult;', '}'], ['export interface I {', '    e(event: HostEvent): ToolResult;', '}'], ['HostEvent', 'ToolResult']],
  ['a note about a type no entry exports stays, and so does the // line', [note('Host'), note('Planted'), '//', '// @public', 'export function f(host: Host, p: Planted): void;'], [note('Planted'), '//', '// @public', 'export function f(host: Host, p: Planted): void;'], ['Host']],
  ['other warnings stay', ['// Warning: (ae-incompatible-release-tags) The symbol "f" is marked as @public', '//', '// @public', 'export function f(): void;'], ['// Warning: (ae-incompatible-release-tags) The symbol "f" is marked as @public', '//', '// @public', 'export function f(): void;'], []],
  ['the bottom list, heading and blank line included, when every note goes', ['export function f(): void;', '', '// Warnings were encountered during analysis:', '//', unplaced('Host'), '', '// (No @packageDocumentation comment for this package)'], ['export function f(): void;', '', '// (No @packageDocumentation comment for this package)'], ['Host']],
  ['the bottom list keeps its heading for a note that stays', ['export function f(): void;', '', '// Warnings were encountered during analysis:', '//', unplaced('Host'), unplaced('Planted')], ['export function f(): void;', '', '// Warnings were encountered during analysis:', '//', unplaced('Planted')], ['Host']],
])('%s', (_, body, expected, names) => {
  const result = leaveToMain(report(...body), shared, 'pkg')
  const list = names.length === 0 ? [] : [`// Types from "pkg" used here: ${names.join(', ')}`, '']
  expect(result).toEqual({ report: report(...list, ...expected), shared: names })
})

test('the list of types from the main entry is sorted and wraps at 100 characters', () => {
  const many = Array.from({ length: 12 }, (_, i) => `Type${String.fromCharCode(76 - i)}Name`)
  const { report: out } = leaveToMain(report(...many.map((name) => note(name)), 'export function f(): void;'), new Set(many), 'pkg')
  const list = out.split('\r\n').filter((line) => line.startsWith('// Types') || line.startsWith('//     '))
  expect(list.every((line) => line.length <= 100)).toBe(true)
  expect(list.length).toBe(2)
  const listed = list.map((line) => line.replace(/^\/\/ Types from "pkg" used here: |^\/\/\s+/, '')).join(' ').split(/,\s*/)
  expect(listed).toEqual([...many].sort())
})
