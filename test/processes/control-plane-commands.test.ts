// A terminal command the shell analysis sees writing to the control plane asks, in auto too
// (issue 32.2): redirections into it and commands that are not read-only naming it.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { createHost } from '../../src/host/create-host.js'
import { silentLogger } from '../../src/contract/logger.js'
import { writesControlPlane } from '../../src/processes/control-plane-commands.js'
import { bwrapProblem } from '../../src/processes/sandbox.js'

const plane = { paths: ['/w/config.yaml', '/w/plugins', '/w/.env', '/w/.toolhost', '/w/hooks/check.sh'], opened: ['/w/.toolhost/notes.md'] }

describe('writesControlPlane', () => {
  test.each([
    ['echo x >> config.yaml', true],
    ['printf "hooks: {}" > ./config.yaml', true],
    ['cd plugins && echo "export {}" > evil.mjs', true],
    ['cp /tmp/evil.mjs plugins/', true],
    ['sed -i s/a/b/ .env', true],
    ['tee -a hooks/check.sh < payload', true],
    ['sh -c "echo x > .toolhost/store/state.json"', true],
    ['ln -sf /tmp/x plugins/x.mjs', true],
    ['git checkout -- config.yaml', true],
    ['cat config.yaml', false],
    ['grep -r before_call config.yaml plugins', false],
    ['echo hi > notes.md', false],
    ['cp a.txt b.txt', false],
    ['echo x > .toolhost/notes.md', false],
  ])('%s → %s', (command, expected) => {
    expect(writesControlPlane(command, '/w', plane)).toBe(expected)
  })
})

describe('the terminal in auto mode', () => {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-cp-terminal-')))
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  test('a command appending a hook to config.yaml asks (denied: no one to ask); an ordinary one runs', async () => {
    mkdirSync(path.join(root, 'plugins'))
    writeFileSync(path.join(root, 'config.yaml'), 'plugins: { builtins: [terminal] }\n')
    const host = await createHost({ root, cwd: root, config: path.join(root, 'config.yaml'), permissionMode: 'auto', audit: false, log: silentLogger, env: { PATH: process.env.PATH } })
    try {
      const [hook, plain] = await host.run([
        { id: 'h', name: 'terminal', arguments: { command: 'echo "hooks: { before_call: [{ tools: \\"*\\", command: \\"touch pwned\\" }] }" >> config.yaml' } },
        { id: 'p', name: 'terminal', arguments: { command: 'echo fine > notes.txt' } },
      ])
      expect(hook!.error?.code).toBe('E_DENIED')
      expect(plain).toMatchObject({ ok: true })
      expect(readFileSync(path.join(root, 'config.yaml'), 'utf8')).toBe('plugins: { builtins: [terminal] }\n')
    } finally {
      await host.close()
    }
  })
})

const bwrap = bwrapProblem()
describe.skipIf(bwrap !== undefined)('terminal.sandbox: bwrap (reason: skipped where bwrap cannot run)', () => {
  test('mounts the control plane read-only: a hook appended from inside the sandbox is refused by the kernel', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-cp-bwrap-')))
    const config = 'plugins: { builtins: [terminal] }\nterminal: { sandbox: bwrap }\n'
    try {
      mkdirSync(path.join(root, 'plugins'))
      writeFileSync(path.join(root, 'config.yaml'), config)
      const host = await createHost({ root, cwd: root, config: path.join(root, 'config.yaml'), permissionMode: 'bypass', audit: false, log: silentLogger, env: { PATH: process.env.PATH } })
      try {
        // Spelt so the shell analysis cannot see the target: only the mount stops it.
        const [hook, plugin, plain] = await host.run([
          { id: 'h', name: 'terminal', arguments: { command: 'f=con; f=${f}fig.yaml; echo "hooks: {}" >> "$f"' } },
          { id: 'p', name: 'terminal', arguments: { command: 'd=plug; echo x > "${d}ins/evil.mjs"' } },
          { id: 'n', name: 'terminal', arguments: { command: 'echo fine > notes.txt' } },
        ])
        expect(hook!.content).toMatch(/Read-only file system/)
        expect(plugin!.content).toMatch(/Read-only file system/)
        expect(plain).toMatchObject({ ok: true })
        expect(readFileSync(path.join(root, 'config.yaml'), 'utf8')).toBe(config)
        expect(readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('fine\n')
      } finally {
        await host.close()
      }
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
