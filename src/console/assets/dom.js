// DOM helpers for the console. Every string from the host (tool names, call ids, reasons, commands,
// process output) is model- or plugin-controlled: it goes into the page as text only (text nodes,
// textContent, attribute values of fixed safe attributes), never as HTML.

/**
 * Makes an element. `props`: `class`, `text` (textContent), `dataset`, `on<event>` listeners, and
 * plain attributes (values set as text). Children are nodes or strings (strings become text nodes).
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue
    if (key === 'class') el.className = value
    else if (key === 'text') el.textContent = String(value)
    else if (key === 'dataset') Object.assign(el.dataset, value)
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value)
    else el.setAttribute(key, value === true ? '' : String(value))
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue
    el.append(child instanceof Node ? child : String(child))
  }
  return el
}

/** Sets an element's text only when it changed (keeps selection and avoids layout work). */
export function setText(el, text) {
  const value = String(text)
  if (el.textContent !== value) el.textContent = value
}

/** Replaces every child of `el`. */
export function replaceChildren(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== undefined && c !== null && c !== false))
}

/** Milliseconds as a person reads them: 0.4 ms, 12 ms, 1.5 s, 2 min 5 s. */
export function formatMs(ms) {
  if (!Number.isFinite(ms)) return '—'
  if (ms < 10) return `${ms.toFixed(1)} ms`
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const seconds = Math.floor(ms / 1000)
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}

/** A row of cells (strings or nodes). */
export function row(cells, props = {}) {
  return h('tr', props, cells.map((cell) => h('td', {}, cell)))
}
