import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { loadConfig } from '../../src/config/load-config.js'
import { workspaceFor } from '../../src/workspace/workspace.js'

const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-workspace-for-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('workspaceFor', () => {
  test('takes the grouped context and gives one workspace per root and config', () => {
    const config = loadConfig({ cwd: root }).config
    const ctx = { workspace: { root }, settings: { config } }
    const workspace = workspaceFor(ctx)
    expect(workspace.root).toBe(root)
    expect(workspaceFor({ workspace: { root }, settings: { config } })).toBe(workspace)
  })

  test('a hand-made context of the old flat shape gets E_USAGE naming the shape, not a TypeError', () => {
    const config = loadConfig({ cwd: root }).config
    const flat = { root, config } as unknown as Parameters<typeof workspaceFor>[0]
    expect(() => workspaceFor(flat)).toThrow(expect.objectContaining({ code: 'E_USAGE', message: expect.stringContaining('pass ctx itself') }))
  })
})
