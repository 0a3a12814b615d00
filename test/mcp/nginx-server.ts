// An nginx of the test's own in front of `serve --http` instances, configured by the `upstream
// toolhost` block of docs/deploy.md (so the documented config is the tested one): its upstream
// servers and `listen` are replaced by the test's, and every answer names the instance that gave it
// (`X-Upstream`). Started in the foreground with its own prefix, pid file and logs; stopped by the test.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { REPO } from '../toolhost-cli.js'

// Debian puts nginx in /usr/sbin, which a non-root PATH may leave out.
const NGINX = spawnSync('nginx', ['-v']).status === 0 ? 'nginx' : '/usr/sbin/nginx'
/** Whether nginx is installed (CI installs it: .ci/run). */
export const hasNginx = spawnSync(NGINX, ['-v']).status === 0

/** The documented site config (docs/deploy.md, the fenced nginx block with `upstream toolhost`). */
export function documentedSiteConfig(): string {
  const doc = readFileSync(path.join(REPO, 'docs/deploy.md'), 'utf8')
  const block = [...doc.matchAll(/```nginx\n([\s\S]*?)```/g)].map((m) => m[1]!).find((text) => text.includes('upstream toolhost'))
  if (block === undefined) throw new Error('docs/deploy.md has no ```nginx block with `upstream toolhost`')
  return block
}

export interface TestNginx {
  readonly url: string
  /** nginx's error log so far (for failure messages). */
  errors(): string
  stop(): Promise<void>
}

/** Starts nginx on 127.0.0.1:`port`, balancing round-robin over `upstreams` (`host:port`). */
export async function startNginx(dir: string, port: number, upstreams: readonly string[]): Promise<TestNginx> {
  mkdirSync(dir, { recursive: true })
  let site = documentedSiteConfig()
  const servers = site.match(/^\s*server \S+:\d+[^;]*;$/gm)
  if (servers === null || servers.length === 0) throw new Error('the documented upstream names no server')
  const options = /^\s*server \S+:\d+([^;]*);$/m.exec(servers[0]!)![1]!
  site = site.replace(servers.join('\n'), upstreams.map((u) => `    server ${u}${options};`).join('\n'))
  site = site.replace(/^(\s*)listen [^;]+;/m, `$1listen 127.0.0.1:${port};`)
  site = site.replace(/^(\s*)location \/ \{$/m, `$1location / {\n$1    add_header X-Upstream $upstream_addr always;`)
  const conf = path.join(dir, 'nginx.conf')
  writeFileSync(conf, `worker_processes 1;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  client_body_buffer_size 1m;
${site}
}
`)
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-e', `${dir}/error.log`, '-c', conf, '-g', `daemon off; pid ${dir}/nginx.pid;`], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  process.once('exit', () => child.kill('SIGKILL'))
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`nginx exited (${String(code)}): ${stderr}${readLog(dir)}`)
  })
  exited.catch(() => {})
  await Promise.race([exited, untilListening(port)])
  return {
    url: `http://127.0.0.1:${port}`,
    errors: () => readLog(dir),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const ended = once(child, 'exit')
      child.kill('SIGTERM')
      await ended
    },
  }
}

function readLog(dir: string): string {
  try {
    return readFileSync(path.join(dir, 'error.log'), 'utf8')
  } catch {
    return ''
  }
}

async function untilListening(port: number): Promise<void> {
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.end()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (up) return
    await sleep(20)
  }
}
