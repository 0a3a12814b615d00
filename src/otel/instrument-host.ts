import { context, metrics, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Meter, type Span, type Tracer } from '@opentelemetry/api'
import type { HostEvent } from '../observe/host-events.js'
import { CallTimeline, type CallRecord } from '../observe/call-timeline.js'

/** The parts of a host the instrumentation reads (structural, so this file does not import host.ts). */
export interface InstrumentedHost {
  readonly mode: string
  readonly stats: { running: number; pending: number }
  readonly registry: { get(name: string): { description: string } | undefined }
  onEvent(listener: (event: HostEvent) => void): () => void
  onClose(closer: () => void): void
}

export interface InstrumentOptions {
  /** Default: `trace.getTracer('toolhost')` (the registered tracer provider's). */
  tracer?: Tracer
  /** Default: `metrics.getMeter('toolhost')` (the registered meter provider's). */
  meter?: Meter
}

/** The name toolhost's tracer and meter go by. */
export const INSTRUMENTATION_NAME = 'toolhost'

/**
 * OpenTelemetry for a host: each call is an `execute_tool {tool}` span (GenAI semantic conventions,
 * kind INTERNAL) from the moment the host accepts it until its result is ready, child of the
 * context active where `host.run` was called (an embedder's span, or an MCP request's
 * `_meta.traceparent`), with toolhost's own attributes (footprint kind, waited-for calls, wait and
 * run time, permission decision, worker lane). Metrics: calls, run and wait durations, queue depth
 * and busy workers. `createHost` calls this itself when an SDK is registered before it; call it
 * yourself for an SDK registered later. Returns the function that stops it.
 *
 * @example
 * import { instrumentHost } from 'toolhost/otel'
 * const stop = instrumentHost(host)
 */
export function instrumentHost(host: InstrumentedHost, options: InstrumentOptions = {}): () => void {
  const tracer = options.tracer ?? trace.getTracer(INSTRUMENTATION_NAME)
  const meter = options.meter ?? metrics.getMeter(INSTRUMENTATION_NAME)
  const calls = meter.createCounter('toolhost.calls', { description: 'Tool calls answered, by tool and error type', unit: '{call}' })
  const runTime = meter.createHistogram('toolhost.call.duration', { description: 'How long a tool call ran (handler start to answer)', unit: 's' })
  const waitTime = meter.createHistogram('toolhost.call.wait', { description: 'How long a tool call waited before it started (conflicts, approval, a free worker)', unit: 's' })
  const queueDepth = meter.createObservableGauge('toolhost.queue.depth', { description: 'Calls scheduled but not yet started', unit: '{call}' })
  const busy = meter.createObservableGauge('toolhost.workers.busy', { description: 'Handlers running now', unit: '{call}' })
  const observeDepth = (result: { observe(value: number): void }): void => result.observe(Math.max(0, host.stats.pending - host.stats.running))
  const observeBusy = (result: { observe(value: number): void }): void => result.observe(host.stats.running)
  queueDepth.addCallback(observeDepth)
  busy.addCallback(observeBusy)

  const spans = new WeakMap<CallRecord, Span>()
  const instruments: Instruments = { calls, runTime, waitTime, byTool: new Map() }
  const begin = (record: CallRecord): Span => {
    // Events are emitted synchronously inside host.run's admission, so the active context here is
    // the caller's (an embedder's span, or the MCP request's remote parent).
    const span = startCallSpan(tracer, record, host, context.active())
    spans.set(record, span)
    return span
  }
  // Attributes are set once, when the call ends: each setAttribute costs the SDK a sanitising pass.
  const timeline = new CallTimeline({
    limit: 0,
    onUpdate: (record, event) => {
      switch (event.type) {
        case 'admitted':
          begin(record)
          return
        case 'refused':
          endCall(begin(record), record, instruments)
          return
        case 'waiting':
          spans.get(record)?.addEvent('toolhost.waiting', { 'toolhost.waited_for': event.on.map((w) => w.id), 'toolhost.wait_reasons': event.on.map((w) => w.reason) })
          return
        case 'checked':
          spans.get(record)?.addEvent('toolhost.checked', { 'toolhost.check.outcome': event.outcome })
          return
        case 'approval':
          spans.get(record)?.addEvent('toolhost.approval', { 'toolhost.approval.outcome': event.outcome })
          return
        case 'finished': {
          const span = spans.get(record)
          if (span) endCall(span, record, instruments)
          return
        }
        default:
          return
      }
    },
  })
  const stopEvents = host.onEvent((event) => timeline.observe(event))
  let stopped = false
  const stop = (): void => {
    if (stopped) return
    stopped = true
    stopEvents()
    queueDepth.removeCallback(observeDepth)
    busy.removeCallback(observeBusy)
  }
  host.onClose(stop)
  return stop
}

