import { describe, expect, test } from 'vitest'
import { defineResource } from '../../src/contract/define-resource.js'
import { isToolhostError } from '../../src/contract/errors.js'
import type { ResourceSpec } from '../../src/contract/prompt-types.js'

const fixed: ResourceSpec = { uri: 'notes://index', name: 'index', description: 'All notes.', mimeType: 'text/markdown', read: () => '# Notes' }
const template: ResourceSpec = { uriTemplate: 'notes://{folder}/{name}', name: 'note', description: 'A note.', mimeType: 'text/markdown', read: () => '' }

function thrown(fn: () => unknown): { code: string; message: string } | undefined {
  try {
    fn()
  } catch (error) {
    return { code: isToolhostError(error) ? error.code : 'not a ToolhostError', message: (error as Error).message }
  }
  return undefined
}

describe('defineResource', () => {
  test('a fixed URI: no variables, no list, no completers', () => {
    expect(defineResource(fixed)).toMatchObject({ kind: 'resource', uri: 'notes://index', uriTemplate: undefined, variables: [], list: undefined, complete: {}, requiresEnv: [] })
  })

  test("a template: its variables in order, its list and completers kept", () => {
    const list = (): [] => []
    const resource = defineResource({ ...template, list, complete: { name: ['todo'] } })
    expect(resource).toMatchObject({ uri: undefined, uriTemplate: 'notes://{folder}/{name}', variables: ['folder', 'name'], list, complete: { name: ['todo'] } })
  })

  test.each<{ why: string; spec: unknown; says: string }>([
    { why: 'not an object', spec: 'notes://x', says: 'expected a resource spec object' },
    { why: 'both uri and uriTemplate', spec: { ...template, uri: 'notes://x' }, says: 'give exactly one of `uri`' },
    { why: 'neither uri nor uriTemplate', spec: { ...fixed, uri: undefined }, says: 'give exactly one of `uri`' },
    { why: 'a uri without a scheme', spec: { ...fixed, uri: 'index.md' }, says: '`uri` is not a URI: a resource URI must start with a scheme' },
    { why: 'a uri with braces', spec: { ...fixed, uri: 'notes://{name}' }, says: 'use `uriTemplate` for a template' },
    { why: 'a level 2 template', spec: { ...template, uriTemplate: 'notes://{+path}' }, says: 'not an RFC 6570 level 1 template: expression {+path} uses operator "+"' },
    { why: 'a template without variables', spec: { ...template, uriTemplate: 'notes://all' }, says: 'has no {variable}' },
    { why: 'a list on a fixed URI', spec: { ...fixed, list: () => [] }, says: '`list` is for templates' },
    { why: 'a list that is not a function', spec: { ...template, list: [] }, says: '`list` must be a function' },
    { why: 'an empty name', spec: { ...fixed, name: '' }, says: '`name` must be a non-empty string' },
    { why: 'no description', spec: { ...fixed, description: undefined }, says: '`description` must be a non-empty string' },
    { why: 'no mimeType', spec: { ...fixed, mimeType: undefined }, says: '`mimeType` must be a media type' },
    { why: 'a mimeType that is not a media type', spec: { ...fixed, mimeType: 'markdown' }, says: '`mimeType` must be a media type' },
    { why: 'no read', spec: { ...fixed, read: undefined }, says: '`read` must be a function' },
    { why: 'a completer for no variable', spec: { ...template, complete: { id: [] } }, says: '`complete.id` names no variable (the variables are folder, name)' },
    { why: 'a completer on a fixed URI', spec: { ...fixed, complete: { name: [] } }, says: '`complete.name` names no variable' },
    { why: 'requiresEnv that is a string', spec: { ...fixed, requiresEnv: 'NOTES_DIR' }, says: '`requiresEnv` must be a list' },
  ])('refuses $why with E_SCHEMA_INVALID saying what is wrong', ({ spec, says }) => {
    const error = thrown(() => defineResource(spec as ResourceSpec))
    expect(error?.code).toBe('E_SCHEMA_INVALID')
    expect(error?.message).toContain(says)
    expect(error?.message).toMatch(/^defineResource: /)
  })
})
