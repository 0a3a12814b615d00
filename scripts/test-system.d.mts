// Types of scripts/test-system.mjs (plain JavaScript, so .ci/run can run it before `npm ci`).
export interface SystemPackage {
  pkg: string
  present: () => boolean
  usedBy: string
}
export declare const SYSTEM_PACKAGES: SystemPackage[]
export declare function enableCommand(pkg: string): string
export declare function missingPackages(): SystemPackage[]
export declare function provisionSystem(options?: { log?: (line: string) => void }): { installed: SystemPackage[]; missing: SystemPackage[]; why?: string }
