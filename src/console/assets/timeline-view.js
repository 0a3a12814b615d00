// The timeline: one bar per call on its worker lane (calls that ran), one row per call not started
// yet (being checked, waiting for earlier calls, for an approval, or for a worker), and the calls table. The same
// facts as `toolhost run --trace`, live.
import { formatMs, h, replaceChildren, row, setText } from './dom.js'

const ROW_PX = 30
const BURST_GAP_MS = 2000
const TABLE_ROWS = 300

const STATE_WORDS = { refused: 'refused', checking: 'being checked', approval: 'waiting for approval', waiting: 'waiting', rate: 'waiting for a rate slot', ready: 'waiting for a worker', running: 'running', done: 'done' }

export function createTimelineView(section, { onSelect }) {
  const labels = section.querySelector('.lane-labels')
  const area = section.querySelector('.lanes')
  const axisStart = section.querySelector('.axis-start')
  const axisEnd = section.querySelector('.axis-end')
  const summary = section.querySelector('#timeline-summary')
  const range = section.querySelector('#timeline-range')
  const tbody = section.querySelector('#calls tbody')
  const bars = new Map()
  let shownByKey = new Map()
  let last = { records: [], now: 0 }

  range.addEventListener('change', () => render(last.records, last.now))
  // Zoom widens the lanes and the axis together; the frame scrolls sideways (keeping the latest end in view).
  const zoom = section.querySelector('#timeline-zoom')
  const body = section.querySelector('.timeline-body')
  const axis = section.querySelector('.axis')
  zoom.addEventListener('change', () => {
    const width = `${Number(zoom.value) * 100}%`
    area.style.width = width
    axis.style.width = width
    body.scrollLeft = body.scrollWidth
  })

  function render(all, now) {
    last = { records: all, now }
    const shown = pick(all, range.value)
    shownByKey = new Map(shown.map((r) => [r.key, r]))
    const ran = shown.filter((r) => r.startedAt !== undefined && r.lane !== undefined)
    const pending = shown.filter((r) => r.startedAt === undefined && (r.state === 'checking' || r.state === 'approval' || r.state === 'waiting' || r.state === 'rate' || r.state === 'ready'))
    const drawn = [...ran, ...pending]
    const t0 = drawn.length > 0 ? Math.min(...drawn.map(startOf)) : now
    const t1 = Math.max(t0 + 1, ...drawn.map((r) => endOf(r, now)))
    const lanes = ran.length > 0 ? Math.max(...ran.map((r) => r.lane)) + 1 : 0

    const labelNodes = []
    for (let lane = 0; lane < lanes; lane++) labelNodes.push(h('div', { class: 'lane-label', text: `worker ${lane + 1}` }))
    pending.forEach((r) => labelNodes.push(h('div', { class: `lane-label pending-label state-${r.state}`, text: STATE_WORDS[r.state] })))
    replaceChildren(labels, labelNodes)
    area.style.height = `${Math.max(1, lanes + pending.length) * ROW_PX}px`

    const keep = new Set()
    const place = (r, rowIndex, from, to) => {
      keep.add(r.key)
      let bar = bars.get(r.key)
      if (!bar) {
        bar = h('button', { type: 'button', class: 'bar', dataset: { key: String(r.key) }, onclick: () => onSelect(r.key) })
        bar.addEventListener('focus', () => highlight(r.key, true))
        bar.addEventListener('blur', () => highlight(r.key, false))
        bar.addEventListener('mouseenter', () => highlight(r.key, true))
        bar.addEventListener('mouseleave', () => highlight(r.key, false))
        bars.set(r.key, bar)
        area.append(bar)
      }
      bar.dataset.state = r.state
      bar.dataset.call = r.id
      bar.classList.toggle('failed', r.ok === false)
      bar.style.left = `${((from - t0) / (t1 - t0)) * 100}%`
      bar.style.width = `${Math.max(0, ((to - from) / (t1 - t0)) * 100)}%`
      bar.style.top = `${rowIndex * ROW_PX + 3}px`
      setText(bar, `${r.id} ${r.name}`)
      bar.setAttribute('aria-label', describe(r, t0, now))
      bar.title = describe(r, t0, now)
    }
    ran.forEach((r) => place(r, r.lane, r.startedAt, r.finishedAt ?? now))
    pending.forEach((r, i) => place(r, lanes + i, r.queuedAt ?? now, now))
    for (const [key, bar] of bars) {
      if (keep.has(key)) continue
      bar.remove()
      bars.delete(key)
    }

    setText(axisStart, '0 ms')
    setText(axisEnd, formatMs(t1 - t0))
    const counts = {}
    for (const r of shown) counts[r.state] = (counts[r.state] ?? 0) + 1
    const parts = Object.entries(counts).map(([state, n]) => `${n} ${STATE_WORDS[state]}`)
    setText(summary, shown.length === 0 ? 'no calls yet' : `${shown.length} call${shown.length === 1 ? '' : 's'}: ${parts.join(', ')}; ${lanes} worker lane${lanes === 1 ? '' : 's'} used`)
    renderTable(shown, now)
  }

  // Focusing a bar marks the calls it waited for and the calls that wait for it.
  function highlight(key, on) {
    const record = shownByKey.get(key)
    if (!record) return
    const waitedFor = new Set(record.waits.map((w) => w.id))
    for (const [otherKey, bar] of bars) {
      const other = shownByKey.get(otherKey)
      if (!other) continue
      bar.classList.toggle('waited-on', on && other.key < key && waitedFor.has(other.id))
      bar.classList.toggle('waiter', on && other.key > key && other.waits.some((w) => w.id === record.id))
    }
  }

  function renderTable(shown, now) {
    const rows = shown.slice(-TABLE_ROWS).reverse().map((r) => row([
      h('button', { type: 'button', class: 'link', text: r.id, onclick: () => onSelect(r.key), 'aria-label': `details of call ${r.id}` }),
      h('span', { class: 'tool-name', text: r.name }),
      String(r.batch),
      h('span', { class: `state state-${r.state}`, text: r.state === 'done' ? (r.ok ? 'ok' : (r.code ?? 'failed')) : r.state === 'refused' ? `refused: ${r.code}` : STATE_WORDS[r.state] }),
      waitsText(r),
      r.queuedAt !== undefined ? formatMs((r.startedAt ?? (r.finishedAt ?? now)) - r.queuedAt) : '—',
      r.startedAt !== undefined ? formatMs((r.finishedAt ?? now) - r.startedAt) : '—',
    ], { dataset: { state: r.state, call: r.id } }))
    replaceChildren(tbody, rows)
  }

  return { render }
}

