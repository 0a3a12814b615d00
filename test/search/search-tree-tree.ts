// Test helper (not a test): a generated workspace for the differential tests of both search engines:
// seeded random text in nested folders, and every case a rule is about (.gitignore in and above the
// start, the deny list, binary, oversized, links pointing out and in, temp files, node_modules, .git,
// CRLF, long lines, names whose order is easy to get wrong).
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const WORDS = ['alpha', 'beta', 'TODO', 'todo', 'FIXME', 'load', 'function', 'export', 'const', 'Ünïcödé', 'ünïcödé', 'naïve', 'foo_bar', 'a.b', 'x{,3}', 'k', 'K', '{', '}', '(', 'a+b', 'ÄÖÜ', 'tab\there', '日本語']

/** The workspace's deny list: the default, one plain pattern and two that only the wall can apply. */
export const DENY = ['.env', '.env.*', '!.env.example', '.git/**', '.toolhost/**', 'secrets/**', '*.pem', 'private?.txt']

// A small deterministic generator (mulberry32), so a failure names the same tree every run.
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Writes the tree into `root` (its sibling `outside/` holds what links point to). */
export function buildSearchTree(root: string, outside: string): void {
  const put = (relative: string, content: string | Buffer): void => {
    const full = path.join(root, relative)
    mkdirSync(path.dirname(full), { recursive: true })
    writeFileSync(full, content)
  }
  const next = random(29)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!
  const folders = ['src', 'src/sub', 'src/sub/deep', 'src/gen', 'docs', 'docs/deep', 'lib', 'pkg/a', 'pkg/b', 'build']
  const names = ['a.ts', 'a_b.ts', 'a-b.ts', 'A.ts', 'b.md', 'notes.txt', 'ä.ts', '.hidden.ts', 'z.js', 'skip.ts', 'local.ts', 'x.log', 'keep.log']
  for (const folder of folders) {
    for (const name of names) {
      const lines = Array.from({ length: 1 + Math.floor(next() * 12) }, () => Array.from({ length: 1 + Math.floor(next() * 6) }, () => pick(WORDS)).join(' '))
      put(`${folder}/${name}`, `${lines.join('\n')}\n`)
    }
  }
  put('.gitignore', 'build/\n*.log\n!keep.log\n/rootonly.txt\n')
  put('rootonly.txt', 'TODO ignored at the root only\n')
  put('docs/rootonly.txt', 'TODO not ignored below the root\n')
  put('src/.gitignore', 'gen/\n/local.ts\n/sub/skip.ts\n')
  put('pkg/a/.gitignore', '*.md\n')
  put('.env', 'TODO=secret-env\n')
  put('.env.local', 'TODO=secret-local\n')
  put('.env.example', 'TODO=example\n')
  put('secrets/key.txt', 'TODO secret key\n')
  put('docs/secrets/key.txt', 'TODO a nested folder of that name is not denied (the pattern has a slash)\n')
  put('src/cert.pem', 'TODO secret pem\n')
  put('private1.txt', 'TODO secret private\n')
  put('node_modules/dep/index.js', 'TODO in a dependency\n')
  put('src/node_modules/dep/index.js', 'TODO in a nested dependency\n')
  put('.git/config', 'TODO in git\n')
  put('.toolhost-0123456789ab.tmp', 'TODO in a temp file\n')
  put('src/.toolhost-ba9876543210.tmp', 'TODO in a temp file\n')
  put('bin/blob.bin', Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from('TODO in a binary\n')]))
  put('big/huge.txt', `TODO oversized\n${'y'.repeat(5 * 1024 * 1024)}\n`)
  put('crlf.ts', 'export const x = 1\r\nexport function load() {}\r\nTODO: crlf\r\n')
  put('long.txt', `TODO ${'é'.repeat(2000)}\nTODO ${'w'.repeat(350)}\nshort TODO\n`)
  put('bom.txt', '\ufeffTODO after a BOM\n')
  mkdirSync(outside, { recursive: true })
  writeFileSync(path.join(outside, 'secret.txt'), 'TODO outside secret\n')
  symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'src/out-link.ts'))
  symlinkSync(outside, path.join(root, 'linkdir'))
  symlinkSync(path.join(root, 'src/a.ts'), path.join(root, 'docs/in-link.ts'))
}
