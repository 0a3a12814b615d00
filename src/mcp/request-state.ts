import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { ToolhostError } from '../contract/errors.js'
import { canonicalJson } from '../permissions/canonical-json.js'
import type { ApprovalLedger } from './approval-ledger.js'

/** How long a question sent as `input_required` may wait for the client's retry. */
export const REQUEST_STATE_TTL_MS = 10 * 60_000
/** The fewest bytes a configured sealing key may have. */
export const MIN_KEY_BYTES = 32
const PREFIX = 'th1'

/** What a call's `requestState` binds: who asked, with which method, for which call. */
export interface StateBinding {
  /** The client principal: the authenticated client id when there is one, else what the transport knows of the client. */
  principal: string
  /** The MCP method (`tools/call`). */
  method: string
  /** `callDigest(name, arguments)`: a state is good for one tool with one set of arguments. */
  call: string
}

/** The sealed content of a `requestState` (signed, not encrypted: nothing secret goes in it). */
export interface InputState extends StateBinding {
  /** Unique per state: what the ledger consumes. */
  id: string
  /** Expiry, ms since the epoch. */
  exp: number
  /** The key of the input request this state waits for the answer to. */
  asked: string
  /** The answers of earlier rounds of the same call, by key. */
  answers: Record<string, unknown>
}

/**
 * A digest of a tool name and its arguments (canonical JSON: key order does not matter).
 *
 * @example
 * callDigest('write_file', { path: 'a', content: 'x' }) === callDigest('write_file', { content: 'x', path: 'a' }) // true
 */
export function callDigest(name: string, args: unknown): string {
  return createHash('sha256').update(canonicalJson({ name, arguments: args ?? {} })).digest('base64url')
}

/**
 * Seals and opens the `requestState` of toolhost's multi round-trip requests (MCP 2026-07-28): an
 * HMAC-SHA256 over the state with a host key, bound to the client principal, the method and the
 * call's digest, with a short expiry. Opening checks all of it and consumes the state's id in the
 * `ApprovalLedger`, so a state (and the approval it carries) is good for one retry only. Every
 * process that may see a retry needs the same key (`TOOLHOST_MCP_STATE_KEY`) and ledger.
 *
 * @example
 * const seal = new RequestStateSeal({ ledger: new MemoryApprovalLedger() })
 * const token = seal.seal({ principal: 'stdio', method: 'tools/call', call: callDigest('zap', {}), asked: 'approve-1', answers: {} })
 * const state = await seal.open(token, { principal: 'stdio', method: 'tools/call', call: callDigest('zap', {}) })
 */
export class RequestStateSeal {
  readonly #key: Buffer
  readonly #ttlMs: number
  readonly #ledger: ApprovalLedger
  readonly #now: () => number

  constructor(options: { ledger: ApprovalLedger; key?: Buffer; ttlMs?: number; now?: () => number }) {
    if (options.key !== undefined && options.key.length < MIN_KEY_BYTES) {
      throw new ToolhostError('E_CONFIG_INVALID', `the requestState key has ${options.key.length} bytes; it needs at least ${MIN_KEY_BYTES}`)
    }
    this.#key = options.key ?? randomBytes(MIN_KEY_BYTES)
    this.#ttlMs = options.ttlMs ?? REQUEST_STATE_TTL_MS
    this.#ledger = options.ledger
    this.#now = options.now ?? Date.now
  }

  /** A new sealed state for `content`, with a fresh id and the expiry from now. */
  seal(content: Omit<InputState, 'id' | 'exp'>): string {
    const state: InputState = { ...content, id: randomUUID(), exp: this.#now() + this.#ttlMs }
    const body = Buffer.from(JSON.stringify(state), 'utf8').toString('base64url')
    return `${PREFIX}.${body}.${this.#mac(body)}`
  }

  /**
   * The state in `token`, when this host sealed it, it has not expired, it is bound to `expected`,
   * and it was not used before (consumed now). Otherwise throws a `ToolhostError`:
   * `E_REQUEST_STATE_INVALID`, `_EXPIRED`, `_MISMATCH` or `_REPLAYED`.
   */
  async open(token: unknown, expected: StateBinding): Promise<InputState> {
    const state = this.#verify(token)
    if (state.exp <= this.#now()) {
      throw new ToolhostError('E_REQUEST_STATE_EXPIRED', `the requestState expired ${Math.round((this.#now() - state.exp) / 1000)} s ago (they last ${Math.round(this.#ttlMs / 1000)} s); call the tool again to be asked again`)
    }
    for (const field of ['principal', 'method', 'call'] as const) {
      if (state[field] !== expected[field]) {
        const what = field === 'call' ? 'another tool or other arguments' : field === 'method' ? `method ${state.method}` : 'another client'
        throw new ToolhostError('E_REQUEST_STATE_MISMATCH', `the requestState was sealed for ${what}, not this ${expected.method} request; an answer is good only for the call that asked`)
      }
    }
    if (!(await this.#ledger.consumeOnce(state.id, state.exp))) {
      throw new ToolhostError('E_REQUEST_STATE_REPLAYED', 'the requestState was already used: an answer (an approval) is consumed once; call the tool again to be asked again')
    }
    return state
  }

  #verify(token: unknown): InputState {
    const parts = typeof token === 'string' ? token.split('.') : []
    const invalid = (why: string): ToolhostError => new ToolhostError('E_REQUEST_STATE_INVALID', `the requestState is not one this host sealed (${why}); call the tool again without it`)
    if (parts.length !== 3 || parts[0] !== PREFIX) throw invalid('malformed')
    const given = Buffer.from(parts[2]!, 'base64url')
    const wanted = Buffer.from(this.#mac(parts[1]!), 'base64url')
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw invalid('bad signature')
    let state: unknown
    try {
      state = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'))
    } catch {
      throw invalid('unreadable')
    }
    if (!isInputState(state)) throw invalid('unreadable')
    return state
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#key).update(`${PREFIX}.${body}`).digest('base64url')
  }
}

function isInputState(value: unknown): value is InputState {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return ['id', 'principal', 'method', 'call', 'asked'].every((k) => typeof v[k] === 'string')
    && typeof v.exp === 'number'
    && typeof v.answers === 'object' && v.answers !== null && !Array.isArray(v.answers)
}

/**
 * The sealing key from `TOOLHOST_MCP_STATE_KEY` (at least 32 bytes; base64 or text), or undefined
 * when it is not set (each process then picks a random key: fine for one process, not for several
 * behind a load balancer). A key too short fails at start-up, naming the variable.
 */
export function stateKeyFromEnv(env: NodeJS.ProcessEnv = process.env): Buffer | undefined {
  const text = env.TOOLHOST_MCP_STATE_KEY
  if (text === undefined || text === '') return undefined
  const key = Buffer.from(text, 'utf8')
  if (key.length < MIN_KEY_BYTES) {
    throw new ToolhostError('E_CONFIG_INVALID', `TOOLHOST_MCP_STATE_KEY has ${key.length} bytes; it needs at least ${MIN_KEY_BYTES} (e.g. openssl rand -base64 48)`)
  }
  return key
}
