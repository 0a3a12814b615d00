// The Lua scripts of the Redis store: each runs atomically in Redis, on Redis's own clock (TIME), so
// hosts on machines whose clocks differ still agree on which sessions have lapsed.
//
// Keys (all under the store's prefix): `hosts` a sorted set of host ids scored by when their session
// lapses (ms); `leases:<host>` a hash per host and `waiters` one hash, of lease id → record JSON
// ({host, call, claim, pid, machine}); `waitseq` and `waitseen` sorted sets of waiter id → queue
// number and last attempt; `next` the counter of fencing tokens and queue numbers; `conc:<rule>`
// sets of `host|ticket`. The lease hashes of other hosts are reached by name, not through KEYS:
// one Redis, not Redis Cluster.

import type { Redis } from 'ioredis'

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`

// The scheduler's conflict rule (claims.ts `claimConflict`), deciding only: the host words the reason.
const CONFLICTS = `local function within(child, parent)
  if child == parent then return true end
  local prefix = parent
  if string.sub(parent, -1) ~= '/' then prefix = parent .. '/' end
  return string.sub(child, 1, #prefix) == prefix
end
local function conflicts(held, wanted)
  if held.kind == 'barrier' or wanted.kind == 'barrier' then return true end
  if held.kind == 'free' or wanted.kind == 'free' then return false end
  for _, a in ipairs(wanted.touches) do
    for _, b in ipairs(held.touches) do
      if not (a.access == 'read' and b.access == 'read') then
        if a.isKey or b.isKey then
          if a.target == b.target then return true end
        elseif within(a.target, b.target) or within(b.target, a.target) then
          return true
        end
      end
    end
  end
  return false
end`

const ALIVE = `local alive = {}
local function isAlive(id)
  local known = alive[id]
  if known == nil then
    local score = redis.call('ZSCORE', KEYS[1], id)
    known = score ~= false and tonumber(score) > now
    alive[id] = known
  end
  return known
end`

/**
 * Grants a lease or queues a waiter. KEYS: hosts, waiters, next, waitseq, waitseen. ARGV: host id,
 * lease id, record JSON, waiter time to live (ms), the prefix of the hosts' lease hashes. Each host's
 * leases are a hash of their own (`<prefix><host>`): a request reads the other hosts' leases only,
 * and a lapsed host's go in one DEL. Returns `{'granted', token}`, `{'wait', record…}` (a waiter's
 * record prefixed with `~`), or `{'lapsed'}` when this host's own session has lapsed (it must join
 * again before asking).
 */
export const GRANT = `${NOW}
${CONFLICTS}
${ALIVE}
local host, leaseId, record, waiterTtl, leasesOf = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
if not isAlive(host) then return {'lapsed'} end
for _, dead in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)) do
  redis.call('DEL', leasesOf .. dead)
  redis.call('ZREM', KEYS[1], dead)
