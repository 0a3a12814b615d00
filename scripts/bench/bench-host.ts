/** A host for benchmarks: a temp workspace, its own registry, no plugin folders, permissions bypassed. */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createHost } from '../../src/host/create-host.js'
import type { Host } from '../../src/host/host.js'
import type { HostOptions } from '../../src/host/host-types.js'
import { ToolRegistry } from '../../src/registry/registry.js'

export interface BenchHost {
  host: Host
  registry: ToolRegistry
  root: string
  /** Closes the host and removes the temp workspace. */
  dispose(): Promise<void>
}

/**
 * Creates a host on a fresh temp root and a fresh registry (never the process registry), with
 * `permissions.mode: bypass` (benchmarks measure the pipeline, not a person answering prompts).
 */
export async function createBenchHost(options: {
  registry?: ToolRegistry
  dispatch?: Record<string, unknown>
  limits?: Record<string, unknown>
  now?: () => number
  root?: string
  /** Config `store` (default: local, as a host gets it). */
  store?: string
}): Promise<BenchHost> {
  const registry = options.registry ?? new ToolRegistry()
  const root = options.root ?? mkdtempSync(path.join(os.tmpdir(), 'toolhost-bench-'))
  const hostOptions: HostOptions = {
    root,
    cwd: root,
    registry,
    loadPlugins: false,
    config: {
      env_file: '',
      plugins: { dirs: [] },
      permissions: { mode: 'bypass' },
      ...(options.dispatch ? { dispatch: options.dispatch } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.store ? { store: options.store } : {}),
    },
    log: { debug() {}, info() {}, warn() {}, error() {} },
    ...(options.now ? { now: options.now } : {}),
  }
  const host = await createHost(hostOptions)
  return {
    host,
    registry,
    root,
    async dispose() {
      await host.close()
      if (!options.root) rmSync(root, { recursive: true, force: true })
    },
  }
}
