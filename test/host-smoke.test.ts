import { describe, expect, test } from 'vitest'
import { createHost } from '../src/index.js'

describe('host smoke', () => {
  test('loads a fixture plugin through tsx and runs one call end to end', async () => {
    const host = await createHost({ config: { plugins: { dirs: [] }, env_file: '' }, plugins: ['test/fixtures/plugins/ok'] })
    expect(host.pluginReport.failed).toEqual([])
    const [ok, bad] = await host.run([
      { id: 'a', name: 'greet', arguments: '{"name":"Ada"}' },
      { id: 'b', name: 'greet', arguments: '{}' },
    ])
    expect(ok).toMatchObject({ id: 'a', ok: true, content: 'hello Ada' })
    expect(bad).toMatchObject({ id: 'b', ok: false, error: { code: 'E_ARGS_INVALID' } })
    await host.close()
  })
})
