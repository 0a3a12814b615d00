/** File names the TypeScript loader compiles. */
export const TYPESCRIPT_FILE = /\.(ts|mts|cts|tsx)$/

const RELATIVE = /^\.\.?\//
const JS_EXTENSION = /\.(js|mjs|cjs|jsx)$/
const TS_FOR_JS: Readonly<Record<string, string>> = { '.js': '.ts', '.mjs': '.mts', '.cjs': '.cts', '.jsx': '.tsx' }

/**
 * What else a relative import from a TypeScript file may name when the specifier itself is not a
 * file, in the order tsx tries them: TypeScript's `./x.js` for `./x.ts` (and .mjs → .mts, .cjs →
 * .cts), and an import without an extension (`./x`: x.ts, x.tsx, x.js, then x/index.ts, x/index.js).
 * Empty for anything else (a package, a URL, a name with another extension).
 */
export function typescriptCandidates(specifier: string): string[] {
  if (!RELATIVE.test(specifier)) return []
  const js = JS_EXTENSION.exec(specifier)
  if (js) return [specifier.slice(0, -js[0].length) + TS_FOR_JS[js[0]]!]
  if (/\.[a-z]+$/i.test(specifier.slice(specifier.lastIndexOf('/') + 1))) return []
  const base = specifier.replace(/\/$/, '')
  return [`${base}.ts`, `${base}.tsx`, `${base}.js`, `${base}/index.ts`, `${base}/index.js`]
}
