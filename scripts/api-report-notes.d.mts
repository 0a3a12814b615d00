// Types of scripts/api-report-notes.mjs (plain JavaScript, run by scripts/api-report.mjs). `ts` is the
// TypeScript API Extractor bundles and `program` one of its programs: the repository's own
// TypeScript has no compiler API to type them with.
export declare function namesExportedByMain(ts: unknown, program: unknown, mainFile: string, isOwn: (fileName: string) => boolean): Set<string>
export declare function leaveToMain(report: string, shared: ReadonlySet<string>, mainName: string): { report: string; shared: string[] }
