// The Lua scripts of the Redis session store. Each runs atomically in Redis, in one round trip.
//
// The session scripts take KEYS[1] = the session key and KEYS[2] = the index: a sorted set of session
// id -> expiry in epoch milliseconds by Redis' own clock (TIME), the clock that expires the key, so
// replicas with skewed clocks agree and a score is the key's expiry to the millisecond. count() reads
// the index; redis-store.ts says why it exists.
import { LuaScript } from './lua-script.js';

const NOW_MS = `
local function now_ms()
  local time = redis.call('TIME')
  return time[1] * 1000 + math.floor(time[2] / 1000)
end
`;

/** ARGV: record JSON, idle seconds, id. */
export const createSession = new LuaScript(`${NOW_MS}
local now = now_ms()
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
-- Pruning here too keeps the index bounded even when nobody ever calls count().
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. now)
redis.call('ZADD', KEYS[2], now + ARGV[2] * 1000, ARGV[3])
return 1
`);

/** ARGV: idle seconds, id. Returns the record JSON, or nil. */
export const getSession = new LuaScript(`${NOW_MS}
local record = redis.call('GETEX', KEYS[1], 'EX', ARGV[1])
-- Only a session that exists is re-indexed: a client retrying an expired id must not revive it in the count.
if record then
  redis.call('ZADD', KEYS[2], now_ms() + ARGV[1] * 1000, ARGV[2])
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
redis.call('ZADD', KEYS[2], now_ms() + ARGV[3] * 1000, ARGV[4])
return 1
`);

/** ARGV: id. Returns the number of session keys deleted (0 or 1). */
export const deleteSession = new LuaScript(`
local deleted = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return deleted
`);

/** KEYS[1] = the index. Returns the number of live sessions. */
export const countSessions = new LuaScript(`${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now_ms())
return redis.call('ZCARD', KEYS[1])
`);
