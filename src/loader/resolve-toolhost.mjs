// Module resolution hook (runs on Node's loader thread): maps the bare specifier `toolhost` to this
// package's entry, so a plugin file anywhere on disk imports the same public API (and registry).
let target

export function initialize(data) {
  target = data.target
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'toolhost' && target) return nextResolve(target, context)
  return nextResolve(specifier, context)
}
