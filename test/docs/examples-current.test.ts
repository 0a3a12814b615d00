// What the docs and examples tell a reader to use is current and reachable (issue 24.19): every model
// name is one the installed SDK lists (a Claude model not among those its SDK warns have reached or
// near end of life), and docs/embedding.md names no repository file the package does not ship.
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { describe, expect, test } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')
const require = createRequire(import.meta.url)
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8')
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`), ...readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.ts')).map((f) => `examples/${f}`)]

/** The string literals of a type alias in a .d.ts (`export type Model = 'a' | 'b' | (string & {})`). */
function unionOf(dts: string, name: string): Set<string> {
  const line = new RegExp(`export type ${name} = ([^;]+);`).exec(dts)?.[1] ?? ''
  return new Set([...line.matchAll(/'([^']+)'/g)].map((m) => m[1]!))
}

const anthropicDir = path.dirname(require.resolve('@anthropic-ai/sdk'))
const CLAUDE_MODELS = unionOf(readFileSync(path.join(anthropicDir, 'resources/messages/messages.d.ts'), 'utf8'), 'Model')
const CLAUDE_DEPRECATED = new Set([...readFileSync(path.join(anthropicDir, 'internal/data/deprecated-models.js'), 'utf8').matchAll(/'(claude-[^']+)':/g)].map((m) => m[1]!))
const GPT_MODELS = unionOf(readFileSync(path.join(path.dirname(require.resolve('openai')), 'resources/shared.d.ts'), 'utf8'), 'ChatModel')

const named = (pattern: RegExp): Array<{ page: string; model: string }> => PAGES.flatMap((page) => [...read(page).matchAll(pattern)].map((m) => ({ page, model: m[1]! })))

describe('model names in the docs and examples', () => {
  test('the SDKs\' lists were read (the check below can fail)', () => {
    expect(CLAUDE_MODELS.size).toBeGreaterThan(5)
    expect(CLAUDE_DEPRECATED.has('claude-sonnet-4-5')).toBe(true)
    expect(GPT_MODELS.size).toBeGreaterThan(5)
  })

  test('every Claude model named is in @anthropic-ai/sdk\'s Model union and not on its end-of-life list', () => {
    const claude = named(/['"`](claude-[a-z0-9-]+)['"`]/g)
    expect(claude.length).toBeGreaterThan(0)
    expect(claude.filter((c) => !CLAUDE_MODELS.has(c.model) || CLAUDE_DEPRECATED.has(c.model))).toEqual([])
  })

  test('every OpenAI model named is in the openai SDK\'s ChatModel union', () => {
    const gpt = named(/['"`](gpt-[a-z0-9.-]+)['"`]/g)
    expect(gpt.length).toBeGreaterThan(0)
    expect(gpt.filter((g) => !GPT_MODELS.has(g.model))).toEqual([])
  })
})

describe('docs/embedding.md sends readers only to files the package ships', () => {
  test('every repository path it names is under package.json files', () => {
    const files = (JSON.parse(read('package.json')) as { files: string[] }).files
    const shipped = (p: string): boolean => files.some((entry) => (entry.endsWith('/') ? p.startsWith(entry) : p === entry))
    const paths = [...read('docs/embedding.md').matchAll(/`\.?\/?((?:src|test|scripts|examples|bin|plugins|api|dist)\/[^`\s]*)`/g)].map((m) => m[1]!)
    expect(paths.filter((p) => !shipped(p))).toEqual([])
  })
})
