import { describeThrown } from '../contract/errors.js'
import type { PromptCatalogue, PromptRequestOptions, ResourceEntry } from './prompt-entries.js'
import { runWithLimit } from './run-with-limit.js'

/** One resource as `resources/list` shows it (MCP `Resource`). */
export interface ResourceListing {
  uri: string
  name: string
  title?: string
  description?: string
  mimeType?: string
}

/**
 * The resources on offer now (MCP `resources/list`): every available fixed resource, then what each
 * available template's `list` names, in template order; a URI listed twice is shown once. A listed
 * item's `name` defaults to its URI, its `description` and `mimeType` to the template's. A `list`
 * that throws, runs past its time limit, or names a URI its template does not match loses those
 * listings (never the others'), and `options.report` hears why.
 *
 * @example
 * await listResources(registry.promptsAndResources, { report: (m) => log.warn(m) })
 * // [{ uri: 'notes://index', name: 'index', description: 'All notes', mimeType: 'text/markdown' }, …]
 */
export async function listResources(catalogue: PromptCatalogue, options: PromptRequestOptions): Promise<ResourceListing[]> {
  const [fixed, templates] = await Promise.all([catalogue.availableResources(false, options), catalogue.availableResources(true, options)])
  const listed = await Promise.all(templates.filter((e) => e.resource.list !== undefined).map((e) => listTemplate(e, options)))
  const out: ResourceListing[] = []
  const seen = new Set<string>()
  for (const item of [...fixed.map(describeFixed), ...listed.flat()]) {
    if (seen.has(item.uri)) continue
    seen.add(item.uri)
    out.push(item)
  }
  return out
}

function describeFixed(entry: ResourceEntry): ResourceListing {
  const { resource } = entry
  return { uri: entry.key, name: resource.name, ...(resource.title !== undefined ? { title: resource.title } : {}), description: resource.description, mimeType: resource.mimeType }
}

async function listTemplate(entry: ResourceEntry, options: PromptRequestOptions): Promise<ResourceListing[]> {
  const { resource } = entry
  const what = `the list of resource template ${JSON.stringify(entry.key)}`
  const env = options.env ?? process.env
  let items: unknown
  try {
    items = await runWithLimit(what, (signal) => resource.list!({ signal, env }), options)
  } catch (error) {
    options.report?.(`${describeThrown(error)}; its resources are not listed`)
    return []
  }
  if (!Array.isArray(items)) {
    options.report?.(`${what} is not a list; its resources are not listed`)
    return []
  }
  const out: ResourceListing[] = []
  for (const [i, item] of items.entries()) {
    const { uri, name, title, description, mimeType } = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>
    const fields = [name, title, description, mimeType].every((f) => f === undefined || typeof f === 'string')
    if (typeof uri !== 'string' || !fields || entry.match!(uri)?.ok !== true) {
      options.report?.(`${what}: item ${i} is left out: it needs a \`uri\` the template matches, and string \`name\`, \`title\`, \`description\`, \`mimeType\` if any`)
      continue
    }
    out.push({
      uri,
      name: (name as string | undefined) ?? uri,
      ...(title !== undefined ? { title: title as string } : {}),
      description: (description as string | undefined) ?? resource.description,
      mimeType: (mimeType as string | undefined) ?? resource.mimeType,
    })
  }
  return out
}
