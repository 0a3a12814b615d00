// The layers of src/, lowest first, checked by `npm run lint` (scripts/lint.mjs) with
// dependency-cruiser: no import circle between files of src/ (type-only imports count), and a file
// imports only its own layer and the layers of lower tiers (layers of one tier do not import each
// other). docs/architecture.md says what each layer is for.
const TIERS = [
  // The tool contract and the shapes that flow everywhere (config.yaml's types among them).
  { contract: ['^src/contract/', '^src/config/(generated-)?types[.]ts$'] },
  // Leaves: helpers and formats that know only the contract.
  { patterns: ['^src/patterns/'], http: ['^src/http/'], shell: ['^src/shell/'], workspace: ['^src/workspace/'], adapters: ['^src/adapters/'] },
  // The registry, the store hosts sharing a workspace coordinate through, and the search engine of
  // search_files (beside each other).
  { registry: ['^src/registry/'], store: ['^src/store/'], search: ['^src/search/'] },
  { config: ['^src/config/'] },
  // What a host is built from: each subsystem takes the narrow part of a host it needs.
  { loader: ['^src/loader/'], processes: ['^src/processes/'], 'dispatch/admit': ['^src/dispatch/admit/'], 'dispatch/execute': ['^src/dispatch/execute/'] },
  { 'dispatch/schedule': ['^src/dispatch/schedule/'], permissions: ['^src/permissions/'], 'mcp-client': ['^src/mcp-client/'], hooks: ['^src/hooks/'] },
  { 'dispatch/results': ['^src/dispatch/results/'], observe: ['^src/observe/'] },
  { otel: ['^src/otel/'], pipeline: ['^src/pipeline/'] },
  // Host and createHost.
  { host: ['^src/host/'] },
  // What serves a host to someone.
  { mcp: ['^src/mcp/'], console: ['^src/console/'], frameworks: ['^src/frameworks/'] },
  { cli: ['^src/cli/'] },
  // The package's entry points: nothing inside src/ imports them.
  { entries: ['^src/index[.]ts$', '^src/(mcp|console|otel|workspace|processes)/index[.]ts$'] },
]

// A file belongs to the first layer (lowest tier first) whose path matches, except that an entry
// file belongs to the entries: config/types.ts is in contract, not config.
const ENTRIES = TIERS.at(-1).entries
const layers = TIERS.flatMap((tier, level) => Object.entries(tier).map(([name, paths]) => ({ name, paths, level })))
const isEntryLayer = (layer) => layer.name === 'entries'
const claimed = []
for (const layer of layers) {
  layer.own = layer.paths.map((p) => (isEntryLayer(layer) ? p : `(?=${p})(?!${[...claimed, ...ENTRIES].join('|')})`))
  if (!isEntryLayer(layer)) claimed.push(...layer.paths)
}

const layerRules = layers.map((layer) => {
  const below = layers.filter((other) => other.level < layer.level)
  return {
    name: `layer-${layer.name}`,
    comment: `${layer.name} may import only ${below.length === 0 ? 'itself' : `itself and ${below.map((b) => b.name).join(', ')}`}`,
    severity: 'error',
    from: { path: layer.own },
    to: { path: '^src/', pathNot: [...layer.own, ...below.flatMap((b) => b.own)] },
  }
})

const everyLayer = layers.flatMap((layer) => layer.own)

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import circle between files of src/ (type-only imports count): cut it with a narrow interface defined below its user',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-layer',
      comment: 'a file of src/ outside every layer: add its folder to a tier of .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/', pathNot: everyLayer },
      to: {},
    },
    {
      name: 'to-no-layer',
      comment: 'an import of a file of src/ outside every layer: add its folder to a tier of .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: everyLayer },
    },
    ...layerRules,
  ],
  options: {
    // TypeScript 7 has no API dependency-cruiser's tsc extractor can use; swc reads the sources,
    // type-only imports included (tsPreCompilationDeps).
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/cli/templates/' },
  },
}
