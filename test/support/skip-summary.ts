// A vitest reporter that closes a run with one summary of what did not run: each skipped suite or
// test whose name gives its reason (every skip in this repository does, `npm run lint` checks it),
// with that reason, which names the command that enables it. Nothing is skipped silently.
import type { Reporter, TestCase, TestModule, TestSuite } from 'vitest/node'
import { missingPackages, enableCommand } from '../../scripts/test-system.mjs'

export interface SkippedPart {
  file: string
  name: string
  tests: number
}

const REASON = /\(reason: /

function testsIn(suite: TestSuite): number {
  return [...suite.children.allTests()].length
}

/** The outermost skipped suites and tests of a module that carry a reason, in file order. */
export function skippedParts(module: TestModule): SkippedPart[] {
  const parts: SkippedPart[] = []
  const visit = (children: Iterable<TestSuite | TestCase>): void => {
    for (const child of children) {
      const skipped = child.type === 'suite' ? child.state() === 'skipped' : child.result().state === 'skipped'
      if (skipped && REASON.test(child.name)) {
        parts.push({ file: module.relativeModuleId, name: child.name, tests: child.type === 'suite' ? testsIn(child) : 1 })
      } else if (child.type === 'suite') visit(child.children)
    }
  }
  visit(module.children)
  return parts
}

export function formatSkipSummary(parts: SkippedPart[], missing: { pkg: string; usedBy: string }[]): string[] {
  if (parts.length === 0 && missing.length === 0) return []
  const tests = parts.reduce((sum, part) => sum + part.tests, 0)
  const lines = [`Skipped: ${parts.length} suite${parts.length === 1 ? '' : 's'} or test${parts.length === 1 ? '' : 's'} (${tests} test${tests === 1 ? '' : 's'}), each with the reason it did not run:`]
  for (const part of parts) lines.push(`  ${part.file} > ${part.name}${part.tests > 1 ? ` [${part.tests} tests]` : ''}`)
  for (const need of missing) lines.push(`  missing ${need.pkg}: ${need.usedBy} skip; ${enableCommand(need.pkg)} (or npm test as root) enables them`)
  return lines
}

export default class SkipSummary implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines = formatSkipSummary(testModules.flatMap(skippedParts), missingPackages())
    if (lines.length > 0) process.stdout.write(`\n${lines.join('\n')}\n`)
  }
}
