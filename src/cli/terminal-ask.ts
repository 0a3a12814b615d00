import { createInterface } from 'node:readline/promises'
import type { AskHandler } from '../contract/types.js'
import { askForm } from './terminal-form.js'

/**
 * Asks on the terminal (prompts on stderr, answers from stdin). Only for interactive sessions. A
 * text question takes one line (a choice by its number or in the person's own words); a structured
 * question (`schema`) is a form, one prompt per field (see `askForm`).
 */
export const askOnTerminal: AskHandler = async (request, signal) => {
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    if (request.schema) {
      return await askForm(request.question, request.schema, { prompt: (text) => rl.question(text, { signal }), say: (text) => void process.stderr.write(text) })
    }
    const choices = request.choices && request.choices.length > 0 ? `\n${request.choices.map((c, i) => `  ${i + 1}) ${c}`).join('\n')}\n` : ''
    const answer = await rl.question(`\n${request.question}${choices}\n> `, { signal })
    const n = Number(answer.trim())
    if (request.choices && Number.isInteger(n) && n >= 1 && n <= request.choices.length) return request.choices[n - 1]!
    return answer.trim()
  } finally {
    rl.close()
  }
}

/** True when a person can answer on this terminal. */
export function isInteractive(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY)
}