end
local wanted = cjson.decode(record).claim
local waits = {}
for _, other in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if other ~= host then
    local leases = redis.call('HVALS', leasesOf .. other)
    for i = 1, #leases do
      if conflicts(cjson.decode(leases[i]).claim, wanted) then waits[#waits + 1] = leases[i] end
    end
  end
end
local ownSeq = redis.call('ZSCORE', KEYS[4], leaseId)
local seq = math.huge
if ownSeq then seq = tonumber(ownSeq) end
local waiters = redis.call('HGETALL', KEYS[2])
for i = 1, #waiters, 2 do
  local id = waiters[i]
  local w = cjson.decode(waiters[i + 1])
  local seen = tonumber(redis.call('ZSCORE', KEYS[5], id) or 0)
  if not isAlive(w.host) or (id ~= leaseId and now - seen > waiterTtl) then
    redis.call('HDEL', KEYS[2], id)
    redis.call('ZREM', KEYS[4], id)
    redis.call('ZREM', KEYS[5], id)
  elseif w.host ~= host and tonumber(redis.call('ZSCORE', KEYS[4], id)) < seq and conflicts(w.claim, wanted) then
    waits[#waits + 1] = '~' .. waiters[i + 1]
  end
end
if #waits == 0 then
  if ownSeq then
    redis.call('HDEL', KEYS[2], leaseId)
    redis.call('ZREM', KEYS[4], leaseId)
    redis.call('ZREM', KEYS[5], leaseId)
  end
  local token = redis.call('INCR', KEYS[3])
  redis.call('HSET', leasesOf .. host, leaseId, record)
  return {'granted', token}
end
if not ownSeq then
  redis.call('HSET', KEYS[2], leaseId, record)
  redis.call('ZADD', KEYS[4], redis.call('INCR', KEYS[3]), leaseId)
end
redis.call('ZADD', KEYS[5], now, leaseId)
table.insert(waits, 1, 'wait')
return waits`

/** Drops a lease or waiter. KEYS: this host's leases, waiters, waitseq, waitseen. ARGV: lease id, channel. Returns 1 if it was there. */
export const RELEASE = `local gone = redis.call('HDEL', KEYS[1], ARGV[1]) + redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
if gone > 0 then redis.call('PUBLISH', ARGV[2], 'release') end
return gone`

/**
 * Joins or renews a host's session. KEYS: hosts. ARGV: host id, session time to live (ms). Returns
 * 1 when the host was not there (it joins, or its session had lapsed), 0 when renewed.
 */
export const RENEW = `${NOW}
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
if score == false or tonumber(score) <= now then return 1 end
return 0`

/** Leaves: the host's session, leases and waiters go. KEYS: hosts, this host's leases, waiters, waitseq, waitseen. ARGV: host id, channel. */
export const LEAVE = `redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
local flat = redis.call('HGETALL', KEYS[3])
for i = 1, #flat, 2 do
  if cjson.decode(flat[i + 1]).host == ARGV[1] then
    redis.call('HDEL', KEYS[3], flat[i])
    redis.call('ZREM', KEYS[4], flat[i])
    redis.call('ZREM', KEYS[5], flat[i])
  end
end
redis.call('PUBLISH', ARGV[2], 'leave')
return 1`

/**
 * Takes a concurrency place under a rule: places of hosts whose session lapsed are dropped first.
 * KEYS: hosts, conc:<rule>. ARGV: host id, ticket id, the rule's concurrency. Returns 0 when taken,
 * else the number of places held.
 */
export const TAKE_PLACE = `${NOW}
${ALIVE}
local members = redis.call('SMEMBERS', KEYS[2])
local held = 0
for _, member in ipairs(members) do
  local owner = string.match(member, '^([^|]*)|')
  if isAlive(owner) then held = held + 1 else redis.call('SREM', KEYS[2], member) end
end
if held >= tonumber(ARGV[3]) then return held end
redis.call('SADD', KEYS[2], ARGV[1] .. '|' .. ARGV[2])
return 0`

/**
 * Merges duration estimates into the shared hash, each tool weighted by its samples (capped, so
 * an old average yields to new calls; at most `tools` tools). KEYS: estimates. ARGV: cap, tools,
 * then name, ms, samples per tool.
 */
export const SHARE_ESTIMATES = `local cap, tools = tonumber(ARGV[1]), tonumber(ARGV[2])
for i = 3, #ARGV, 3 do
  local name, ms, samples = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  local old = redis.call('HGET', KEYS[1], name)
  local room = old or redis.call('HLEN', KEYS[1]) < tools
  if old then
    local oldMs, oldSamples = string.match(old, '^([%d.]+) (%d+)$')
    oldMs, oldSamples = tonumber(oldMs), tonumber(oldSamples)
    if oldMs and oldSamples then
      ms = (ms * samples + oldMs * oldSamples) / (samples + oldSamples)
      samples = samples + oldSamples
    end
  end
  if room and ms and samples and samples > 0 then
    if samples > cap then samples = cap end
    redis.call('HSET', KEYS[1], name, string.format('%.3f', ms) .. ' ' .. samples)
  end
end
return 1`

/** Gives a concurrency place back. KEYS: conc:<rule>. ARGV: member, channel. */
export const RELEASE_PLACE = `if redis.call('SREM', KEYS[1], ARGV[1]) > 0 then redis.call('PUBLISH', ARGV[2], 'place') end
return 1`

/** Every script, by the command name it is defined under on each client (`defineCommand`). */
export const SCRIPTS = { toolhostGrant: GRANT, toolhostRelease: RELEASE, toolhostRenew: RENEW, toolhostLeave: LEAVE, toolhostTakePlace: TAKE_PLACE, toolhostReleasePlace: RELEASE_PLACE, toolhostShareEstimates: SHARE_ESTIMATES }

/**
 * Runs a script defined on the client, given its number of keys, keys and arguments.
 *
 * @example
 * await script(client, 'toolhostRenew', 1, keys.hosts, hostId, String(leaseMs))
 */
export function script(client: Redis, name: keyof typeof SCRIPTS, ...args: Array<string | number>): Promise<unknown> {
  return (client as unknown as Record<string, (...a: Array<string | number>) => Promise<unknown>>)[name]!(...args)
}
