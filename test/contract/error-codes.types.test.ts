// ToolError.code is the catalogue's ErrorCode union: a misspelt code fails to compile (tsc checks
// this file under npm test through test/type-tests.test.ts, and in npm run typecheck). The runtime
// check holds the catalogue and the type to each other.
import { expect, expectTypeOf, test } from 'vitest'
import { ERROR_CODES, type ErrorCode } from '../../src/contract/errors.js'
import type { ToolError, ToolResult } from '../../src/contract/types.js'

test('a tool error carries a code of the catalogue, and a misspelt one does not compile', () => {
  const denied: ToolError = { code: 'E_DENIED', message: 'no' }
  // @ts-expect-error 'E_DENYED' is not a code of the catalogue
  const misspelt: ToolError = { code: 'E_DENYED', message: 'no' }
  expectTypeOf<ToolError['code']>().toEqualTypeOf<ErrorCode>()
  expectTypeOf<NonNullable<ToolResult['error']>['code']>().toEqualTypeOf<ErrorCode>()
  expect(Object.hasOwn(ERROR_CODES, denied.code)).toBe(true)
  expect(Object.hasOwn(ERROR_CODES, misspelt.code)).toBe(false)
})
