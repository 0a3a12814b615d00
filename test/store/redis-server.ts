// A redis-server of the test's own on a free loopback port, with no persistence (a restart starts
// empty, as after losing Redis). `reason` says why tests that need one skip when none is installed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { connect, createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' })
/** Whether redis-server is installed (CI installs it: .ci/run). */
export const hasRedis = found.status === 0

/** A free loopback port (taken from the kernel, then freed). */
export async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, 'close')
  return port
}

export interface TestRedis {
  readonly port: number
  readonly url: string
  /** Stops it (SIGTERM) and waits for the process to end. */
  stop(): Promise<void>
  /** Starts it again on the same port, empty. */
  start(): Promise<void>
}

/**
 * Starts a redis-server on a free loopback port and waits until it accepts connections.
 *
 * @example
 * const redis = await startRedis()
 * const store = new RedisStore({ url: redis.url, log })
 * await redis.stop()
 */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async (): Promise<void> => {
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', '--loglevel', 'warning'], { stdio: ['ignore', 'pipe', 'pipe'] })
    child = proc
    // A test process that ends without stopping it leaves no server behind.
    process.once('exit', () => proc.kill())
    let out = ''
    proc.stdout!.on('data', (chunk: Buffer) => void (out += chunk.toString()))
    proc.stderr!.on('data', (chunk: Buffer) => void (out += chunk.toString()))
    const exited = once(proc, 'exit').then(([code]) => {
      throw new Error(`redis-server exited (${String(code)}) before it was ready: ${out}`)
    })
    // --loglevel warning prints nothing when ready: ask it.
    await Promise.race([exited, untilPong(port)])
    exited.catch(() => {})
  }
  await start()
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    async stop() {
      const proc = child
      if (proc === undefined || proc.exitCode !== null) return
      const ended = once(proc, 'exit')
      proc.kill('SIGTERM')
      await ended
    },
  }
}

async function untilPong(port: number): Promise<void> {
  for (;;) {
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      let text = ''
      socket.on('connect', () => socket.write('PING\r\n'))
      socket.on('data', (chunk) => {
        text += chunk.toString()
        if (text.includes('\r\n')) socket.end()
      })
      socket.on('close', () => resolve(text))
      socket.on('error', () => resolve(''))
    })
    if (answer.startsWith('+PONG')) return
    await sleep(20)
  }
}
