import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { ToolhostError } from '../contract/errors.js'

/**
 * Loads a .env file into `env` without overriding variables already set (the real environment
 * wins). Returns the names it set. A missing file is not an error; one that cannot be read (a
 * folder, no permission) is a configuration fault naming the file.
 *
 * @example
 * loadEnvFile(path.join(root, '.env')) // ['TOOLHOST_WEBHOOK_URL'] when only the file set it
 */
export function loadEnvFile(file: string, env: NodeJS.ProcessEnv = process.env): string[] {
  if (!existsSync(file)) return []
  let text: Buffer
  try {
    text = readFileSync(file)
  } catch (error) {
    throw new ToolhostError('E_CONFIG_INVALID', `env_file: cannot read ${file}: ${(error as Error).message}; fix the file or set env_file: "" to turn it off`, { cause: error })
  }
  // dotenv is loaded only when there is a file to parse: most start-ups have none.
  const { parse } = createRequire(import.meta.url)('dotenv') as typeof import('dotenv')
  const parsed = parse(text)
  const set: string[] = []
  for (const [name, value] of Object.entries(parsed)) {
    if (!Object.hasOwn(env, name) || env[name] === undefined) {
      env[name] = value
      set.push(name)
    }
  }
  return set
}
