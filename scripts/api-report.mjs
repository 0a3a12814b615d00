#!/usr/bin/env node
// The API report of each entry point of package.json's `exports` (`toolhost` and every subpath),
// committed under api/ so a change to the public surface shows in review. API Extractor reads the
// entry's built .d.ts and writes every exported name with its declaration; this script adds the
// names that are values at run time (API Extractor prints `export class Host` alike whether Host
// is exported as a value or with `export type`), and drops the line numbers of its notes (they
// would change with every comment edited above them).
//
// A subpath's ae-forgotten-export note about a type the main entry exports is satisfied (the rule is
// in scripts/api-report-notes.mjs): API Extractor cannot share symbols between entries, and users
// import such a type from `toolhost`, so the note leaves the report and the type is listed once at
// its top (`// Types from "toolhost" used here: Host, …`). The main entry's exports are read from its
// built .d.ts in the subpath's own program, declaration by declaration; a note whose symbol could be
// another declaration of that name, or that no entry exports, stays (the API report test fails on it).
//
//   node scripts/api-report.mjs --local     write api/*.api.md (npm run api builds first)
//   node scripts/api-report.mjs             compare only: exit 1 naming each report that differs,
//                                           with the difference (test/package/api-report.test.ts)
//   --dist DIR     the build to read (default: dist/), src/ beneath it (the reports call it dist/)
//   --reports DIR  the committed reports (default: api/)
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createRequire } from 'node:module'
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor'
import { leaveToMain, namesExportedByMain } from './api-report-notes.mjs'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const { values: flags } = parseArgs({ options: { local: { type: 'boolean', default: false }, dist: { type: 'string' }, reports: { type: 'string' } } })
const dist = path.resolve(flags.dist ?? path.join(repo, 'dist'))
const reports = path.resolve(flags.reports ?? path.join(repo, 'api'))
const manifest = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8'))
const inDist = (target) => path.join(dist, target.replace(/^\.\/dist\//, ''))
// The TypeScript API Extractor compiles with, for reading its program.
const ts = createRequire(createRequire(import.meta.url).resolve('@microsoft/api-extractor'))('typescript')

// `.` is toolhost (api/toolhost.api.md), `./workspace` is toolhost/workspace (api/toolhost-workspace.api.md).
const entries = Object.entries(manifest.exports)
  .filter(([key]) => key !== './package.json')
  .map(([key, target]) => ({
    name: key === '.' ? manifest.name : `${manifest.name}${key.slice(1)}`,
    file: `${key === '.' ? manifest.name : `${manifest.name}-${key.slice(2).replaceAll('/', '-')}`}.api.md`,
    types: inDist(target.types),
    module: inDist(target.import),
  }))
const main = entries.find((entry) => entry.name === manifest.name)

/** API Extractor's report of one entry, as it writes it. */
function extract(entry, folder) {
  const config = ExtractorConfig.prepare({
    configObjectFullPath: path.join(repo, 'api-extractor.json'),
    packageJsonFullPath: path.join(repo, 'package.json'),
    configObject: {
      projectFolder: repo,
      mainEntryPointFilePath: entry.types,
      compiler: {
        overrideTsconfig: {
          compilerOptions: { target: 'ES2022', lib: ['ES2023'], module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], strict: true, skipLibCheck: true },
          files: [entry.types],
        },
      },
      apiReport: { enabled: true, reportFileName: entry.file, reportFolder: folder, reportTempFolder: path.join(folder, 'work') },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'error' } },
        extractorMessageReporting: {
          default: { logLevel: 'error' },
          'ae-missing-release-tag': { logLevel: 'none' },
          'ae-undocumented': { logLevel: 'none' },
          // A type the entry's signatures use but it does not export is noted in the report itself;
          // for a subpath, extract drops the notes the main entry satisfies. The API report test
          // holds every report to none left.
          'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: true },
        },
        // The doc comments are prose for people, not TSDoc.
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
  })
  // A subpath's program holds the main entry too, so the declarations it exports can be told apart.
  const compilerState = CompilerState.create(config, entry === main ? {} : { additionalEntryPoints: [main.types] })
  // localBuild: the report goes to `folder` (a scratch one); this script compares it itself.
  const result = Extractor.invoke(config, {
    compilerState,
    localBuild: true,
    messageCallback: (message) => {
      if (message.category === 'console') message.handled = true
    },
  })
  if (!result.succeeded) throw new Error(`API Extractor failed on ${entry.name} (${result.errorCount} errors, above)`)
  const report = readFileSync(path.join(folder, entry.file), 'utf8')
  if (entry === main) return report
  const own = `${dist}${path.sep}`
  const shared = namesExportedByMain(ts, compilerState.program, main.types, (file) => path.resolve(file).startsWith(own))
  return leaveToMain(report, shared, main.name).report
}

/**
 * The report as committed: API Extractor's, with its notes naming files as dist/… (relative to the
 * package, or absolute for a build elsewhere) without line numbers, then the run-time values.
 */
async function reportOf(entry, folder) {
  const text = extract(entry, folder).replace(/^\/\/ (\S+?\.d\.ts):\d+:\d+ - /gm, (_, file) => `// dist/${path.relative(dist, path.resolve(repo, file)).replaceAll(path.sep, '/')} - `)
  const values = Object.keys(await import(pathToFileURL(entry.module).href)).sort()
  const list = values.map((name) => `    ${name}`).join('\n')
  return `${text.trimEnd()}\n\n## Values\n\n\`import * as entry from '${entry.name}'\` holds these ${values.length} names at run time; every other name above is a type only.\n\n\`\`\`\n${list}\n\`\`\`\n`
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'toolhost-api-report-'))
const differing = []
try {
  mkdirSync(reports, { recursive: true })
  for (const entry of entries) {
    const report = await reportOf(entry, scratch)
    const committed = path.join(reports, entry.file)
    const before = existsSync(committed) ? readFileSync(committed, 'utf8') : undefined
    if (before === report) continue
    if (flags.local) {
      writeFileSync(committed, report)
      console.log(`api: ${path.relative(process.cwd(), committed)} ${before === undefined ? 'written' : 'updated'} (${entry.name})`)
    } else {
      differing.push(entry.name)
      const fresh = path.join(scratch, `fresh-${entry.file}`)
      writeFileSync(fresh, report)
      const diff = before === undefined ? { stdout: '(no committed report)' } : spawnSync('git', ['diff', '--no-index', '--no-color', committed, fresh], { encoding: 'utf8' })
      console.log(`api: the public surface of ${entry.name} is not what ${path.relative(process.cwd(), committed)} says:\n${diff.stdout || diff.stderr}`)
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
if (differing.length > 0) {
  console.error(`api: ${differing.length} report${differing.length === 1 ? '' : 's'} out of date (${differing.join(', ')}); if the change is meant, run npm run api and commit api/`)
  process.exit(1)
}
console.log(`api: ${entries.length} reports ${flags.local ? 'up to date' : 'match'}: ${entries.map((e) => e.name).join(', ')}`)
