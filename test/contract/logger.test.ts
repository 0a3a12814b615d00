import { describe, expect, test } from 'vitest'
import { createLogger } from '../../src/contract/logger.js'

function linesAt(level: string): string[] {
  const lines: string[] = []
  const log = createLogger(level, (line) => lines.push(line))
  log.debug('d')
  log.info('i')
  log.warn('w', { n: 1 })
  log.error('e')
  return lines
}

describe('createLogger', () => {
  test('each level keeps the messages at or above it, fields as JSON', () => {
    expect(linesAt('debug')).toEqual(['toolhost debug: d', 'toolhost info: i', 'toolhost warn: w {"n":1}', 'toolhost error: e'])
    expect(linesAt('error')).toEqual(['toolhost error: e'])
    expect(linesAt(' Info ')).toEqual(['toolhost info: i', 'toolhost warn: w {"n":1}', 'toolhost error: e'])
  })

  test('an unknown TOOLHOST_LOG value logs at warn (not debug) and says once that it is not a level', () => {
    const lines = linesAt('verbose')
    expect(lines).toEqual([
      'toolhost warn: TOOLHOST_LOG="verbose" is not a log level (debug, info, warn, error); logging at warn',
      'toolhost warn: w {"n":1}',
      'toolhost error: e',
    ])
  })

  test('an empty value is the default, warn, without a complaint', () => {
    expect(linesAt('')).toEqual(['toolhost warn: w {"n":1}', 'toolhost error: e'])
  })
})
