// `npm run config-types`: writes src/config/generated-types.ts, the TypeScript types of config.yaml,
// from its JSON Schema (src/config/schema.ts), so a key is declared once. test/config/generated-types.test.ts
// fails while the committed file differs from what this renders.
//
// A key the loader fills from its `default` (every key reached through `properties` from the top) is
// required in the type; inside a list item or a map entry (`items`, `additionalProperties`) a key is
// required only when the schema's `required` lists it. A `title` makes a named type; a `description`
// becomes the JSDoc of its key.
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { CONFIG_SCHEMA } from '../src/config/schema.js'
import { liveKeysOf } from '../src/config/live-config.js'

export const GENERATED_TYPES_FILE = fileURLToPath(new URL('../src/config/generated-types.ts', import.meta.url))

interface SchemaNode {
  title?: string
  description?: string
  type?: string | string[]
  enum?: readonly unknown[]
  anyOf?: readonly SchemaNode[]
  items?: SchemaNode
  properties?: Record<string, SchemaNode>
  additionalProperties?: boolean | SchemaNode
  required?: readonly string[]
}

/** The text of src/config/generated-types.ts for `schema`. */
export function renderConfigTypes(schema: SchemaNode = CONFIG_SCHEMA as SchemaNode): string {
  const named = new Map<string, string>()
  namedType(schema, true, named)
  const live = liveKeysOf(schema).map((key) => `'${key}'`).join(' | ')
  return [
    '// Generated from src/config/schema.ts by `npm run config-types`: do not edit. To add a config key,',
    '// add it to the schema (with its `default`), run `npm run config-types`, and give it a row in docs/config.md.',
    '',
    ...[...named.values()].reverse(),
    `/** A key a running host takes from a reloaded config.yaml (\`x-live\` in the schema). */`,
    `export type LiveKey = ${live}`,
    '',
  ].join('\n')
}

function namedType(node: SchemaNode, filled: boolean, named: Map<string, string>): string {
  const name = node.title!
  if (named.has(name)) return name
  named.set(name, '')
  const body = typeOf({ ...node, title: undefined }, filled, named, '')
  const doc = node.description ? `/** ${node.description} */\n` : ''
  const text = node.properties ? `${doc}export interface ${name} ${body}\n` : `${doc}export type ${name} = ${body}\n`
  named.delete(name)
  named.set(name, text)
  return name
}

function typeOf(node: SchemaNode, filled: boolean, named: Map<string, string>, indent: string): string {
  if (node.title) return namedType(node, filled, named)
  if (node.enum) return node.enum.map((value) => JSON.stringify(value).replace(/^"|"$/g, "'")).join(' | ')
  if (node.anyOf) return node.anyOf.map((branch) => typeOf(branch, filled, named, indent)).join(' | ')
  if (Array.isArray(node.type)) return node.type.map((type) => typeOf({ ...node, type }, filled, named, indent)).join(' | ')
  switch (node.type) {
    case 'string':
      return 'string'
    case 'integer':
    case 'number':
      return 'number'
    case 'boolean':
      return 'boolean'
    case 'array': {
      const item = typeOf(node.items ?? {}, false, named, indent)
      return item.includes(' ') ? `Array<${item}>` : `${item}[]`
    }
    case 'object':
      if (node.properties) return objectType(node, filled, named, indent)
      if (typeof node.additionalProperties === 'object') return `Record<string, ${typeOf(node.additionalProperties, false, named, indent)}>`
      return 'Record<string, unknown>'
    default:
      return 'unknown'
  }
}

function objectType(node: SchemaNode, filled: boolean, named: Map<string, string>, indent: string): string {
  const inner = `${indent}  `
  const lines = Object.entries(node.properties ?? {}).map(([key, child]) => {
    const optional = filled || node.required?.includes(key) ? '' : '?'
    const doc = child.description && !child.title ? `${inner}/** ${child.description} */\n` : ''
    return `${doc}${inner}${key}${optional}: ${typeOf(child, filled, named, inner)}`
  })
  return `{\n${lines.join('\n')}\n${indent}}`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(GENERATED_TYPES_FILE, renderConfigTypes())
  console.log(`wrote ${GENERATED_TYPES_FILE}`)
}
