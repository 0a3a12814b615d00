// What both engines hold a search to, so they give the same answers.

/** Files over this size are skipped in content searches. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024
/** A line is shown up to this many characters, then "…". */
export const MAX_LINE_CHARS = 300
/** Folders never searched, by name at any depth below the start. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['node_modules', '.git'])
