import { readFileSync } from 'node:fs'

/** A file a console page loads. */
export interface Asset {
  type: string
  body: Buffer
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
}

/** The page and the files it loads, by the name the page asks for (nothing else is served). */
export const ASSET_NAMES = ['index.html', 'console.css', 'console.js', 'dom.js', 'timeline-view.js', 'panels.js', 'call-form.js'] as const

/**
 * Reads the console's page, stylesheet and scripts once. They sit beside this module in `assets/`
 * (the build copies them to `dist/src/console/assets/`), so they are found relative to
 * `import.meta.url` wherever the package is installed.
 *
 * @example
 * const assets = loadConsoleAssets()
 * assets.get('console.js') // { type: 'text/javascript; charset=utf-8', body }
 */
export function loadConsoleAssets(folder: URL = new URL('./assets/', import.meta.url)): Map<string, Asset> {
  const assets = new Map<string, Asset>()
  for (const name of ASSET_NAMES) {
    const extension = name.slice(name.lastIndexOf('.') + 1)
    assets.set(name, { type: TYPES[extension]!, body: readFileSync(new URL(name, folder)) })
  }
  return assets
}
