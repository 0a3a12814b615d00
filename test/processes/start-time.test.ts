import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { describe, expect, test } from 'vitest'
import { isProcessAlive, isSameProcess, processStartTime, startTimeFromPs } from '../../src/processes/start-time.js'

describe('process identity: pid plus the OS start time', () => {
  test('this process has a start time in the past, stable across reads', () => {
    const start = processStartTime(process.pid)
    expect(start).toBeDefined()
    expect(start!).toBeLessThanOrEqual(Date.now())
    expect(Date.now() - start!).toBeLessThan(24 * 3600_000)
    expect(processStartTime(process.pid)).toBe(start)
    expect(isSameProcess(process.pid, start!)).toBe(true)
  })

  test('a child started later has a later (or equal) start time; a wrong start time is another process', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' })
    try {
      const start = processStartTime(child.pid!)!
      expect(start).toBeGreaterThanOrEqual(processStartTime(process.pid)!)
      expect(isSameProcess(child.pid!, start)).toBe(true)
      expect(isSameProcess(child.pid!, start - 1000)).toBe(false)
    } finally {
      child.kill('SIGKILL')
      await once(child, 'exit')
    }
    expect(isProcessAlive(child.pid!)).toBe(false)
  })

  test('ps -o lstart= (used off Linux) agrees with the platform reading to the second', () => {
    const fromPs = startTimeFromPs(process.pid)
    expect(fromPs).toBeDefined()
    expect(Math.abs(fromPs! - processStartTime(process.pid)!)).toBeLessThan(1500)
    expect(startTimeFromPs(2 ** 22 + 12345)).toBeUndefined()
  })

  test.each([0, -1, 1.5, 2 ** 31])('pid %s is never alive and has no start time', (pid) => {
    expect(isProcessAlive(pid)).toBe(false)
    expect(isSameProcess(pid, 0)).toBe(false)
    if (pid <= 0 || !Number.isInteger(pid)) expect(processStartTime(pid)).toBeUndefined()
  })
})
