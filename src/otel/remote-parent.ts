import { context, propagation, type TextMapGetter } from '@opentelemetry/api'

// Reads W3C trace-context keys (`traceparent`, `tracestate`, `baggage`) from an MCP request's `_meta`.
const metaGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key]
    return typeof value === 'string' ? value : undefined
  },
}

/**
 * Runs `fn` with the trace context a client sent in an MCP request's `_meta` (W3C `traceparent`,
 * through the registered propagator), so the calls it makes are children of the client's span.
 *
 * @example
 * const results = await withRemoteParent(request.params._meta, () => host.run(calls))
 */
export function withRemoteParent<T>(meta: Record<string, unknown> | undefined, fn: () => T): T {
  // A request without `_meta` has no parent to take: `fn` runs in the context active now.
  if (meta === undefined) return fn()
  return context.with(propagation.extract(context.active(), meta, metaGetter), fn)
}
