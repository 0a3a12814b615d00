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
 * Starts a redis-server on a free loopback port and waits until it accepts connections. A free
 * port can be taken by someone else (another test's server, an outgoing connection) between
 * `freePort` and redis binding it: the server that answers must be this one (its pid), and a start
 * that could not bind tries another port (the first start only: a restart keeps its port).
 *
 * @example
 * const redis = await startRedis()
 * const store = new RedisStore({ url: redis.url, log })
 * await redis.stop()
 */
export async function startRedis(): Promise<TestRedis> {
  let port = await freePort()
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
      throw new Error(`redis-server on port ${port} exited (${String(code)}) before it was ready: ${out}`)
    })
    // --loglevel warning prints nothing when ready: ask it, and make sure it is this process that answers.
    await Promise.race([exited, untilAnswersAs(port, proc.pid!)])
    exited.catch(() => {})
  }
  for (let attempt = 1; ; attempt++) {
    try {
      await start()
      break
    } catch (error) {
      if (attempt === 5 || !/Address already in use|could not create server/i.test((error as Error).message)) throw error
      port = await freePort()
    }
  }
  return {
    get port() {
      return port
    },
    get url() {
      return `redis://127.0.0.1:${port}`
    },
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

// Resolves once the server on `port` says its process id is `pid` (INFO server), so a server that
// took the port first is never mistaken for this one.
async function untilAnswersAs(port: number, pid: number): Promise<void> {
  for (;;) {
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      let text = ''
      socket.on('connect', () => socket.write('INFO server\r\n'))
      socket.on('data', (chunk) => {
        text += chunk.toString()
        if (/process_id:\d+\r\n/.test(text)) socket.end()
      })
      socket.on('close', () => resolve(text))
      socket.on('error', () => resolve(''))
      socket.setTimeout(2_000, () => socket.destroy())
    })
    if (new RegExp(`process_id:${pid}\\b`).test(answer)) return
    await sleep(20)
  }
}
