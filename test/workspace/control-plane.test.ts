// What the control plane holds (issue 32.2), table-driven: the config file, plugin folders, .env,
// the scripts hooks name, .toolhost/ and configured state paths, the trust file's folder; only paths
// inside the root; and what an exact allow rule opens.
import { describe, expect, test } from 'vitest'
import { mergeConfig } from '../../src/config/load-config.js'
import { controlPlaneOf, refuseControlPlane } from '../../src/workspace/control-plane.js'

const root = '/nonexistent-root'
const plane = controlPlaneOf({
  root,
  config: mergeConfig({
    hooks: { before_call: [{ tools: '*', command: './hooks/check.sh --strict' }], after_call: [{ tools: '*', command: 'node scripts/after.mjs "$TOOL" https://x.example/y' }] },
    permissions: { allow: ['write_file(notes/.env)', 'write_file(plugins/**)', 'patch(config.yaml)', 'read_file(.env)', 'terminal(hooks/check.sh)', 'write_*(secrets/.env)'] },
    env_file: 'secrets/.env',
    plugins: { dirs: ['plugins', '/elsewhere/plugins'] },
  }, 'test'),
  configFile: `${root}/config.yaml`,
  baseDir: root,
  pluginDirs: [`${root}/more-plugins`],
  trustFile: `${root}/.config/toolhost/trust.json`,
  caches: [`${root}/tmp/toolhost-0`, '/elsewhere/cache'],
})

describe('controlPlaneOf', () => {
  test.each([
    'config.yaml', 'plugins', 'more-plugins', 'secrets/.env', 'hooks/check.sh', 'scripts/after.mjs', '.toolhost', '.config/toolhost', 'tmp/toolhost-0',
  ])('holds %s', (relative) => {
    expect(plane.paths).toContain(`${root}/${relative}`)
  })

  test('holds nothing outside the root, nor the root itself', () => {
    expect(plane.paths.filter((p) => !p.startsWith(`${root}/`))).toEqual([])
  })

  test('an allow rule of a writing tool naming one exact path opens it; a glob, a reading tool, the terminal or a tool pattern opens nothing', () => {
    expect(plane.opened).toEqual([`${root}/notes/.env`, `${root}/config.yaml`])
  })
})

describe('refuseControlPlane', () => {
  test.each([
    [`${root}/config.yaml`, false],
    [`${root}/plugins/x.mjs`, true],
    [`${root}/.toolhost/store/state.json`, true],
    [`${root}/hooks/check.sh`, true],
    [`${root}/hooks/other.sh`, false],
    [`${root}/src/index.ts`, false],
    [`${root}/plugins-notes.md`, false],
  ])('%s refused: %s', (file, refused) => {
    const attempt = () => refuseControlPlane(plane, file, file, false)
    if (refused) expect(attempt).toThrow(expect.objectContaining({ code: 'E_CONTROL_PLANE' }))
    else expect(attempt).not.toThrow()
  })

  test('case-insensitive file systems fold case', () => {
    expect(() => refuseControlPlane(plane, `${root}/PLUGINS/x.mjs`, 'PLUGINS/x.mjs', true)).toThrow(expect.objectContaining({ code: 'E_CONTROL_PLANE' }))
  })
})
