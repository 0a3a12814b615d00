import { existsSync, readFileSync } from 'node:fs'
import { parse } from 'dotenv'

/**
 * Loads a .env file into `env` without overriding variables already set (the real environment
 * wins). Returns the names it set. A missing file is not an error.
 */
export function loadEnvFile(file: string, env: NodeJS.ProcessEnv = process.env): string[] {
  if (!existsSync(file)) return []
  const parsed = parse(readFileSync(file))
  const set: string[] = []
  for (const [name, value] of Object.entries(parsed)) {
    if (env[name] === undefined) {
      env[name] = value
      set.push(name)
    }
  }
  return set
}
