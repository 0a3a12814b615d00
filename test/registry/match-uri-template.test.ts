import { describe, expect, test } from 'vitest'
import { parseUriTemplate, type ParsedUriTemplate } from '../../src/contract/uri-template.js'
import { compileUriTemplate } from '../../src/registry/match-uri-template.js'

const matcher = (template: string) => compileUriTemplate(parseUriTemplate(template) as ParsedUriTemplate)

describe('compileUriTemplate: a URI against a level 1 template', () => {
  test.each<{ template: string; uri: string; vars: Record<string, string> | undefined }>([
    { template: 'notes://{name}', uri: 'notes://todo', vars: { name: 'todo' } },
    { template: 'notes://{name}', uri: 'notes://todo%20list', vars: { name: 'todo list' } },
    { template: 'notes://{name}', uri: 'notes://a%2Fb', vars: { name: 'a/b' } },
    { template: 'notes://{name}', uri: 'notes://', vars: undefined },
    { template: 'notes://{name}', uri: 'notes://a/b', vars: undefined },
    { template: 'notes://{name}', uri: 'notes://a?x=1', vars: undefined },
    { template: 'notes://{name}', uri: 'notes://a#top', vars: undefined },
    { template: 'notes://{name}', uri: 'other://todo', vars: undefined },
    { template: 'notes://{name}', uri: 'NOTES://todo', vars: undefined },
    { template: 'test://template/{id}/data', uri: 'test://template/123/data', vars: { id: '123' } },
    { template: 'test://template/{id}/data', uri: 'test://template/123/data/more', vars: undefined },
    { template: 'test://template/{id}/data', uri: 'xtest://template/123/data', vars: undefined },
    { template: 'db://{schema}.{table}', uri: 'db://a.b.c', vars: { schema: 'a.b', table: 'c' } },
    { template: 'a.b://{x}', uri: 'aXb://1', vars: undefined },
    { template: 'p://{__proto__}', uri: 'p://polluted', vars: JSON.parse('{"__proto__":"polluted"}') as Record<string, string> },
  ])('$template ~ $uri', ({ template, uri, vars }) => {
    const match = matcher(template)(uri)
    if (vars === undefined) expect(match).toBeUndefined()
    else {
      expect(match).toEqual({ ok: true, vars })
      if (match?.ok) expect(Object.getPrototypeOf(match.vars)).toBe(Object.prototype)
    }
  })

  test('a broken percent-encoding matches, with the problem named', () => {
    expect(matcher('notes://{name}')('notes://%E0%A4%A')).toEqual({ ok: false, problem: expect.stringContaining('{name}') })
  })

  test('a hostile URI against many variables answers (linear engine): a long run of separators', () => {
    const match = matcher('x://{a}-{b}-{c}-{d}-{e}/end')
    expect(match(`x://${'-'.repeat(50_000)}/nope`)).toBeUndefined()
    expect(match(`x://${'a-'.repeat(10_000)}z/end`)).toMatchObject({ ok: true })
  })
})
