/**
 * OpenTelemetry: the spans and metrics one batch produces, read back from the SDK's in-memory
 * exporter and a metric reader. The SDK is registered before any host is created, as a user's
 * instrumentation file would, so createHost instruments itself.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { context, metrics, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { MeterProvider, MetricReader, type MetricData } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createDeferred } from '../../src/contract/deferred.js'
import { createHost, defineTool, registry, type HostOptions } from '../../src/index.js'
import { silentLogger } from '../../src/contract/logger.js'
import { createMcpServer } from '../../src/mcp/server.js'
import { McpSessions } from '../../src/mcp/sessions.js'
import { isOpenTelemetryRegistered } from '../../src/otel/detect.js'

const registeredAtImport = isOpenTelemetryRegistered()

class TestReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve()
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve()
  }
}

const exporter = new InMemorySpanExporter()
const reader = new TestReader()
let root: string

beforeAll(() => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  propagation.setGlobalPropagator(new W3CTraceContextPropagator())
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))
})

afterAll(() => {
  trace.disable()
  context.disable()
  propagation.disable()
  metrics.disable()
})

beforeEach(() => {
  exporter.reset()
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolhost-otel-')))
  const pathArgs = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false } as const
  registry.register(defineTool({ name: 'write_note', description: 'Writes a note.', parameters: pathArgs, pathScoped: true, handler: () => 'wrote' }))
  registry.register(defineTool({ name: 'read_note', description: 'Reads a note.', parameters: pathArgs, pathScoped: true, readOnly: () => true, handler: () => 'read' }))
  registry.register(defineTool({ name: 'boom', description: 'Always throws.', parameters: { type: 'object' }, parallelSafe: true, readOnly: () => true, handler: () => { throw new Error('kaboom') } }))
  registry.register(defineTool({ name: 'blocked', description: 'Denied by a rule.', parameters: { type: 'object' }, parallelSafe: true, readOnly: () => true, handler: () => 'never' }))
})

afterEach(() => {
  registry.clear()
  rmSync(root, { recursive: true, force: true })
})

function hostWith(permissions: Record<string, unknown>, options: Partial<HostOptions> = {}) {
  return createHost({ root, loadPlugins: false, log: silentLogger, config: { env_file: '', permissions }, ...options })
}

function spanNamed(spans: ReadableSpan[], id: string): ReadableSpan {
  const span = spans.find((s) => s.attributes['gen_ai.tool.call.id'] === id)
  expect(span, `no span for call ${id}`).toBeDefined()
  return span!
}

function metric(all: MetricData[], name: string): MetricData {
  const found = all.find((m) => m.descriptor.name === name)
  expect(found, `no metric ${name}`).toBeDefined()
  return found!
}

describe('OpenTelemetry spans (GenAI execute_tool)', () => {
  test('with no SDK registered, nothing is detected (createHost loads no OpenTelemetry code)', () => {
    expect(registeredAtImport).toBe(false)
    expect(isOpenTelemetryRegistered()).toBe(true) // after beforeAll registered one
  })

  test('one batch: a span per call, children of the caller\'s active span, with outcome, waits, times and permission', async () => {
    const host = await hostWith({ mode: 'bypass', deny: ['blocked'] })
    const tracer = trace.getTracer('agent')
    let turn!: ReadableSpan['spanContext'] extends () => infer C ? C : never
    await tracer.startActiveSpan('agent turn', async (span) => {
      turn = span.spanContext()
      await host.run([
        { id: 'w1', name: 'write_note', arguments: { path: 'a.txt' } },
        { id: 'r1', name: 'read_note', arguments: { path: 'a.txt' } },
        { id: 'b1', name: 'boom', arguments: {} },
        { id: 'x1', name: 'no_such_tool', arguments: {} },
        { id: 'd1', name: 'blocked', arguments: {} },
      ])
      span.end()
    })
    await host.close()
    const spans = exporter.getFinishedSpans().filter((s) => s.name.startsWith('execute_tool'))
    expect(spans.map((s) => s.name).sort()).toEqual(['execute_tool blocked', 'execute_tool boom', 'execute_tool no_such_tool', 'execute_tool read_note', 'execute_tool write_note'])
    for (const s of spans) {
      expect(s.kind).toBe(SpanKind.INTERNAL)
      expect(s.attributes['gen_ai.operation.name']).toBe('execute_tool')
      expect(s.spanContext().traceId).toBe(turn.traceId)
      expect(s.parentSpanContext?.spanId).toBe(turn.spanId)
    }
    const w1 = spanNamed(spans, 'w1')
    expect(w1.attributes).toMatchObject({ 'gen_ai.tool.name': 'write_note', 'gen_ai.tool.description': 'Writes a note.', 'toolhost.footprint.kind': 'scoped', 'toolhost.permission.decision': 'allow', 'toolhost.ran': true })
    expect(w1.status.code).not.toBe(SpanStatusCode.ERROR)
    expect(w1.attributes['error.type']).toBeUndefined()
    const r1 = spanNamed(spans, 'r1')
    expect(r1.attributes['toolhost.waited_for']).toEqual(['w1'])
    expect(r1.attributes['toolhost.wait_ms']).toBeGreaterThanOrEqual(0)
    expect(r1.attributes['toolhost.run_ms']).toBeGreaterThanOrEqual(0)
    expect(r1.events.map((e) => e.name)).toEqual(['toolhost.waiting'])
    const b1 = spanNamed(spans, 'b1')
    expect(b1.attributes['error.type']).toBe('E_TOOL_FAILED')
    expect(b1.status).toMatchObject({ code: SpanStatusCode.ERROR })
    expect(spanNamed(spans, 'x1').attributes).toMatchObject({ 'error.type': 'E_TOOL_UNKNOWN', 'toolhost.ran': false })
    expect(spanNamed(spans, 'x1').attributes['toolhost.permission.decision']).toBeUndefined() // never reached the permission check
    expect(spanNamed(spans, 'd1').attributes).toMatchObject({ 'error.type': 'E_DENIED', 'toolhost.permission.decision': 'deny' })

    const { resourceMetrics } = await reader.collect()
    const all = resourceMetrics.scopeMetrics.filter((s) => s.scope.name === 'toolhost').flatMap((s) => s.metrics)
    const calls = metric(all, 'toolhost.calls').dataPoints
    const count = (errorType: string | undefined) => calls.filter((p) => p.attributes['error.type'] === errorType).reduce((n, p) => n + (p.value as number), 0)
    expect(count(undefined)).toBeGreaterThanOrEqual(2)
    expect(count('E_TOOL_FAILED')).toBeGreaterThanOrEqual(1)
    expect(count('E_DENIED')).toBeGreaterThanOrEqual(1)
    expect(metric(all, 'toolhost.call.duration').descriptor.unit).toBe('s')
    expect(metric(all, 'toolhost.call.wait').dataPoints.length).toBeGreaterThan(0)
  })

  test('a call that asked records the person\'s decision; a host with openTelemetry: false makes no spans', async () => {
    const answered = createDeferred<void>()
    const host = await hostWith({ mode: 'ask' }, { approve: async (requests) => { answered.resolve(); return requests.map(() => ({ decision: 'deny' as const })) } })
    await host.run([{ id: 'w1', name: 'write_note', arguments: { path: 'a.txt' } }])
    await host.close()
    await answered.promise
    const span = spanNamed(exporter.getFinishedSpans(), 'w1')
    expect(span.attributes).toMatchObject({ 'toolhost.permission.decision': 'denied', 'error.type': 'E_DENIED', 'toolhost.ran': false })
    expect(span.events.map((e) => e.name)).toContain('toolhost.approval')

    exporter.reset()
    const quiet = await hostWith({ mode: 'bypass' }, { openTelemetry: false })
    await quiet.run([{ id: 'q1', name: 'read_note', arguments: { path: 'a.txt' } }])
    await quiet.close()
    expect(exporter.getFinishedSpans()).toEqual([])
  })

  test('calls held by their own permission check at arrival: one span each, the check\'s decision, no approval a person never gave', async () => {
    registry.register(defineTool({ name: 'judged_no', description: 'Its check says no.', parameters: { type: 'object' }, parallelSafe: true, checkPermissions: async () => ({ behavior: 'deny', message: 'not today' }), handler: () => 'never' }))
    registry.register(defineTool({ name: 'judged_yes', description: 'Its check says yes.', parameters: { type: 'object' }, parallelSafe: true, checkPermissions: async () => ({ behavior: 'allow' }), handler: () => 'ran' }))
    const host = await hostWith({ mode: 'bypass', audit_log: '' })
    await host.run([{ id: 'n1', name: 'judged_no', arguments: {} }, { id: 'y1', name: 'judged_yes', arguments: {} }])
    await host.close()
    const spans = exporter.getFinishedSpans()
    expect(spans.map((s) => s.attributes['gen_ai.tool.call.id']).sort()).toEqual(['n1', 'y1'])
    const no = spanNamed(spans, 'n1')
    const yes = spanNamed(spans, 'y1')
    expect(no.attributes).toMatchObject({ 'toolhost.permission.decision': 'deny', 'error.type': 'E_DENIED', 'toolhost.ran': false })
    expect(yes.attributes).toMatchObject({ 'toolhost.permission.decision': 'allow', 'toolhost.ran': true })
    for (const span of [no, yes]) {
      expect(span.events.map((e) => e.name)).toContain('toolhost.checked')
      expect(span.events.map((e) => e.name)).not.toContain('toolhost.approval')
    }
  })

  test('an MCP tools/call with _meta.traceparent: the call\'s span is a child of the client\'s remote span', async () => {
    const host = await hostWith({ mode: 'bypass' })
    const sessions = new McpSessions()
    const server = createMcpServer(host, sessions)
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const client = new Client({ name: 'otel-test', version: '1.0.0' })
    await client.connect(clientSide)
    const traceId = '0af7651916cd43dd8448eb211c80319c'
    const spanId = 'b7ad6b7169203331'
    const result = await client.callTool({ name: 'read_note', arguments: { path: 'a.txt' }, _meta: { traceparent: `00-${traceId}-${spanId}-01` } })
    expect(result.isError).toBeFalsy()
    await client.close()
    await host.close()
    const span = exporter.getFinishedSpans().find((s) => s.name === 'execute_tool read_note')!
    expect(span.spanContext().traceId).toBe(traceId)
    expect(span.parentSpanContext).toMatchObject({ spanId, isRemote: true })
  })
})
