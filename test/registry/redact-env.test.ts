// Secrets never travel in availability reasons or errors (issue 12, item 13): notify_webhook quoted
// its secret webhook URL into the model-visible error and into list/doctor. The registry blanks the
// values of a tool's requiresEnv variables out of every reason, the host out of every error of the
// tool, and the built-ins do not quote them.
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { doctorCommand, listCommand } from '../../src/cli/commands.js'
import { parseCliArgs } from '../../src/cli/args.js'
import { createHost, defineTool, registry, type Host } from '../../src/index.js'
import { loadPluginFile } from '../../src/loader/load-plugins.js'
import { silentLogger } from '../../src/contract/logger.js'
import { redactEnvValues } from '../../src/registry/redact-env.js'

test.each([
  { why: 'as it is', text: 'bad key sk-live-123456', out: 'bad key [value of API_KEY]' },
  { why: 'JSON-escaped', text: 'got "sk-live-123456"', out: 'got "[value of API_KEY]"' },
  { why: 'twice', text: 'sk-live-123456 and sk-live-123456', out: '[value of API_KEY] and [value of API_KEY]' },
])('redactEnvValues blanks a value $why', ({ text, out }) => {
  expect(redactEnvValues(text, ['API_KEY'], { API_KEY: 'sk-live-123456' })).toBe(out)
})

test('values shorter than 4 characters are left alone (they would blank ordinary words)', () => {
  expect(redactEnvValues('mode on', ['FLAG'], { FLAG: 'on' })).toBe('mode on')
})

describe('through the host', () => {
  let host: Host
  const env: NodeJS.ProcessEnv = {}
  const lines: string[] = []
  const io = { out: (text: string) => lines.push(text), err: (text: string) => lines.push(text) }

  beforeEach(async () => {
    lines.length = 0
    registry.clear()
    await loadPluginFile(path.resolve('plugins/webhook.ts'), registry)
    registry.register(defineTool({
      name: 'quotes_key',
      description: 'A careless tool that quotes its key.',
      parameters: { type: 'object' },
      requiresEnv: ['QUOTED_KEY'],
      check: ({ env: e }) => (e.QUOTED_KEY === 'good-key-value' ? true : { available: false, reason: `key ${e.QUOTED_KEY} was rejected` }),
      handler: (_args, ctx) => {
        throw new Error(`the service refused key ${ctx.settings.env.QUOTED_KEY}`)
      },
    }))
    host = await createHost({ loadPlugins: false, log: silentLogger, env, config: { env_file: '', permissions: { mode: 'bypass' } } })
  })

  afterEach(async () => {
    await host.close()
    registry.clear()
    for (const key of Object.keys(env)) delete env[key]
  })

  test('a webhook URL that is not http(s) hides notify_webhook without quoting it: call, list, doctor', async () => {
    env.TOOLHOST_WEBHOOK_URL = 'ftp://user:pa55word@hooks.example.invalid/T0KEN'
    const [result] = await host.run([{ id: 'n', name: 'notify_webhook', arguments: { message: 'hi' } }])
    expect(result!.error?.code).toBe('E_TOOL_UNAVAILABLE')
    await listCommand(host, parseCliArgs(['list', '--json']), io)
    await doctorCommand(host, parseCliArgs(['doctor']), io)
    const everything = [result!.content, ...lines].join('\n')
    expect(everything).toContain('TOOLHOST_WEBHOOK_URL must be http(s), got ftp:')
    expect(everything).not.toContain('pa55word')
    expect(everything).not.toContain('T0KEN')
  })

  test('a check that quotes its env var is shown with the value blanked out', async () => {
    env.QUOTED_KEY = 'sk-wrong-but-secret'
    const [result] = await host.run([{ id: 'q', name: 'quotes_key', arguments: {} }])
    expect(result!.content).toMatch(/^quotes_key is not available right now \(key \[value of QUOTED_KEY\] was rejected\); use another tool\./)
    const [availability] = await host.registry.explainAvailability(['quotes_key'], { env })
    expect(availability!.reason).toBe('key [value of QUOTED_KEY] was rejected')
  })

  test('a handler error that quotes the value reaches the model blanked out', async () => {
    env.QUOTED_KEY = 'good-key-value'
    const [result] = await host.run([{ id: 'q', name: 'quotes_key', arguments: {} }])
    expect(result!.error).toEqual({ code: 'E_TOOL_FAILED', message: 'quotes_key failed: the service refused key [value of QUOTED_KEY]' })
  })

  test('an unreachable webhook names no part of the secret URL beyond its origin', async () => {
    env.TOOLHOST_WEBHOOK_URL = 'http://127.0.0.1:9/T0KEN-5ecret-value'
    const [result] = await host.run([{ id: 'n', name: 'notify_webhook', arguments: { message: 'hi' } }])
    expect(result!.error?.code).toBe('E_TOOL_FAILED')
    expect(result!.content).toContain('could not reach the webhook at http://127.0.0.1:9')
    expect(result!.content).not.toContain('T0KEN')
  })
})
