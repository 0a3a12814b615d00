import { register as registerHook, default as Module } from 'node:module'
import { tsImport } from 'tsx/esm/api'
import { pathToFileURL } from 'node:url'
registerHook(new URL('./src/loader/resolve-toolhost.mjs', pathToFileURL(process.cwd() + '/')), { data: { target: pathToFileURL('/tmp/proto/index.ts').href } })
const orig = Module._resolveFilename
Module._resolveFilename = function (request, ...rest) {
  return orig.call(this, request === 'toolhost' ? '/tmp/proto/index.ts' : request, ...rest)
}
let t = performance.now()
await tsImport(pathToFileURL('/tmp/proto/outside/plug.ts').href, import.meta.url)
await tsImport(pathToFileURL('/tmp/proto/outside/plug.ts').href + '?v=2', import.meta.url)
await tsImport(pathToFileURL('/tmp/proto/outside/plug2.mts').href, import.meta.url)
console.log(globalThis[Symbol.for('toolhost.registry')], performance.now() - t)
