/**
 * `toolhost/otel`: OpenTelemetry for a host. `createHost` instruments itself when an SDK is
 * registered before it; these are for an SDK registered later, or for a tracer and meter of your
 * own. See docs/observability.md.
 */
export { instrumentHost, INSTRUMENTATION_NAME } from './instrument-host.js'
export type { InstrumentedHost, InstrumentOptions } from './instrument-host.js'
export { withRemoteParent } from './remote-parent.js'
export { isOpenTelemetryRegistered } from './detect.js'

// What the signatures above refer to that `toolhost` exports too: the same declarations, types only,
// so a type imported from this entry and from `toolhost` is one type.
export type { ERROR_CODES, ErrorCode } from '../contract/errors.js'
export type { Access, ContentBlock, LogLevel, ToolError, ToolResult } from '../contract/types.js'
export type { Footprint, Touch } from '../dispatch/admit/footprint.js'
export type { RateLimit } from '../dispatch/schedule/rate-limits.js'
export type { SchedulerEvent, Wait } from '../dispatch/schedule/scheduler-types.js'
export type { CallEvent, HostEvent } from '../host/host.js'
