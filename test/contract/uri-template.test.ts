import { describe, expect, test } from 'vitest'
import { fixedUriProblem, parseUriTemplate } from '../../src/contract/uri-template.js'

describe('parseUriTemplate: RFC 6570 level 1', () => {
  test.each([
    { template: 'notes://{name}', literals: ['notes://', ''], variables: ['name'] },
    { template: 'test://template/{id}/data', literals: ['test://template/', '/data'], variables: ['id'] },
    { template: 'db://{schema}.{table}/rows', literals: ['db://', '.', '/rows'], variables: ['schema', 'table'] },
    { template: 'x:{a.b}-{c_1}', literals: ['x:', '-', ''], variables: ['a.b', 'c_1'] },
    { template: 'notes://%20{name}', literals: ['notes://%20', ''], variables: ['name'] },
  ])('$template', ({ template, literals, variables }) => {
    expect(parseUriTemplate(template)).toEqual({ literals, variables })
  })

  test.each([
    { template: 'notes/{name}', says: 'must start with a scheme' },
    { template: '{scheme}://x', says: 'must start with a scheme' },
    { template: 'notes://index', says: 'has no {variable}: use `uri`' },
    { template: 'notes://{name', says: 'is never closed' },
    { template: 'notes://name}', says: '"}" without its "{"' },
    { template: 'notes://{+path}', says: 'uses operator "+"' },
    { template: 'notes://{#frag}', says: 'uses operator "#"' },
    { template: 'notes://x{?q}', says: 'uses operator "?"' },
    { template: 'notes://{a,b}', says: 'lists several variables' },
    { template: 'notes://{name*}', says: 'has a modifier' },
    { template: 'notes://{name:3}', says: 'has a modifier' },
    { template: 'notes://{}', says: 'is not a variable name' },
    { template: 'notes://{na-me}', says: 'is not a variable name' },
    { template: 'notes://{a}/{a}', says: 'appears twice' },
    { template: 'notes://{a}{b}', says: 'are side by side' },
    { template: 'notes://my notes/{a}', says: 'character " " is not allowed' },
    { template: 'notes://{a}/50%', says: '"%" must start a percent-encoding' },
  ])('refuses $template', ({ template, says }) => {
    const problem = parseUriTemplate(template)
    expect(typeof problem).toBe('string')
    expect(problem).toContain(says)
  })
})

describe('fixedUriProblem', () => {
  test.each([
    { uri: 'notes://index', problem: undefined },
    { uri: 'test://static-text', problem: undefined },
    { uri: 'file:///tmp/a.txt', problem: undefined },
    { uri: 'index.md', problem: 'must start with a scheme' },
    { uri: 'notes://{name}', problem: 'use `uriTemplate`' },
    { uri: 'notes://a b', problem: 'character " " is not allowed' },
    { uri: 'notes://50%', problem: '"%" must start a percent-encoding' },
  ])('$uri', ({ uri, problem }) => {
    const found = fixedUriProblem(uri)
    if (problem === undefined) expect(found).toBeUndefined()
    else expect(found).toContain(problem)
  })
})
