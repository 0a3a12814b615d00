import type { AskAnswer, AskSchema } from '../contract/types.js'

/** How a form talks to the person: a prompt that resolves with one line, and plain output. */
export interface FormIo {
  prompt(text: string): Promise<string>
  say(text: string): void
}

interface Choice {
  value: string
  label: string
}

type Field =
  | { kind: 'one'; choices: Choice[] }
  | { kind: 'many'; choices: Choice[] }
  | { kind: 'boolean' }
  | { kind: 'number'; integer: boolean }
  | { kind: 'string' }

/**
 * Asks a structured question (`ctx.ask({ question, schema })`) on a terminal: one prompt per field in
 * the schema's order, its title and description shown, enum choices listed by number (titles from
 * `oneOf`/`anyOf` or `enumNames`), defaults shown and taken on an empty line, required fields asked
 * again until answered, and every answer checked and converted to its type. An optional field left
 * empty without a default is left out.
 *
 * @example
 * await askForm('Deploy?', { type: 'object', properties: { env: { type: 'string', enum: ['dev', 'prod'], default: 'dev' } } }, io)
 * // Deploy?
 * // env
 * //   1) dev
 * //   2) prod
 * // choose a number (default: dev) > 2        → { env: 'prod' }
 */
export async function askForm(question: string, schema: AskSchema, io: FormIo): Promise<AskAnswer> {
  io.say(`\n${question}\n`)
  const required = new Set(schema.required ?? [])
  const answer: AskAnswer = {}
  for (const [name, property] of Object.entries(schema.properties)) {
    const field = fieldOf(property)
    const title = typeof property.title === 'string' ? property.title : name
    const description = typeof property.description === 'string' ? ` — ${property.description}` : ''
    io.say(`${title}${description}${required.has(name) ? ' (required)' : ''}\n`)
    if (field.kind === 'one' || field.kind === 'many') io.say(field.choices.map((c, i) => `  ${i + 1}) ${c.label}${c.label === c.value ? '' : ` [${c.value}]`}\n`).join(''))
    const fallback = property.default
    for (;;) {
      const line = (await io.prompt(`${hintOf(field)}${fallback === undefined ? '' : ` (default: ${showDefault(fallback, field)})`} > `)).trim()
      if (line === '') {
        if (fallback !== undefined) answer[name] = fallback as AskAnswer[string]
        if (fallback !== undefined || !required.has(name)) break
        io.say('  this one is required\n')
        continue
      }
      const parsed = parseAnswer(line, field, property)
      if (typeof parsed === 'object' && parsed !== null && 'problem' in parsed) {
        io.say(`  ${parsed.problem}\n`)
        continue
      }
      answer[name] = parsed
      break
    }
  }
  return answer
}

function fieldOf(property: Record<string, unknown>): Field {
  if (property.type === 'array') {
    const items = (property.items ?? {}) as Record<string, unknown>
    return { kind: 'many', choices: choicesOf(items) }
  }
  const choices = choicesOf(property)
  if (choices.length > 0) return { kind: 'one', choices }
  if (property.type === 'boolean') return { kind: 'boolean' }
  if (property.type === 'number' || property.type === 'integer') return { kind: 'number', integer: property.type === 'integer' }
  return { kind: 'string' }
}

function choicesOf(schema: Record<string, unknown>): Choice[] {
  const titled = (Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined) as Array<{ const?: unknown; title?: unknown }> | undefined
  if (titled) return titled.map((o) => ({ value: String(o.const), label: typeof o.title === 'string' ? o.title : String(o.const) }))
  if (!Array.isArray(schema.enum)) return []
  const names = Array.isArray(schema.enumNames) ? (schema.enumNames as unknown[]) : []
  return schema.enum.map((v, i) => ({ value: String(v), label: typeof names[i] === 'string' ? (names[i] as string) : String(v) }))
}

function hintOf(field: Field): string {
  switch (field.kind) {
    case 'one':
      return 'choose a number'
    case 'many':
      return 'choose numbers, separated by commas'
    case 'boolean':
      return 'y/n'
    case 'number':
      return field.integer ? 'a whole number' : 'a number'
    case 'string':
      return 'answer'
  }
}

function showDefault(value: unknown, field: Field): string {
  if (field.kind === 'boolean') return value === true ? 'y' : 'n'
  return Array.isArray(value) ? value.join(', ') : String(value)
}

function parseAnswer(line: string, field: Field, property: Record<string, unknown>): AskAnswer[string] | { problem: string } {
  switch (field.kind) {
    case 'one': {
      const choice = pick(line, field.choices)
      return choice ?? { problem: `pick one of 1-${field.choices.length}` }
    }
    case 'many': {
      const picked = line.split(',').map((part) => pick(part.trim(), field.choices))
      if (picked.some((p) => p === undefined)) return { problem: `pick numbers from 1-${field.choices.length}, separated by commas` }
      const values = [...new Set(picked as string[])]
      const min = typeof property.minItems === 'number' ? property.minItems : 0
      const max = typeof property.maxItems === 'number' ? property.maxItems : Infinity
      if (values.length < min || values.length > max) return { problem: `pick ${max === Infinity ? `at least ${min}` : `${min} to ${max}`}` }
      return values
    }
    case 'boolean':
      if (/^(y|yes|true)$/i.test(line)) return true
      if (/^(n|no|false)$/i.test(line)) return false
      return { problem: 'answer y or n' }
    case 'number': {
      const n = Number(line)
      if (!Number.isFinite(n) || (field.integer && !Number.isInteger(n))) return { problem: `that is not ${field.integer ? 'a whole number' : 'a number'}` }
      if (typeof property.minimum === 'number' && n < property.minimum) return { problem: `the smallest allowed is ${property.minimum}` }
      if (typeof property.maximum === 'number' && n > property.maximum) return { problem: `the largest allowed is ${property.maximum}` }
      return n
    }
    case 'string':
      if (typeof property.minLength === 'number' && line.length < property.minLength) return { problem: `at least ${property.minLength} characters` }
      if (typeof property.maxLength === 'number' && line.length > property.maxLength) return { problem: `at most ${property.maxLength} characters` }
      return line
  }
}

function pick(text: string, choices: readonly Choice[]): string | undefined {
  const n = Number(text)
  if (Number.isInteger(n) && n >= 1 && n <= choices.length) return choices[n - 1]!.value
  return choices.find((c) => c.value === text || c.label === text)?.value
}
