/**
 * `toolhost/console`: the live web console of a host (calls on a timeline, approvals, processes,
 * tools, limits). `toolhost serve --http` serves it at `/`; an embedder attaches it with
 * `attachConsole`. See docs/console.md.
 */
export { attachConsole, createConsole } from './attach-console.js'
export type { AttachedConsole, ConsoleOptions, HostConsole } from './attach-console.js'
export { ConsoleApprovals } from './console-approvals.js'
export type { ConsoleDecision, PendingApproval } from './console-approvals.js'
export { ConsoleAuth, CSRF_HEADER } from './console-auth.js'
export { ConsoleHub } from './console-hub.js'
export type { ConsoleClient, LimitView, ProcessView, ToolView } from './console-views.js'
export { CallTimeline } from '../observe/call-timeline.js'
export type { CallDetailWriter, CallRecord, CallState, CallTimelineOptions, RecordedHook, RecordedWait } from '../observe/call-timeline.js'
export type { ConsoleHubOptions } from './console-hub.js'
export type { ConsoleCallAnswer, ConsoleCallProblem, ConsoleCalls } from './console-calls.js'
export type { ConsoleRoutes } from './console-routes.js'