/** The details of one call (shown under the timeline). */
export function renderCallDetail(container, record, now) {
  if (!record) {
    replaceChildren(container)
    return
  }
  const items = [
    ['call', record.id],
    ['tool', h('span', { class: 'tool-name', text: record.name })],
    ['batch', String(record.batch)],
    ['state', STATE_WORDS[record.state]],
    ['footprint', record.footprint ?? '—'],
    ['waited for', waitsText(record) || 'nothing'],
    ['approval', record.approval ?? 'not needed'],
    ['checks', record.check === undefined ? 'decided at arrival' : record.check === 'checking' ? 'being checked' : record.check],
    ['worker lane', record.lane === undefined ? '—' : `worker ${record.lane + 1}`],
    ['waited', record.queuedAt !== undefined ? formatMs((record.startedAt ?? record.finishedAt ?? now) - record.queuedAt) : '—'],
    ['ran', record.startedAt !== undefined ? formatMs((record.finishedAt ?? now) - record.startedAt) : 'did not run'],
    ['result', record.state === 'done' || record.state === 'refused' ? (record.ok ? 'ok' : (record.code ?? 'failed')) : '—'],
  ]
  if (record.message) items.push(['why refused', record.message])
  // Bounded and with secrets blanked out by the host before they were sent.
  if (record.arguments !== undefined) items.push(['arguments', h('pre', { class: 'call-text', text: record.arguments })])
  if (record.result !== undefined) items.push(['result', h('pre', { class: 'call-text', text: record.result })])
  for (const hook of record.hooks ?? []) items.push([`hook ${hook.event}`, `${hook.hook}: ${hook.decision} — ${hook.reason}`])
  if (record.pool?.worker) items.push(['waited for a worker', record.pool.worker.length > 0 ? `${record.pool.worker.join(', ')} held the workers` : 'every worker was busy'])
  if (record.progress) items.push(['progress', record.progress])
  if (record.abandoned) items.push(['abandoned', 'its handler ignored the interrupt; its worker was released'])
  for (const note of record.notes) items.push([note.type, note.text])
  replaceChildren(container, h('h3', { text: `Call ${record.id}` }), h('dl', {}, items.flatMap(([k, v]) => [h('dt', { text: k }), h('dd', {}, v)])))
}

// The calls it waited for, then the rate slot it waited for ("waited for a rate slot: http_get, 2 per s").
function waitsText(r) {
  const parts = r.waits.map((w) => `${w.id} (${w.reason})${w.done ? '' : ' — still waiting'}`)
  if (r.pool?.rate) parts.push(`${r.state === 'rate' ? 'waiting' : 'waited'} for a rate slot: ${r.pool.rate}`)
  return parts.join('; ')
}

function describe(r, t0, now) {
  const parts = [`call ${r.id}, ${r.name}`, STATE_WORDS[r.state]]
  if (r.startedAt !== undefined) parts.push(`ran from ${formatMs(r.startedAt - t0)} for ${formatMs((r.finishedAt ?? now) - r.startedAt)} on worker ${r.lane + 1}`)
  const open = r.waits.filter((w) => !w.done)
  if (r.startedAt === undefined && open.length > 0) parts.push(`waits for ${open.map((w) => `${w.id}: ${w.reason}`).join('; ')}`)
  if (r.state === 'rate' && r.pool?.rate) parts.push(`waits for a rate slot: ${r.pool.rate}`)
  if (r.state === 'done') parts.push(r.ok ? 'ok' : (r.code ?? 'failed'))
  return parts.join(', ')
}

function startOf(r) {
  return r.startedAt !== undefined && r.queuedAt === undefined ? r.startedAt : (r.queuedAt ?? r.finishedAt ?? 0)
}

function endOf(r, now) {
  return r.startedAt !== undefined ? (r.finishedAt ?? now) : r.finishedAt ?? now
}

// Which calls the view shows: the latest burst of activity (calls separated from earlier ones by
// an idle gap), the last 100, or all the console keeps.
function pick(all, choice) {
  if (choice === 'all') return all
  if (choice === 'last') return all.slice(-100)
  const drawable = all.filter((r) => r.state !== 'refused')
  let burstStart = Number.POSITIVE_INFINITY
  let from = drawable.length
  for (let i = drawable.length - 1; i >= 0; i--) {
    const r = drawable[i]
    const end = r.finishedAt ?? Number.POSITIVE_INFINITY
    if (i < drawable.length - 1 && end < burstStart - BURST_GAP_MS) break
    burstStart = Math.min(burstStart, startOf(r))
    from = i
  }
  const first = drawable[from]
  // Calls refused before scheduling belong to their batch (they were refused before it was queued).
  return first === undefined ? all.filter((r) => r.state === 'refused').slice(-20) : all.filter((r) => r.key >= first.key || r.batch >= first.batch)
}
