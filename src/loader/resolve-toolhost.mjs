// Module resolution hook (Node runs it on its loader thread): maps the bare specifiers `toolhost`
// and its subpaths (`toolhost/workspace`, `toolhost/mcp`, …) to the entries of the toolhost that is
// running, so a plugin file anywhere on disk imports the same public API (and registry) as the
// host, whatever node_modules it sits in.
let targets = {}

export function initialize(data) {
  targets = data.targets
}

export async function resolve(specifier, context, nextResolve) {
  const target = Object.hasOwn(targets, specifier) ? targets[specifier] : undefined
  return nextResolve(target ?? specifier, context)
}
