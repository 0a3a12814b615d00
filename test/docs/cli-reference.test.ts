// docs/cli.md stays what `toolhost --help` says: the usage text verbatim (every command, every global
// option, the exit codes), and a section for every command.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { COMMANDS, USAGE } from '../../src/cli/args.js'

const CLI_DOC = readFileSync(path.resolve(import.meta.dirname, '../../docs/cli.md'), 'utf8')

describe('docs/cli.md agrees with toolhost --help', () => {
  test('it quotes the usage text as toolhost --help prints it', () => {
    expect(CLI_DOC).toContain('```\n' + USAGE + '\n```')
  })

  test.each(Object.keys(COMMANDS))('it has a section for toolhost %s', (command) => {
    expect(CLI_DOC).toMatch(new RegExp(`^### \`toolhost ${command}( [^\`]*)?\`$`, 'm'))
  })
})
