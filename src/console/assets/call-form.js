// The "Call a tool" form: built from the chosen tool's JSON Schema (a field per property: text,
// number, a checkbox or a choice for booleans, a list for enums, a JSON box for the rest), sent to
// the host as one call (POST /console/api/calls). The host decides everything a call needs
// (validation, permissions, approvals, hooks, rate limits); this page only collects the arguments.
import { h, replaceChildren, setText } from './dom.js'

/**
 * The form's fields for an object schema, or undefined when the schema is not a plain object with
 * properties (then the whole arguments object is one JSON box).
 */
function fieldsOf(schema) {
  if (!schema || typeof schema !== 'object' || schema.type !== 'object' || !schema.properties || typeof schema.properties !== 'object') return undefined
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  return Object.entries(schema.properties).map(([name, property]) => ({ name, property: property && typeof property === 'object' ? property : {}, required: required.has(name), kind: kindOf(property) }))
}

function kindOf(property) {
  if (!property || typeof property !== 'object') return 'json'
  if (Array.isArray(property.enum) && property.enum.length > 0) return 'enum'
  if (property.type === 'string') return 'string'
  if (property.type === 'integer' || property.type === 'number') return 'number'
  if (property.type === 'boolean') return 'boolean'
  return 'json'
}

function inputFor(field, id) {
  const { property, kind, required } = field
  const common = { id, name: field.name, 'aria-required': required ? 'true' : undefined, 'aria-describedby': property.description ? `${id}-hint` : undefined }
  if (kind === 'string') {
    const long = (property.maxLength ?? Infinity) > 200 && /content|text|body|patch|code|script|message/i.test(field.name)
    return long ? h('textarea', { ...common, rows: 4 }) : h('input', { ...common, type: 'text', value: typeof property.default === 'string' ? property.default : undefined })
  }
  if (kind === 'number') return h('input', { ...common, type: 'number', step: property.type === 'integer' ? '1' : 'any', min: property.minimum, max: property.maximum })
  if (kind === 'boolean') {
    if (required) return h('input', { ...common, type: 'checkbox' })
    return h('select', common, h('option', { value: '', text: '(not set)' }), h('option', { value: 'true', text: 'true' }), h('option', { value: 'false', text: 'false' }))
  }
  if (kind === 'enum') {
    return h('select', common, required ? null : h('option', { value: '', text: '(not set)' }), property.enum.map((v, i) => h('option', { value: String(i), text: typeof v === 'string' ? v : JSON.stringify(v) })))
  }
  return h('textarea', { ...common, rows: 3, class: 'json', placeholder: 'JSON', spellcheck: 'false' })
}

// A field's value for the call: { value } (undefined leaves the argument out), or { error } (the call is not sent).
function valueOf(field, input) {
  const { kind, property } = field
  if (kind === 'boolean') return { value: input.type === 'checkbox' ? input.checked : input.value === '' ? undefined : input.value === 'true' }
  if (kind === 'enum') return { value: input.value === '' ? undefined : property.enum[Number(input.value)] }
  if (kind === 'number') return { value: input.value === '' ? undefined : Number(input.value) }
  if (kind === 'string') return { value: input.value === '' && !field.required ? undefined : input.value }
  if (input.value.trim() === '') return { value: undefined }
  try {
    return { value: JSON.parse(input.value) }
  } catch (error) {
    return { error: `${field.name} is not valid JSON (${error.message})` }
  }
}

/** The form in `section`: `render(tools)` keeps its tool list current; `choose(name)` picks a tool (the tools table's Call buttons). */
export function createCallForm(section, { call, onAnswer }) {
  const select = section.querySelector('#call-tool')
  const description = section.querySelector('#call-tool-description')
  const fields = section.querySelector('#call-fields')
  const form = section.querySelector('#call-form')
  const status = section.querySelector('#call-status')
  const output = section.querySelector('#call-result')
  const submit = form.querySelector('button[type="submit"]')
  let tools = []
  let shown = null // { name, fields: [{ field, input }] | undefined, whole: textarea | undefined }

  select.addEventListener('change', () => build())
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    void send()
  })

  function render(next) {
    tools = next
    const current = select.value
    replaceChildren(select, h('option', { value: '', text: tools.length === 0 ? 'no tools' : 'choose a tool' }), tools.map((t) => h('option', { value: t.name, text: t.available ? t.name : `${t.name} (hidden)` })))
    select.value = tools.some((t) => t.name === current) ? current : ''
    // The chosen tool's schema may have changed (hot reload): rebuild only then, keeping what was typed otherwise.
    const tool = tools.find((t) => t.name === select.value)
    if (!tool || !shown || shown.name !== tool.name || shown.schema !== JSON.stringify(tool.parameters)) build()
  }

  function choose(name) {
    select.value = name
    build()
    section.scrollIntoView({ block: 'start' })
    select.focus()
  }

  function build() {
    const tool = tools.find((t) => t.name === select.value)
    setText(output, '')
    setText(status, '')
    output.hidden = true
    if (!tool) {
      shown = null
      setText(description, '')
      replaceChildren(fields)
      submit.disabled = true
      return
    }
    submit.disabled = false
    setText(description, tool.available ? tool.description : `${tool.description} — hidden now: ${tool.reason ?? 'unavailable'} (a call is refused)`)
    const list = fieldsOf(tool.parameters)
    if (list === undefined || list.length === 0) {
      const whole = h('textarea', { id: 'call-arguments', rows: 4, class: 'json', spellcheck: 'false', text: '{}' })
      replaceChildren(fields, list === undefined ? h('div', { class: 'field' }, h('label', { for: 'call-arguments', text: 'arguments (JSON object)' }), whole) : h('p', { class: 'muted', text: 'This tool takes no arguments.' }))
      shown = { name: tool.name, schema: JSON.stringify(tool.parameters), fields: undefined, whole: list === undefined ? whole : undefined }
      return
    }
    const made = list.map((field, i) => ({ field, input: inputFor(field, `call-field-${i}`) }))
    replaceChildren(fields, made.map(({ field, input }) => h('div', { class: `field field-${field.kind}`, dataset: { argument: field.name } },
      h('label', { for: input.id }, h('code', { text: field.name }), field.required ? ' (required)' : '', field.kind === 'json' ? ' (JSON)' : ''),
      input,
      field.property.description ? h('p', { class: 'hint', id: `${input.id}-hint`, text: field.property.description }) : null,
    )))
    shown = { name: tool.name, schema: JSON.stringify(tool.parameters), fields: made, whole: undefined }
  }

  function collect() {
    if (shown.whole) {
      try {
        return { args: JSON.parse(shown.whole.value || '{}') }
      } catch (error) {
        return { error: `the arguments are not valid JSON (${error.message})` }
      }
    }
    const args = {}
    for (const { field, input } of shown.fields ?? []) {
      const read = valueOf(field, input)
      if (read.error) return { error: read.error }
      if (read.value !== undefined) args[field.name] = read.value
    }
    return { args }
  }

  async function send() {
    if (!shown) return
    const collected = collect()
    if (collected.error) {
      setText(status, collected.error)
      return
    }
    submit.disabled = true
    setText(status, `calling ${shown.name}… (it may wait for approval, a worker or a rate slot)`)
    const { answer, error } = await call(shown.name, collected.args)
    submit.disabled = false
    if (error) {
      setText(status, error)
      return
    }
    setText(status, `call ${answer.id}: ${answer.ok ? 'ok' : answer.code ?? 'failed'}`)
    output.dataset.ok = String(answer.ok)
    setText(output, answer.text)
    output.hidden = false
    onAnswer(answer)
  }

  return { render, choose }
}
