/**
 * `toolhost/otel`: OpenTelemetry for a host. `createHost` instruments itself when an SDK is
 * registered before it; these are for an SDK registered later, or for a tracer and meter of your
 * own. See docs/observability.md.
 */
export { instrumentHost, INSTRUMENTATION_NAME } from './instrument-host.js'
export type { InstrumentedHost, InstrumentOptions } from './instrument-host.js'
export { withRemoteParent } from './remote-parent.js'
export { isOpenTelemetryRegistered } from './detect.js'
