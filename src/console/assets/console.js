// The console page: one server-sent-events stream (a snapshot, then changes), the panels, and the
// actions (answer an approval, kill a process, call a tool), each a POST with the CSRF header.
import { createCallForm } from './call-form.js'
import { setText } from './dom.js'
import { createApprovalsPanel, createProcessesPanel, renderClients, renderLimits, renderTools } from './panels.js'
import { createTimelineView, renderCallDetail } from './timeline-view.js'

const MAX_CALLS = 2000
const state = { tools: [], clients: [], csrf: '', calls: new Map(), approvals: [], approvalsEnabled: true, processes: [], selected: null, clock: { host: 0, at: 0 } }

const $ = (selector) => document.querySelector(selector)
const connection = $('#connection')
const detail = $('#call-detail')

const timeline = createTimelineView($('#timeline'), { onSelect: (key) => { state.selected = key; renderDetail(); detail.focus() } })
const approvals = createApprovalsPanel($('#approvals'), { decide })
const processes = createProcessesPanel($('#processes'), { kill })
const callForm = createCallForm($('#call'), { call: callTool, onAnswer: (answer) => follow(answer.id) })

// The form's call, once answered, is shown in the call details (its record may come before or after the answer).
let following = null
function follow(id) {
  following = id
  selectFollowed()
}
function selectFollowed() {
  if (following === null) return
  const record = [...state.calls.values()].reverse().find((c) => c.id === following)
  if (!record) return
  following = null
  state.selected = record.key
  renderDetail()
}

/** The host's clock now, from the last time it was sent. */
function hostNow() {
  return state.clock.host + (performance.now() - state.clock.at)
}

function setClock(now) {
  state.clock = { host: now, at: performance.now() }
}

function upsertCalls(calls) {
  for (const call of calls) state.calls.set(call.key, call)
  if (state.calls.size > MAX_CALLS) {
    for (const [key, call] of state.calls) {
      if (state.calls.size <= MAX_CALLS) break
      if (call.state === 'done' || call.state === 'refused') state.calls.delete(key)
    }
  }
}

let frame = 0
function scheduleRender() {
  if (frame !== 0) return
  frame = requestAnimationFrame(() => {
    frame = 0
    timeline.render([...state.calls.values()].sort((a, b) => a.key - b.key), hostNow())
    renderDetail()
  })
}

function renderDetail() {
  renderCallDetail(detail, state.selected === null ? undefined : state.calls.get(state.selected), hostNow())
}

function renderApprovals() {
  approvals.render(state.approvals, state.approvalsEnabled)
  const n = state.approvals.length
  setText($('#approval-count'), n === 0 ? '' : `(${n})`)
  document.title = n === 0 ? 'toolhost console' : `(${n} waiting) toolhost console`
}

const events = new EventSource('/console/events')
events.addEventListener('open', () => setText(connection, 'live'))
events.addEventListener('error', () => {
  connection.dataset.state = 'down'
  setText(connection, events.readyState === EventSource.CLOSED
    ? 'disconnected: the host stopped or restarted; open the new address it printed'
    : 'connection lost; reconnecting…')
})
events.addEventListener('snapshot', (event) => {
  const snapshot = JSON.parse(event.data)
  connection.dataset.state = 'live'
  setText(connection, 'live')
  state.csrf = snapshot.csrf
  setClock(snapshot.now)
  state.calls.clear()
  upsertCalls(snapshot.calls)
  state.approvals = snapshot.approvals
  state.approvalsEnabled = snapshot.approvalsEnabled
  const host = snapshot.host
  setText($('#host-line'), `root ${host.root} · ${host.mode} mode · permissions ${host.permissionMode} · pid ${host.pid}${host.configFile ? ` · ${host.configFile}` : ''}`)
  renderApprovals()
  state.processes = snapshot.processes
  processes.render(state.processes)
  state.clients = snapshot.clients
  state.tools = snapshot.tools
  renderClients($('#clients'), state.clients, state.tools)
  renderTools($('#tools'), state.tools, callForm.choose)
  callForm.render(state.tools)
  renderLimits($('#limits'), snapshot.limits)
  scheduleRender()
})
events.addEventListener('calls', (event) => {
  const data = JSON.parse(event.data)
  setClock(data.now)
  upsertCalls(data.calls)
  selectFollowed()
  scheduleRender()
})
events.addEventListener('approvals', (event) => {
  state.approvals = JSON.parse(event.data).approvals
  renderApprovals()
})
events.addEventListener('processes', (event) => {
  state.processes = JSON.parse(event.data).processes
  processes.render(state.processes)
})
// A reloaded config.yaml's live keys (worker and rate limits, timeouts, hooks).
events.addEventListener('limits', (event) => {
  renderLimits($('#limits'), JSON.parse(event.data).limits)
})
events.addEventListener('clients', (event) => {
  state.clients = JSON.parse(event.data).clients
  renderClients($('#clients'), state.clients, state.tools)
})
events.addEventListener('tools', (event) => {
  state.tools = JSON.parse(event.data).tools
  renderTools($('#tools'), state.tools, callForm.choose)
  callForm.render(state.tools)
  renderClients($('#clients'), state.clients, state.tools)
})

// Running and waiting bars grow with time; countdowns count down.
setInterval(() => {
  if ([...state.calls.values()].some((c) => c.state !== 'done' && c.state !== 'refused')) scheduleRender()
}, 250)
setInterval(() => {
  approvals.tick()
  processes.tick()
}, 1000)

async function post(path, body) {
  const { error } = await postFor(path, body)
  return error
}

// A POST with the CSRF header: { answer } (the JSON reply) or { error } in words.
async function postFor(path, body) {
  try {
    const response = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-toolhost-csrf': state.csrf },
      body: JSON.stringify(body),
      credentials: 'same-origin',
    })
    const answer = await response.json().catch(() => ({}))
    if (response.ok) return { answer }
    return { error: `failed (${response.status}): ${answer.error ?? response.statusText}` }
  } catch (error) {
    return { error: `failed: ${error.message}` }
  }
}

function callTool(tool, args) {
  return postFor('/console/api/calls', { tool, arguments: args })
}

function decide(id, decision, message) {
  return post(`/console/api/approvals/${encodeURIComponent(id)}`, message ? { decision, message } : { decision })
}

function kill(id) {
  return post(`/console/api/processes/${encodeURIComponent(id)}/kill`, {})
}
