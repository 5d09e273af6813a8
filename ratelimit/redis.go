// The Redis backends, Redis and RedisInFlight, give the same semantics as
// Memory and MemoryInFlight but share them across every node of a
// deployment. Every Redis call is bounded by a short timeout (WithTimeout,
// DefaultRedisTimeout) on top of the caller's context, and Allow and Acquire
// return even if a connection never answers.
//
// Decision, Redis down: when Redis cannot be reached in time, Allow and
// Acquire return an error, never a guess. The API then answers 503
// RATE_LIMIT_UNAVAILABLE for every call, reads included, because an
// unenforced limit is not a limit; there is no fail-open mode. Clients should
// set ContextTimeoutEnabled in their go-redis options so that an abandoned
// call also ends at the deadline rather than at the client's ReadTimeout.
package ratelimit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is a Limiter over one sorted set per key in Redis, shared by every node.
//
// Each Allow runs one Lua script atomically (EVALSHA, falling back to EVAL).
// The script reads the time from Redis (TIME, in microseconds), never from the
// caller, and keeps in the key's sorted set only allowed calls: score = time,
// member = time plus a random suffix, so simultaneous calls are never merged.
// It first drops entries at least the longest Period old, which can no longer
// count in any window; the set then holds at most the longest window's Limit
// entries. A call at time t is allowed iff, for every window, the Limit-th
// most recent entry b (if any) has t-b >= Period, i.e. fewer than Limit
// entries lie in (t-Period, t]. When refused, RetryAfter is the largest
// b+Period-t over the blocking windows, exact to the microsecond, and nothing
// is recorded. When allowed, the call is added and the key's expiry is set to
// the longest Period, so idle keys vanish. As in Memory, time never runs
// backwards for a key: a reading older than the newest entry is treated as
// that entry's time.
type Redis struct {
	client redis.UniversalClient
	cfg    redisConfig
	args   []any // ARGV[2:]: longest period, then limit and period of every window
}

var _ Limiter = (*Redis)(nil)

// allowScript decides on and records one call; see Redis.
//
// KEYS[1]: the key's sorted set. ARGV[1]: unique member suffix. ARGV[2]:
// longest period in µs. ARGV[3], ARGV[4], ...: limit and period (µs) of each
// window. Returns {1, 0} when allowed, {0, wait in µs} when refused.
var allowScript = redis.NewScript(`
if redis.replicate_commands then redis.replicate_commands() end
local key = KEYS[1]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local longest = tonumber(ARGV[2])
local at = now
local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
if newest[2] and tonumber(newest[2]) > at then at = tonumber(newest[2]) end
redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%.0f', at - longest))
local n = redis.call('ZCARD', key)
local wait = 0
for i = 3, #ARGV, 2 do
  local limit = tonumber(ARGV[i])
  local period = tonumber(ARGV[i + 1])
  if n >= limit then
    local b = tonumber(redis.call('ZRANGE', key, -limit, -limit, 'WITHSCORES')[2])
    if at - b < period and b + period - now > wait then wait = b + period - now end
  end
end
if wait > 0 then return {0, wait} end
local score = string.format('%.0f', at)
redis.call('ZADD', key, score, score .. ':' .. ARGV[1])
redis.call('PEXPIRE', key, math.ceil((at - now + longest) / 1000))
return {1, 0}
`)

// NewRedis returns a Redis enforcing every window at once on client; it panics
// if client is nil, windows is empty or any window has Limit < 1 or Period <= 0.
func NewRedis(client redis.UniversalClient, windows []Window, opts ...RedisOption) *Redis {
	if client == nil {
		panic("ratelimit: NewRedis needs a client")
	}
	if len(windows) == 0 {
		panic("ratelimit: NewRedis needs at least one window")
	}
	var longest int64
	args := []any{nil}
	for _, w := range windows {
		if w.Limit < 1 {
			panic("ratelimit: window Limit must be at least 1")
		}
		if w.Period <= 0 {
			panic("ratelimit: window Period must be positive")
		}
		// Times are whole microseconds, so t-b < Period iff t-b < ceil(Period/µs).
		us := int64((w.Period + time.Microsecond - 1) / time.Microsecond)
		longest = max(longest, us)
		args = append(args, w.Limit, us)
	}
	args[0] = longest
	return &Redis{client: client, cfg: newRedisConfig(DefaultLimitPrefix, opts), args: args}
}

// Allow allows and records one call under key if every window has room, and otherwise refuses it with the exact wait; it fails when ctx is done or Redis does not answer within the timeout.
func (r *Redis) Allow(ctx context.Context, key string) (Decision, error) {
	if err := ctx.Err(); err != nil {
		return Decision{}, err
	}
	keys := []string{r.cfg.prefix + key}
	args := make([]any, 0, len(r.args)+1)
	args = append(args, strconv.FormatUint(rand.Uint64(), 36))
	args = append(args, r.args...)
	res, err := call(ctx, r.cfg.timeout, func(ctx context.Context) ([]int64, error) {
		return allowScript.Run(ctx, r.client, keys, args...).Int64Slice()
	}, nil)
	if err != nil {
		return Decision{}, fmt.Errorf("ratelimit: redis allow: %w", err)
	}
	if len(res) != 2 {
		return Decision{}, fmt.Errorf("ratelimit: redis allow: unexpected reply %v", res)
	}
	if res[0] == 1 {
		return Decision{Allowed: true}, nil
	}
	return Decision{RetryAfter: time.Duration(res[1]) * time.Microsecond}, nil
}
