// Node 20's module hooks for TypeScript ES modules (module.register runs this file on Node's loader
// thread; ts-loader.ts starts it): `toolhost` and its subpaths to the running entries, TypeScript's
// relative names (./x.js for x.ts), and each .ts file's code from ts-source.ts (cache, else esbuild).
import { fileURLToPath } from 'node:url'
import { formatOf } from './package-scope.js'
import { typescriptCandidates, TYPESCRIPT_FILE } from './ts-resolve.js'
import { compiledTypescript, tsCache } from './ts-source.js'

interface ResolveContext {
  parentURL?: string
}
type NextResolve = (specifier: string, context?: ResolveContext) => Promise<{ url: string }>
type NextLoad = (url: string, context?: object) => Promise<object>

let targets: Record<string, string> = {}

export function initialize(data: { targets: Record<string, string>; cacheDir?: string | null }): void {
  targets = data.targets
  // The main thread's folder, which it kept out of every workspace root (tsCache.keepOutOf).
  if (data.cacheDir !== undefined) tsCache.useDir(data.cacheDir ?? undefined)
}

export async function resolve(specifier: string, context: ResolveContext, next: NextResolve): Promise<{ url: string }> {
  if (Object.hasOwn(targets, specifier)) return next(targets[specifier]!, context)
  try {
    return await next(specifier, context)
  } catch (error) {
    if (!TYPESCRIPT_FILE.test(context.parentURL?.split('?')[0] ?? '')) throw error
    for (const candidate of typescriptCandidates(specifier)) {
      try {
        return await next(candidate, context)
      } catch {
        // The next candidate.
      }
    }
    throw error
  }
}

export async function load(url: string, context: object, next: NextLoad): Promise<object> {
  if (!url.startsWith('file:')) return next(url, context)
  const file = fileURLToPath(url)
  if (!TYPESCRIPT_FILE.test(file)) return next(url, context)
  const format = formatOf(file)
  // CommonJS: Node 20 requires it in the main thread, where the Module._extensions handler compiles it.
  if (format === 'commonjs') return { format, shortCircuit: true }
  return { format, source: compiledTypescript(file, format).code, shortCircuit: true }
}
