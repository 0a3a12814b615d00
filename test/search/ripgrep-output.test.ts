// ripgrep's output read as it streams: records split across chunks, CR LF, stats, a stop.
import { describe, expect, test } from 'vitest'
import { ContentOutput, FilesOutput, type LineRecord } from '../../src/search/ripgrep-output.js'
import { rebaseGitignore } from '../../src/search/gitignore-files.js'

const OUTPUT = Buffer.from('src/a:b.ts\u00002:x = 1\r\nsrc/a:b.ts\u000010:y\u0000z:\nweird\nname.ts\u00003:é\n\n2 matches\n3 files searched\n')

describe('ContentOutput', () => {
  test.each([1, 2, 3, 7, OUTPUT.length])('records and the files searched, fed %i bytes at a time', (size) => {
    const parser = new ContentOutput()
    const records: LineRecord[] = []
    for (let i = 0; i < OUTPUT.length; i += size) parser.push(OUTPUT.subarray(i, i + size), (r) => (records.push(r), true))
    expect(records).toEqual([
      { path: 'src/a:b.ts', line: 2, text: 'x = 1' },
      { path: 'src/a:b.ts', line: 10, text: 'y\u0000z:' },
      { path: 'weird\nname.ts', line: 3, text: 'é' },
    ])
    expect(parser.filesSearched()).toBe(3)
  })

  test('stops when told, and reads the stats when nothing matched', () => {
    const parser = new ContentOutput()
    let seen = 0
    expect(parser.push(OUTPUT, () => (++seen, false))).toBe(false)
    expect(seen).toBe(1)
    const empty = new ContentOutput()
    empty.push(Buffer.from('\n0 matches\n0 matched lines\n0 files contained matches\n12 files searched\n'), () => true)
    expect(empty.filesSearched()).toBe(12)
  })
})

describe('FilesOutput', () => {
  test('paths split on NUL across chunks', () => {
    const parser = new FilesOutput()
    const paths: string[] = []
    for (const part of ['a.ts\u0000b', '/c d.md\u0000', 'e\n.txt\u0000']) parser.push(Buffer.from(part), (p) => (paths.push(p), true))
    expect(paths).toEqual(['a.ts', 'b/c d.md', 'e\n.txt'])
  })
})

describe('rebaseGitignore', () => {
  test('rules of a folder above the start become rules of the root', () => {
    expect(rebaseGitignore('# c\n*.log\r\n/dist\nbuild/\n!keep.log\na/b\n**/x\n', 'pkg/one')).toBe(
      '/pkg/one/**/*.log\n/pkg/one/dist\n/pkg/one/**/build/\n!/pkg/one/**/keep.log\n/pkg/one/a/b\n/pkg/one/**/x',
    )
    expect(rebaseGitignore('/dist\n', '')).toBe('/dist\n')
  })
})
