// The console's other panels: approvals, processes, clients, tools, limits. Lists keyed by id keep
// their elements (and so keyboard focus) across updates.
import { formatMs, h, replaceChildren, row, setText } from './dom.js'

/** Calls waiting for a decision, each with Approve / Allow for this session / Deny. */
export function createApprovalsPanel(section, { decide }) {
  const list = section.querySelector('#approval-list')
  const empty = section.querySelector('#approvals-empty')
  const heading = section.querySelector('h2')
  const items = new Map()

  function render(approvals, enabled) {
    const ids = new Set(approvals.map((a) => a.id))
    let focusLost = false
    for (const [id, item] of items) {
      if (ids.has(id)) continue
      focusLost ||= item.el.contains(document.activeElement)
      item.el.remove()
      items.delete(id)
    }
    for (const approval of approvals) if (!items.has(approval.id)) list.append(makeItem(approval))
    empty.hidden = approvals.length > 0
    setText(empty, enabled ? 'No call is waiting for approval.' : 'Approvals from the console are off (permissions.console_approvals.enabled).')
    // A keyboard user who just answered goes on to the next request, or back to the heading.
    if (focusLost) (items.values().next().value?.el.querySelector('button') ?? heading).focus()
    tick()
  }

  function makeItem(approval) {
    const status = h('p', { class: 'action-status', role: 'status' })
    const countdown = h('p', { class: 'countdown' })
    const message = h('input', { type: 'text', class: 'deny-message', 'aria-label': `Why you deny ${approval.callId} (optional, told to the model)`, placeholder: 'why (optional, with Deny)' })
    const buttons = []
    const act = async (decision) => {
      for (const b of buttons) b.disabled = true
      setText(status, 'sending…')
      const error = await decide(approval.id, decision, decision === 'deny' ? message.value : undefined)
      if (error) {
        setText(status, error)
        for (const b of buttons) b.disabled = false
      }
    }
    buttons.push(
      h('button', { type: 'button', class: 'approve', text: 'Approve', onclick: () => act('allow-once') }),
      h('button', { type: 'button', class: 'approve-session', text: 'Allow for this session', onclick: () => act('allow-session') }),
      h('button', { type: 'button', class: 'deny', text: 'Deny', onclick: () => act('deny') }),
    )
    const el = h('li', { class: 'approval', dataset: { call: approval.callId, id: approval.id } },
      h('h3', {}, h('span', { class: 'tool tool-name', text: approval.tool }), ' ', h('span', { class: 'call-id', text: `call ${approval.callId}` }), approval.destructive ? h('span', { class: 'badge destructive', text: 'destructive' }) : null),
      h('p', { class: 'subject', text: approval.subject }),
      h('p', { class: 'reason', text: approval.reason }),
      h('details', {}, h('summary', { text: 'arguments' }), h('pre', { text: approval.args })),
      countdown,
      h('div', { class: 'actions' }, buttons, message),
      status,
    )
    items.set(approval.id, { el, approval, countdown })
    return el
  }

  function tick() {
    for (const { approval, countdown } of items.values()) setText(countdown, `denied in ${formatMs(Math.max(0, approval.deadline - Date.now()))} unless answered`)
  }

  return { render, tick }
}

