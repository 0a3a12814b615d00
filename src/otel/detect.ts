// Whether an OpenTelemetry SDK is registered, without loading @opentelemetry/api: the API keeps
// what an SDK registers (tracer and meter providers, propagator, context manager) on one global
// object per major version, so a host that nobody instruments pays one property read.
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1')

/**
 * True when something registered an OpenTelemetry tracer or meter provider in this process (an
 * SDK's `register()` / `NodeSDK.start()`, or `trace.setGlobalTracerProvider`).
 *
 * @example
 * if (isOpenTelemetryRegistered()) (await import('toolhost/otel')).instrumentHost(host)
 */
export function isOpenTelemetryRegistered(): boolean {
  const api = (globalThis as Record<symbol, { trace?: unknown; metrics?: unknown } | undefined>)[API_GLOBAL]
  return api !== undefined && (api.trace !== undefined || api.metrics !== undefined)
}
