/**
 * `toolhost serve` typed by a person at a terminal: stdio is the MCP channel, so without a word on
 * stderr the screen stays empty. A pseudo-terminal comes from util-linux's `script`.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test, vi } from 'vitest'
import { stdioWaitingNote } from '../../src/cli/serve.js'
import { TOOLHOST_CLI } from '../toolhost-cli.js'

vi.setConfig({ testTimeout: 120_000 })

const SCRIPT = '/usr/bin/script'
const dir = mkdtempSync(path.join(os.tmpdir(), 'toolhost-serve-tty-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`
}

describe('toolhost serve on a terminal', () => {
  test.skipIf(!existsSync(SCRIPT))('says on stderr that it waits for an MCP client (reason: needs util-linux script; sudo apt-get install -y bsdutils enables it)', async () => {
    // The pseudo-terminal is stdin; `timeout` ends serve should the test not stop it first.
    const line = ['timeout', '90', process.execPath, TOOLHOST_CLI, 'serve', '--root', dir].map(quote).join(' ')
    const child = spawn(SCRIPT, ['-qec', line, '/dev/null'], { cwd: dir, env: { ...process.env, TOOLHOST_LOG: 'error' }, stdio: ['pipe', 'pipe', 'ignore'] })
    let output = ''
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString('utf8')
          if (output.includes('Ctrl-C stops it')) resolve()
        })
        child.once('exit', () => reject(new Error(`serve ended before it said anything: ${JSON.stringify(output)}`)))
      })
    } finally {
      // script hangs up its terminal on SIGTERM, which ends serve; wait until it has.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
    }
    expect(output.replace(/\r?\n/g, ' ')).toContain(stdioWaitingNote().slice(0, 60))
  })
})