/** Processes with status, a Kill button for running ones, and a live tail of the chosen one's log. */
export function createProcessesPanel(section, { kill }) {
  const tbody = section.querySelector('#process-table tbody')
  const empty = section.querySelector('#processes-empty')
  const logTitle = section.querySelector('#process-log-title')
  const tail = section.querySelector('#process-tail')
  const rows = new Map()
  let shown = null
  let latest = []

  function render(processes) {
    latest = processes
    const ids = new Set(processes.map((p) => p.id))
    for (const [id, r] of rows) {
      if (ids.has(id)) continue
      r.tr.remove()
      rows.delete(id)
    }
    for (const p of processes) {
      let r = rows.get(p.id)
      if (!r) {
        r = makeRow(p)
        rows.set(p.id, r)
        tbody.prepend(r.tr)
      }
      r.tr.dataset.status = p.status
      setText(r.status, statusText(p))
      setText(r.uptime, formatMs(uptimeOf(p)))
      r.kill.hidden = p.status !== 'running'
      r.show.setAttribute('aria-pressed', String(shown === p.id))
    }
    empty.hidden = processes.length > 0
    tbody.closest('table').hidden = processes.length === 0
    renderTail()
  }

  function makeRow(p) {
    const status = h('span', { class: 'status' })
    const uptime = h('span')
    const show = h('button', { type: 'button', text: 'Show log', 'aria-pressed': 'false', onclick: () => { shown = shown === p.id ? null : p.id; render(latest) } })
    const killStatus = h('span', { class: 'action-status', role: 'status' })
    const killButton = h('button', { type: 'button', class: 'kill', text: 'Kill', 'aria-label': `Kill ${p.id}`, onclick: async () => {
      killButton.disabled = true
      setText(killStatus, 'killing…')
      const error = await kill(p.id)
      setText(killStatus, error ?? '')
      killButton.disabled = false
    } })
    const tr = row([p.id, h('code', { text: p.command }), String(p.pid), status, uptime, h('span', { class: 'actions' }, show, killButton, killStatus)], { dataset: { id: p.id } })
    return { tr, status, uptime, show, kill: killButton }
  }

  function renderTail() {
    const p = latest.find((x) => x.id === shown)
    section.querySelector('#process-log').hidden = !p
    if (!p) return
    setText(logTitle, `${p.id}: ${p.command} (${statusText(p)})`)
    setText(tail, p.tail === '' ? '(no output yet)' : p.tail)
  }

  // Uptime of running processes grows between updates.
  function tick() {
    for (const p of latest) if (p.status === 'running') setText(rows.get(p.id)?.uptime ?? document.createElement('span'), formatMs(uptimeOf(p)))
  }

  return { render, tick }
}

function uptimeOf(p) {
  return p.status === 'running' ? Math.max(p.uptimeMs, Date.now() - Date.parse(p.startedAt)) : p.uptimeMs
}

function statusText(p) {
  if (p.status === 'running') return 'running'
  if (p.signal) return `ended by ${p.signal}`
  return p.exitCode === null ? 'exited' : `exited ${p.exitCode}`
}

/** The MCP clients, each with the tools it is offered: the available ones minus those it never sees. */
export function renderClients(section, clients, tools) {
  section.querySelector('#clients-empty').hidden = clients.length > 0
  section.querySelector('#client-table').hidden = clients.length === 0
  replaceChildren(section.querySelector('#client-table tbody'), clients.map((c) => row([c.name, c.version, c.elicitation ? 'yes' : 'no (approvals go to the console)', String(c.calls), seenText(c, tools)], { dataset: { client: c.name } })))
}

function seenText(client, tools) {
  const available = tools.filter((t) => t.available)
  const withheld = new Set(client.withheld ?? [])
  const missing = available.filter((t) => withheld.has(t.name)).map((t) => t.name)
  const seen = available.length - missing.length
  return `${seen} of ${available.length} available tools${missing.length > 0 ? `; not ${missing.join(', ')} (it cannot be asked)` : ''}`
}

export function renderTools(section, tools, choose) {
  const available = tools.filter((t) => t.available).length
  setText(section.querySelector('#tools-summary'), `${available} of ${tools.length} tools available`)
  replaceChildren(section.querySelector('#tool-table tbody'), tools.map((t) => row([
    h('code', { class: 'tool-name', text: t.name }),
    t.toolset,
    h('span', { class: t.available ? 'available' : 'hidden-tool', text: t.available ? 'available' : `hidden: ${t.reason ?? 'unavailable'}` }),
    h('span', { class: 'description', text: t.description }),
    h('button', { type: 'button', class: 'call-tool', text: 'Call…', 'aria-label': `Call ${t.name} from the form`, onclick: () => choose(t.name) }),
  ], { dataset: { tool: t.name, available: String(t.available) } })))
}

export function renderLimits(section, limits) {
  replaceChildren(section.querySelector('#limit-list'), limits.flatMap((l) => [h('dt', {}, h('code', { text: l.key })), h('dd', { text: l.value })]))
}
