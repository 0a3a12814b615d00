// Tools for the framework adapter tests: a write that waits at a gate, a read of the same key, and a
// tool answering with an image. The registry and the store are per test.
import { createDeferred, type Deferred } from '../../src/contract/deferred.js'
import { createHost, defineTool, ToolRegistry, type Host, type HostOptions } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'

export const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64')

export interface Store {
  host: Host
  files: Map<string, string>
  /** Opens the write's gate; the write finishes after this. */
  gate: Deferred<void>
  /** Handler starts and ends, in order, as `start:name` / `end:name`. */
  trace: string[]
}

export async function storeHost(options: Partial<HostOptions> = {}, permissions: Record<string, unknown> = { mode: 'bypass' }): Promise<Store> {
  const registry = new ToolRegistry()
  const files = new Map<string, string>()
  const gate = createDeferred<void>()
  const trace: string[] = []
  const path = { type: 'string', description: 'The key.' }
  registry.register(defineTool<{ path: string; text: string }>({
    name: 'store_write',
    description: 'Write text under a key.',
    parameters: { type: 'object', properties: { path, text: { type: 'string' } }, required: ['path', 'text'], additionalProperties: false },
    pathScoped: true,
    scope: (args) => [{ path: args.path, access: 'write' }],
    handler: async (args) => {
      trace.push('start:store_write')
      await gate.promise
      files.set(args.path, args.text)
      trace.push('end:store_write')
      return `wrote ${args.path}`
    },
  }))
  registry.register(defineTool<{ path: string; limit?: number }>({
    name: 'store_read',
    description: 'Read the text under a key.',
    parameters: { type: 'object', properties: { path, limit: { type: 'integer', description: 'At most this many characters.' } }, required: ['path'], additionalProperties: false },
    pathScoped: true,
    readOnly: () => true,
    scope: (args) => [{ path: args.path, access: 'read' }],
    handler: (args) => {
      trace.push('start:store_read')
      const text = files.get(args.path) ?? '(empty)'
      trace.push('end:store_read')
      return args.limit === undefined ? text : text.slice(0, args.limit)
    },
  }))
  registry.register(defineTool({
    name: 'snapshot',
    description: 'A picture of the store.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    parallelSafe: true,
    readOnly: () => true,
    handler: () => ({ content: [{ type: 'text', text: `${files.size} keys` }, { type: 'image', data: PNG, mimeType: 'image/png' }] }),
  }))
  const host = await createHost({ registry, loadPlugins: false, log: silentLogger, env: {}, config: { plugins: { dirs: [] }, env_file: '', permissions }, ...options })
  return { host, files, gate, trace }
}

/** Resolves when `probe()` holds, checking after each turn of the event loop (at most `turns`). */
export async function until(probe: () => boolean, what: string, turns = 10_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (probe()) return
    await new Promise((resolve) => setImmediate(resolve))
  }
  throw new Error(`gave up waiting for ${what}`)
}

/** Lets `turns` turns of the event loop pass (to show something did not happen meanwhile). */
export async function turnsPass(turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve))
}
