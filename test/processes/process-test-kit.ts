// Shared set-up for the process tests: temporary workspaces, registries that are always closed, and
// every process group a test started killed in afterEach.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { ProcessRegistry, type ProcessRegistryOptions } from '../../src/processes/process-registry.js'
import { isProcessAlive } from '../../src/processes/start-time.js'

export class ProcessTestKit {
  readonly roots: string[] = []
  readonly registries: ProcessRegistry[] = []
  /** Process groups (and single pids) to kill in cleanup. */
  readonly pids = new Set<number>()

  tempRoot(): string {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-proc-')))
    this.roots.push(root)
    return root
  }

  options(root: string, overrides: Partial<ProcessRegistryOptions> = {}): ProcessRegistryOptions {
    return {
      root,
      dir: path.join(root, '.toolhost/processes'),
      checkpoint: path.join(root, '.toolhost/processes.json'),
      bufferChars: 200_000,
      killGraceMs: 400,
      maxRunning: 8,
      retentionMs: 600_000,
      ...overrides,
    }
  }

  async open(root: string, overrides: Partial<ProcessRegistryOptions> = {}): Promise<ProcessRegistry> {
    const registry = await ProcessRegistry.open(this.options(root, overrides))
    this.registries.push(registry)
    registry.onEvent((event) => {
      if (event.type === 'spawned') this.pids.add(event.process.pid)
    })
    for (const p of registry.list()) this.pids.add(p.pid)
    return registry
  }

  async cleanup(): Promise<void> {
    for (const registry of this.registries.splice(0)) await registry.close()
    for (const pid of this.pids) {
      for (const target of [-pid, pid]) {
        try {
          process.kill(target, 'SIGKILL')
        } catch {
          // already gone
        }
      }
    }
    this.pids.clear()
    for (const root of this.roots.splice(0)) rmSync(root, { recursive: true, force: true })
  }
}

/**
 * Polls `check` until it is true (at most `ms`). For conditions only the OS can tell (a process
 * wrote its first line, a pid went away): there is no event to wait on.
 */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`)
    await sleep(20)
  }
}

/** Waits until the process's output contains `text`. */
export async function outputContains(registry: ProcessRegistry, id: string, text: string): Promise<void> {
  await eventually(async () => (await registry.poll(id)).tail.includes(text))
}

export { isProcessAlive }
