import { afterEach, describe, expect, test } from 'vitest'
import { DEFAULT_DANGEROUS_PATTERNS } from '../../src/config/defaults.js'
import { compileDangerousPatterns, isDangerousCommand, isDangerousForOpenHosts, publishDangerousPatterns } from '../../src/processes/dangerous-commands.js'

const defaults = compileDangerousPatterns(DEFAULT_DANGEROUS_PATTERNS, 'defaults')
const releases: Array<() => void> = []
afterEach(() => {
  for (const release of releases.splice(0)) release()
})

describe('dangerous commands', () => {
  test.each([
    ['rm -rf build', true],
    ['rm -r -f /', true],
    ['sudo rm -fr ~', true],
    ['rm file.txt', false],
    ['git push --force', true],
    ['git push -f origin main', true],
    ['git push origin main', false],
    ['git reset --hard HEAD~1', true],
    ['git clean -fdx', true],
    ['mkfs.ext4 /dev/sdb1', true],
    ['dd if=/dev/zero of=/dev/sda bs=1M', true],
    ['dd if=a.img of=b.img', false],
    ['echo x > /dev/sda', true],
    ['shutdown -h now', true],
    ['chmod -R 777 .', true],
    [':(){ :|:& };:', true],
    ['npm test', false],
  ])('%s → %s', (command, dangerous) => {
    expect(isDangerousCommand(command, defaults)).toBe(dangerous)
  })

  test('an invalid pattern names the file and the index', () => {
    expect(() => compileDangerousPatterns(['ok', '(bad'], 'config.yaml')).toThrow(/config\.yaml: key `terminal\.dangerous_patterns\[1\]`: not a valid regular expression/)
  })

  test('open hosts publish their lists: same root first, else any host, else the defaults', () => {
    expect(isDangerousForOpenHosts('rm -rf x')).toBe(true)
    releases.push(publishDangerousPatterns('/a', compileDangerousPatterns(['deploy'], 'a')))
    releases.push(publishDangerousPatterns('/b', compileDangerousPatterns([], 'b')))
    expect(isDangerousForOpenHosts('deploy', '/a')).toBe(true)
    expect(isDangerousForOpenHosts('deploy', '/b')).toBe(false)
    expect(isDangerousForOpenHosts('deploy')).toBe(true)
    expect(isDangerousForOpenHosts('rm -rf x', '/a')).toBe(false)
    releases.splice(0).forEach((release) => release())
    expect(isDangerousForOpenHosts('rm -rf x', '/a')).toBe(true)
  })
})
