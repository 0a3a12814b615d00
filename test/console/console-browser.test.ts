/**
 * The console in a real browser: Debian's Chromium (/usr/bin/chromium) driven by playwright-core.
 * One browser and one host for the file. Handlers wait on deferred gates and the page is read
 * with Playwright's auto-waiting locators, so nothing here sleeps. Screenshots of the main views go
 * to test-artifacts/console/ (gitignored).
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { attachConsole, type AttachedConsole, type ConsoleClient } from '../../src/console/index.js'
import { createDeferred, type Deferred } from '../../src/contract/deferred.js'
import { createHost, defineTool, registry, type Host } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'

const CHROMIUM = '/usr/bin/chromium'
// Debian's chromium package; `npm test` installs it when it runs as root (test/support/provision-system.ts).
const hasChromium = existsSync(CHROMIUM)
const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts/console')
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

const gates = new Map<string, Deferred<void>>()
const gate = (name: string): Deferred<void> => {
  let g = gates.get(name)
  if (!g) gates.set(name, (g = createDeferred<void>()))
  return g
}

let root: string
let profile: string
let host: Host
let hostConsole: AttachedConsole
let context: BrowserContext
let page: Page
const pageProblems: string[] = []
let clients: ConsoleClient[] = []

beforeAll(async () => {
  if (!hasChromium) return
  mkdirSync(ARTIFACTS, { recursive: true })
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-browser-')))
  profile = mkdtempSync(path.join(os.tmpdir(), 'toolhost-chromium-'))
  const pathArgs = { type: 'object', properties: { path: { type: 'string' }, gate: { type: 'string' } }, required: ['path'], additionalProperties: false } as const
  registry.register(defineTool({ name: 'hold_write', description: 'Writes once its gate opens.', parameters: pathArgs, pathScoped: true, handler: async (args) => { if (args.gate) await gate(args.gate).promise; return 'wrote' } }))
  registry.register(defineTool({ name: 'hold_read', description: 'Reads once its gate opens.', parameters: pathArgs, pathScoped: true, readOnly: () => true, handler: async (args) => { if (args.gate) await gate(args.gate).promise; return 'read' } }))
  registry.register(defineTool({ name: 'http_get', description: 'Fetches once its gate opens (rate-limited).', parameters: { type: 'object', properties: { url: { type: 'string' }, gate: { type: 'string' } }, required: ['url'] }, parallelSafe: true, readOnly: () => true, handler: async (args: { gate?: string }) => { if (args.gate) await gate(args.gate).promise; return 'fetched' } }))
  registry.register(defineTool({ name: 'fetch_remote_repository_metadata_with_long_name', description: 'A long name, to see it is never broken.', parameters: { type: 'object' }, readOnly: () => true, parallelSafe: true, handler: () => 'ok' }))
  const greetArgs = {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'Who to greet' },
      times: { type: 'integer', minimum: 1 },
      loud: { type: 'boolean' },
      tone: { enum: ['warm', 'dry'] },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['name'],
    additionalProperties: false,
  } as const
  registry.register(defineTool({ name: 'greet', description: 'Greets someone.', parameters: greetArgs, readOnly: () => true, handler: (args) => {
    const text = `${args.tone === 'dry' ? 'Hello' : 'Hi there'}, ${args.name}${'!'.repeat(args.times ?? 1)}${args.tags ? ` [${args.tags.join(', ')}]` : ''}`
    return args.loud ? text.toUpperCase() : text
  } }))
  registry.register(defineTool({ name: 'drop_table', description: 'Drops a table.', parameters: { type: 'object', properties: { table: { type: 'string' } }, required: ['table'] }, handler: () => 'dropped' }))
  registry.register(defineTool({ name: 'needs_key', description: 'Hidden without a key.', parameters: { type: 'object' }, requiresEnv: ['TOOLHOST_TEST_NO_SUCH_KEY'], handler: () => 'never' }))
  // Writes under batch/ are allowed; any other write asks, and no approver is set: only the console can answer.
  host = await createHost({ root, loadPlugins: false, log: silentLogger, env: {}, config: { env_file: '', dispatch: { max_workers: 4 }, rate_limits: { http_get: { calls: 2, per_ms: 1000, concurrency: 1 } }, permissions: { mode: 'ask', allow: ['hold_write(batch/**)', 'greet'], deny: ['drop_table'] } } })
  hostConsole = await attachConsole(host, { clients: () => clients })
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1366, height: 900 } })
  page = context.pages()[0] ?? (await context.newPage())
  page.setDefaultTimeout(15_000)
  page.on('pageerror', (error) => pageProblems.push(`page error: ${error.message}`))
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 401/.test(message.text())) pageProblems.push(`console error: ${message.text()}`)
  })
}, 60_000)

afterAll(async () => {
  for (const g of gates.values()) g.resolve()
  await context?.close()
  await host?.close()
  registry.clear()
  if (root) rmSync(root, { recursive: true, force: true })
  if (profile) rmSync(profile, { recursive: true, force: true })
})

const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true })

describe.skipIf(!hasChromium)('the console in Chromium (reason: needs chromium; sudo apt-get install -y chromium enables it)', { timeout: 60_000 }, () => {
  test('opens with its token, drops the token from the address, and goes live', async () => {
    const response = await page.goto(hostConsole.url)
    expect(response?.status()).toBe(200)
    expect(new URL(page.url()).search).toBe('') // redirected to / without ?token=
    await page.locator('#connection[data-state="live"]').waitFor()
    await page.locator('#tool-table tr[data-tool="needs_key"]', { hasText: 'hidden: missing env var TOOLHOST_TEST_NO_SUCH_KEY' }).waitFor()
    await page.locator('#limit-list dd', { hasText: 'ask' }).first().waitFor()
  })

  test('a batch: bars appear on worker lanes, a call waiting for another is marked as waiting and says why', async () => {
    const run = host.run([
      { id: 'w1', name: 'hold_write', arguments: { path: 'batch/a.txt', gate: 'w1' } },
      { id: 'r1', name: 'hold_read', arguments: { path: 'batch/a.txt' } },
      { id: 'r2', name: 'hold_read', arguments: { path: 'batch/b.txt', gate: 'r2' } },
    ])
    await page.locator('.bar[data-call="w1"][data-state="running"]').waitFor()
    await page.locator('.bar[data-call="r2"][data-state="running"]').waitFor()
    const waiting = page.locator('.bar[data-call="r1"][data-state="waiting"]')
    await waiting.waitFor()
    expect(await waiting.getAttribute('aria-label')).toMatch(/waits for w1: reads batch\/a\.txt, which w1 writes too/)
    await page.locator('#calls tr[data-call="r1"][data-state="waiting"]', { hasText: 'w1 (reads batch/a.txt, which w1 writes too) — still waiting' }).waitFor()
    await shot('timeline-running')
    gate('w1').resolve()
    gate('r2').resolve()
    await run
    for (const id of ['w1', 'r1', 'r2']) await page.locator(`.bar[data-call="${id}"][data-state="done"]`).waitFor()
    // Keyboard: a bar is a button; Enter shows the call's details, waits included.
    await page.locator('.bar[data-call="r1"]').focus()
    await page.keyboard.press('Enter')
    await page.locator('#call-detail dd', { hasText: 'w1 (reads batch/a.txt, which w1 writes too)' }).waitFor()
    // Its arguments and result, as text.
    await page.locator('#call-detail pre.call-text', { hasText: '{"path":"batch/a.txt"}' }).waitFor()
    await page.locator('#call-detail pre.call-text', { hasText: /^read$/ }).waitFor()
    await shot('timeline-done')
  })

  test('rate limits: in the limits in force, in the legend, and a call waiting for a rate slot says which and how fast', async () => {
    const limit = page.locator('#limit-list dt', { hasText: 'rate_limits.http_get' })
    await limit.waitFor()
    expect(await limit.locator('xpath=following-sibling::dd[1]').textContent()).toBe('2 per s, 1 at once')
    expect(await page.locator('.legend').textContent()).toContain('waiting for a rate slot')
    // One at once: h1 holds the slot until its gate opens, so h2 waits for the rate slot, not a worker.
    const run = host.run([
      { id: 'h1', name: 'http_get', arguments: { url: 'https://example.test/1', gate: 'h1' } },
      { id: 'h2', name: 'http_get', arguments: { url: 'https://example.test/2' } },
    ])
    await page.locator('.bar[data-call="h1"][data-state="running"]').waitFor()
    const waiting = page.locator('.bar[data-call="h2"][data-state="rate"]')
    await waiting.waitFor()
    expect(await waiting.getAttribute('aria-label')).toContain('waits for a rate slot: http_get, 2 per s, 1 at once')
    await page.locator('#calls tr[data-call="h2"][data-state="rate"]', { hasText: 'waiting for a rate slot: http_get, 2 per s, 1 at once' }).waitFor()
    await shot('rate-waiting')
    gate('h1').resolve()
    await run
    await page.locator('.bar[data-call="h2"][data-state="done"]').click()
    await page.locator('#call-detail dd', { hasText: 'waited for a rate slot: http_get, 2 per s, 1 at once' }).waitFor()
  })

  test('tool names are never broken mid-word, even in a narrow window (tools table, calls table, details)', async () => {
    const long = 'fetch_remote_repository_metadata_with_long_name'
    await host.run([{ id: 'long1', name: long, arguments: {} }])
    await page.locator('#calls tr[data-call="long1"]').waitFor()
    await page.setViewportSize({ width: 480, height: 900 })
    try {
      await page.locator('#calls tr[data-call="long1"] button.link').click()
      await page.locator('#call-detail .tool-name', { hasText: long }).waitFor()
      // An inline element broken across lines has one client rect per line.
      const lines = await page.locator('.tool-name').evaluateAll((els) => els.map((el) => [el.textContent, el.getClientRects().length]))
      const shown = lines.filter(([name]) => name === long)
      expect(shown.length).toBeGreaterThanOrEqual(3) // tools table, calls table, details
      expect(lines.filter(([, rects]) => rects !== 1)).toEqual([])
      await shot('narrow-tool-names')
    } finally {
      await page.setViewportSize({ width: 1366, height: 900 })
    }
  })

  test('zoom on the timeline: 4× makes the lanes four times as wide and the bars with them; the frame scrolls', async () => {
    const body = page.locator('.timeline-body')
    const bar = page.locator('.bar[data-call="w1"]')
    await page.locator('#timeline-range').selectOption('all')
    await bar.waitFor()
    const before = await bar.evaluate((el) => el.getBoundingClientRect().width)
    await page.locator('#timeline-zoom').selectOption('4')
    const sizes = await body.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }))
    expect(sizes.scroll / sizes.client).toBeCloseTo(4, 1)
    // A bar is placed in percent of the lanes: 4× as wide, unless it hit its minimum width before.
    expect(await bar.evaluate((el) => el.getBoundingClientRect().width)).toBeGreaterThan(before * 3.5)
    await shot('timeline-zoomed')
    await page.locator('#timeline-zoom').selectOption('1')
    await page.locator('#timeline-range').selectOption('burst')
    expect(await page.locator('.lanes').evaluate((el) => el.getBoundingClientRect().width)).toBeCloseTo(sizes.client, -1)
  })

  test('availability per connected client: each client\'s row says how many available tools it sees and which it does not', async () => {
    clients = [
      { name: 'asks-people', version: '1.0', elicitation: true, calls: 0, withheld: [] },
      { name: 'cannot-ask', version: '2.0', elicitation: false, calls: 0, withheld: ['hold_read'] },
    ]
    const available = await page.locator('#tool-table tr[data-available="true"]').count()
    await page.locator('#client-table tr[data-client="asks-people"]', { hasText: `${available} of ${available} available tools` }).waitFor()
    await page.locator('#client-table tr[data-client="cannot-ask"]', { hasText: `${available - 1} of ${available} available tools; not hold_read (it cannot be asked)` }).waitFor()
    clients = []
  })

  test('approve a call from the console (keyboard) and see it run', async () => {
    const run = host.run([{ id: 'ask1', name: 'hold_write', arguments: { path: 'elsewhere/x.txt' } }])
    const item = page.locator('#approval-list li[data-call="ask1"]')
    await item.waitFor()
    await item.locator('.subject', { hasText: 'elsewhere/x.txt' }).waitFor()
    await page.locator('.bar[data-call="ask1"][data-state="approval"]').waitFor()
    await shot('approval-waiting')
    await item.getByRole('button', { name: 'Approve', exact: true }).focus()
    await page.keyboard.press('Enter')
    const [result] = await run
    expect(result).toMatchObject({ id: 'ask1', ok: true, content: 'wrote' })
    await page.locator('.bar[data-call="ask1"][data-state="done"]').waitFor()
    await item.waitFor({ state: 'detached' })
    await page.locator('#approvals-empty:not([hidden])').waitFor()
  })

  test('deny a call from the console with a reason the model reads', async () => {
    const run = host.run([{ id: 'ask2', name: 'hold_write', arguments: { path: 'elsewhere/y.txt' } }])
    const item = page.locator('#approval-list li[data-call="ask2"]')
    await item.waitFor()
    await item.getByRole('textbox').fill('not in that folder')
    await item.getByRole('button', { name: 'Deny' }).click()
    const [result] = await run
    expect(result).toMatchObject({ ok: false, error: { code: 'E_DENIED' } })
    expect(result!.content).toMatch(/the user denied this call: not in that folder/)
  })

  test('a running process shows its live log; Kill ends it', async () => {
    const processes = host.services.processes
    const spawned = await processes.spawn('echo ready-to-die; sleep 60', { cwd: root })
    try {
      const row = page.locator(`#process-table tr[data-id="${spawned.id}"]`)
      await row.locator('.status', { hasText: 'running' }).waitFor()
      await row.getByRole('button', { name: 'Show log' }).click()
      await page.locator('#process-tail', { hasText: 'ready-to-die' }).waitFor()
      await shot('processes')
      await row.getByRole('button', { name: `Kill ${spawned.id}` }).click()
      await row.locator('.status', { hasText: /ended by SIG|exited/ }).waitFor()
      expect((await processes.poll(spawned.id)).status).toBe('exited')
    } finally {
      if ((await processes.poll(spawned.id)).status === 'running') await processes.kill(spawned.id)
    }
  })

  test('call a tool from the form built from its schema: typed inputs, a JSON box for the rest; the result shows, and the call details too', async () => {
    await page.locator('#tool-table tr[data-tool="greet"]').getByRole('button', { name: 'Call greet from the form' }).click()
    const form = page.locator('#call-form')
    await form.getByLabel('name (required)').fill('Ada')
    await form.getByText('Who to greet').waitFor()
    await form.getByLabel('times').fill('2')
    await form.getByLabel('loud').selectOption('true')
    await form.getByLabel('tone').selectOption({ label: 'dry' })
    await form.getByLabel('tags (JSON)').fill('["math", "engines"]')
    await shot('call-form')
    await form.getByRole('button', { name: 'Call', exact: true }).click()
    await page.locator('#call-result', { hasText: 'HELLO, ADA!! [MATH, ENGINES]' }).waitFor()
    await page.locator('#call-status', { hasText: /call console-\d+: ok/ }).waitFor()
    // The call is on the timeline and its details are shown: the arguments the form sent, the result.
    await page.locator('#call-detail pre.call-text', { hasText: '{"loud":true,"name":"Ada","tags":["math","engines"],"times":2,"tone":"dry"}' }).waitFor()
    await page.locator('#call-detail pre.call-text', { hasText: 'HELLO, ADA!! [MATH, ENGINES]' }).waitFor()
    await shot('call-form-result')
  })

  test('a call from the form is authorised like any: a deny rule refuses it and the form says which rule to change (worded for a person); bad JSON is never sent', async () => {
    await page.locator('#call-tool').selectOption('drop_table')
    const form = page.locator('#call-form')
    await form.getByLabel('table').fill('users')
    await form.getByRole('button', { name: 'Call', exact: true }).click()
    const result = page.locator('#call-result[data-ok="false"]')
    await result.waitFor()
    expect(await result.textContent()).toBe('drop_table did not run: the permission rule permissions.deny[0] "drop_table" denies it. To run it, remove or narrow that rule in config.yaml')
    await page.locator('#call-status', { hasText: /call console-\d+: E_DENIED/ }).waitFor()
    await page.locator('#call-detail dd', { hasText: 'drop_table did not run: the permission rule permissions.deny[0]' }).first().waitFor()
    await shot('call-form-denied')
    // A JSON box that does not parse stops the call in the page.
    await page.locator('#call-tool').selectOption('greet')
    await form.getByLabel('name (required)').fill('Ada')
    await form.getByLabel('tags (JSON)').fill('[oops')
    await form.getByRole('button', { name: 'Call', exact: true }).click()
    await page.locator('#call-status', { hasText: 'tags is not valid JSON' }).waitFor()
  })

  test('the page ran with no script error and no CSP violation', () => {
    expect(pageProblems).toEqual([])
  })

  test('a wrong or missing token gets nothing: 401 for the page, the events and the actions', async () => {
    await context.clearCookies()
    const origin = new URL(hostConsole.url).origin
    const wrong = await page.goto(`${origin}/?token=wrong-token-0000`)
    expect(wrong?.status()).toBe(401)
    expect(await page.locator('#approvals, #timeline, #processes').count()).toBe(0)
    const missing = await page.goto(`${origin}/`)
    expect(missing?.status()).toBe(401)
    const statuses = await page.evaluate(async () => {
      const events = await fetch('/console/events')
      const action = await fetch('/console/api/approvals/a1', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"decision":"allow-once"}' })
      const kill = await fetch('/console/api/processes/proc_x/kill', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      return [events.status, action.status, kill.status]
    })
    expect(statuses).toEqual([401, 401, 401])
  })
})