function startCallSpan(tracer: Tracer, record: CallRecord, host: InstrumentedHost, parent: Context): Span {
  const attributes: Attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': record.name,
    'gen_ai.tool.call.id': record.id,
    'gen_ai.tool.type': 'function',
    'toolhost.batch': record.batch,
    'toolhost.mode': host.mode,
  }
  const description = host.registry.get(record.name)?.description
  if (description !== undefined) attributes['gen_ai.tool.description'] = description
  if (record.footprint !== undefined) attributes['toolhost.footprint.kind'] = record.footprint
  return tracer.startSpan(`execute_tool ${record.name}`, { kind: SpanKind.INTERNAL, attributes }, parent)
}

interface Instruments {
  calls: ReturnType<Meter['createCounter']>
  runTime: ReturnType<Meter['createHistogram']>
  waitTime: ReturnType<Meter['createHistogram']>
  /** The metric attributes of a tool's successful calls, made once per tool. */
  byTool: Map<string, Attributes>
}

// The call has its answer: outcome, waits, times and permission on the span, then the metrics.
function endCall(span: Span, record: CallRecord, m: Instruments): void {
  const attributes: Attributes = { 'toolhost.ran': record.startedAt !== undefined }
  let metricAttributes = m.byTool.get(record.name)
  if (metricAttributes === undefined) m.byTool.set(record.name, (metricAttributes = { 'gen_ai.tool.name': record.name }))
  // Refused before scheduling, or by its checks once held: 'deny' when it was a permission refusal.
  const refusedEarly = record.state === 'refused' || (record.check === 'refused' && record.approval === undefined)
  const decision = refusedEarly ? (record.code === 'E_DENIED' ? 'deny' : undefined) : record.approval === 'asked' ? 'ask' : (record.approval ?? 'allow')
  if (decision !== undefined) attributes['toolhost.permission.decision'] = decision
  if (record.ok === false) {
    const code = record.code ?? 'E_TOOL_FAILED'
    attributes['error.type'] = code
    span.setStatus({ code: SpanStatusCode.ERROR, message: record.message ?? code })
    metricAttributes = { 'gen_ai.tool.name': record.name, 'error.type': code }
  }
  if (record.waits.length > 0) attributes['toolhost.waited_for'] = record.waits.map((w) => w.id)
  if (record.startedAt !== undefined && record.queuedAt !== undefined) {
    const waitMs = record.startedAt - record.queuedAt
    attributes['toolhost.wait_ms'] = waitMs
    m.waitTime.record(waitMs / 1000, m.byTool.get(record.name))
  }
  if (record.startedAt !== undefined && record.finishedAt !== undefined) {
    const runMs = record.finishedAt - record.startedAt
    attributes['toolhost.run_ms'] = runMs
    m.runTime.record(runMs / 1000, metricAttributes)
  }
  if (record.lane !== undefined) attributes['toolhost.lane'] = record.lane
  if (record.pool?.worker) attributes['toolhost.waited_for_worker'] = record.pool.worker
  if (record.pool?.rate) attributes['toolhost.waited_for_rate'] = record.pool.rate
  span.setAttributes(attributes)
  m.calls.add(1, metricAttributes)
  span.end()
}
