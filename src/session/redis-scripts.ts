// The Lua scripts of the Redis session store. Each runs atomically in Redis, in one round trip.
//
// The session scripts take KEYS[1] = the session key and KEYS[2] = the index: a sorted set of session
// id -> expiry in epoch milliseconds by Redis' own clock (TIME), the clock that expires the key, so
// replicas with skewed clocks agree and a score is the key's expiry to the millisecond. count() reads
// the index; redis-store.ts says why it exists. KEYS[3] is the session's "unused" marker: it exists
// (with the short idle timeout) until the session's first patch, and while it does the session
// slides by that timeout rather than the full one.
import { LuaScript } from './lua-script.js';

const NOW_MS = `
local function now_ms()
  local time = redis.call('TIME')
  return time[1] * 1000 + math.floor(time[2] / 1000)
end
`;

/**
 * KEYS[4] = the principal's set of session ids (scores unused). ARGV: record JSON, idle seconds,
 * id, idle seconds while unused ('0': the session is used already), the principal's cap ('0': none),
 * the session key prefix, the unused marker prefix. Returns the JSON of each session the cap
 * deleted: the live ones nearest their expiry (the index's scores), enough for the new one to fit.
 */
export const createSession = new LuaScript(`${NOW_MS}
local now = now_ms()
local evicted = {}
local cap = tonumber(ARGV[5])
if cap > 0 then
  local live = {}
  for _, member in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
    local expiry = redis.call('ZSCORE', KEYS[2], member)
    if expiry and tonumber(expiry) >= now then
      table.insert(live, { member, tonumber(expiry) })
    else
      redis.call('ZREM', KEYS[4], member)
    end
  end
  table.sort(live, function(a, b) return a[2] < b[2] end)
  for i = 1, #live - cap + 1 do
    local id = live[i][1]
    local json = redis.call('GET', ARGV[6] .. id)
    redis.call('DEL', ARGV[6] .. id, ARGV[7] .. id)
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZREM', KEYS[4], id)
    if json then table.insert(evicted, json) end
  end
  redis.call('ZADD', KEYS[4], now, ARGV[3])
  -- Members are checked against the index above; the set only has to outlive a quiet spell.
  redis.call('EXPIRE', KEYS[4], ARGV[2])
end
local idle = ARGV[2]
if ARGV[4] ~= '0' then
  idle = ARGV[4]
  redis.call('SET', KEYS[3], '1', 'EX', idle)
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', idle)
-- Pruning here too keeps the index bounded even when nobody ever calls count().
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. now)
redis.call('ZADD', KEYS[2], now + idle * 1000, ARGV[3])
return evicted
`);

/** ARGV: idle seconds, id, idle seconds while unused. Returns the record JSON, or nil. */
export const getSession = new LuaScript(`${NOW_MS}
local idle = ARGV[1]
-- EXPIRE answers 1 only when the marker exists: the session has not been used yet.
if redis.call('EXPIRE', KEYS[3], ARGV[3]) == 1 then idle = ARGV[3] end
local record = redis.call('GETEX', KEYS[1], 'EX', idle)
-- Only a session that exists is re-indexed: a client retrying an expired id must not revive it in the count.
if record then
  redis.call('ZADD', KEYS[2], now_ms() + idle * 1000, ARGV[2])
end
return record
`);

/**
 * Compare-and-set. ARGV: the JSON the caller read, the JSON to write, idle seconds, id.
 * Returns 1 when written, nil when the session is gone (it is never recreated), or the current JSON
 * when another writer got there first, so the caller merges again without another read.
 */
export const replaceSession = new LuaScript(`${NOW_MS}
local current = redis.call('GET', KEYS[1])
if not current then return false end
if current ~= ARGV[1] then return current end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
redis.call('DEL', KEYS[3])
redis.call('ZADD', KEYS[2], now_ms() + ARGV[3] * 1000, ARGV[4])
return 1
`);

/** ARGV: id. Returns the number of session keys deleted (0 or 1). */
export const deleteSession = new LuaScript(`
local deleted = redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[3])
redis.call('ZREM', KEYS[2], ARGV[1])
return deleted
`);

/** KEYS[1] = the index. Returns the number of live sessions. */
export const countSessions = new LuaScript(`${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now_ms())
return redis.call('ZCARD', KEYS[1])
`);
