// Which toolsets `plugins.builtins` may name (the config schema checks them); the loader turns them
// into plugin files (loader/builtin-plugins.ts).

/** Each built-in toolset and the plugin files (names without extension) that register it. */
export const BUILTIN_TOOLSETS: Readonly<Record<string, readonly string[]>> = {
  basics: ['basics'],
  files: ['files', 'search'],
  interaction: ['clarify'],
  notify: ['webhook'],
  terminal: ['terminal'],
  web: ['web-search'],
}
