// The Redis backend, Redis, gives the same semantics as Memory and
// MemoryOrders but shares them across every node of a deployment. Every
// Redis call is bounded by a short timeout (WithTimeout,
// DefaultRedisTimeout) on top of the caller's context, and Allow and
// AllowOrder return even if a connection never answers.
//
// Decision, Redis down: when Redis cannot be reached in time, Allow and
// AllowOrder return an error, never a guess. The API then answers 503
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

// Redis is a Limiter and an OrderLimiter over one sorted set per key in
// Redis, shared by every node.
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
//
// Each AllowOrder runs the same decision and, in the same script, takes the
// call's hints: when the call is allowed and none of the hint keys
// (hint prefix + hint) exists, it sets each with SET PX ttl; when one
// exists, it sets none. A hint is never deleted or extended: it lapses. So
// an order costs one round trip. Every key of one script must live on the
// same Redis (not Redis Cluster, where they would need one hash slot).
type Redis struct {
	client redis.UniversalClient
	cfg    redisConfig
	args   []any // the windows' arguments: longest period, then limit and period of every window
}

var (
	_ Limiter      = (*Redis)(nil)
	_ OrderLimiter = (*Redis)(nil)
)

// allowLua defines allow(key, first), which decides on and records one call
// under the sorted set key; see Redis. ARGV[1]: unique member suffix.
// ARGV[2]: longest period in µs. ARGV[first], ARGV[first+1], ...: limit and
// period (µs) of each window. It returns 0 when the call was allowed (and
// recorded), else the wait in µs.
const allowLua = `
if redis.replicate_commands then redis.replicate_commands() end
local function allow(key, first)
  local clock = redis.call('TIME')
  local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
  local longest = tonumber(ARGV[2])
  local at = now
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if newest[2] and tonumber(newest[2]) > at then at = tonumber(newest[2]) end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%.0f', at - longest))
  local n = redis.call('ZCARD', key)
  local wait = 0
  for i = first, #ARGV, 2 do
    local limit = tonumber(ARGV[i])
    local period = tonumber(ARGV[i + 1])
    if n >= limit then
      local b = tonumber(redis.call('ZRANGE', key, -limit, -limit, 'WITHSCORES')[2])
      if at - b < period and b + period - now > wait then wait = b + period - now end
    end
  end
  if wait > 0 then return wait end
  local score = string.format('%.0f', at)
  redis.call('ZADD', key, score, score .. ':' .. ARGV[1])
  redis.call('PEXPIRE', key, math.ceil((at - now + longest) / 1000))
  return 0
end
`

// allowScript decides on and records one call; see Redis.
//
// KEYS[1]: the key's sorted set. ARGV as allowLua's, the windows from
// ARGV[3]. Returns {1, 0} when allowed, {0, wait in µs} when refused.
var allowScript = redis.NewScript(allowLua + `
local wait = allow(KEYS[1], 3)
if wait > 0 then return {0, wait} end
return {1, 0}
`)

// orderScript is allowScript, then, for an allowed call, the hints: KEYS[2],
// KEYS[3], ... are set to expire ARGV[3] ms from now unless one of them
// exists. ARGV as allowLua's, the windows from ARGV[4]. Returns {0, wait in
// µs, 0} when refused, {1, 0, 0} when allowed and the hints taken, and
// {1, 0, 1} when allowed and a hint held.
var orderScript = redis.NewScript(allowLua + `
local wait = allow(KEYS[1], 4)
if wait > 0 then return {0, wait, 0} end
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then return {1, 0, 1} end
end
for i = 2, #KEYS do
  redis.call('SET', KEYS[i], '1', 'PX', ARGV[3])
end
return {1, 0, 0}
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
	args = append(args, strconv.FormatUint(rand.Uint64(), 36), r.args[0])
	args = append(args, r.args[1:]...)
	res, err := call(ctx, r.cfg.timeout, func(ctx context.Context) ([]int64, error) {
		return allowScript.Run(ctx, r.client, keys, args...).Int64Slice()
	})
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

// AllowOrder decides on one call under key as Allow does and, when it is
// allowed, takes every hint for ttl (rounded up to whole milliseconds)
// unless one is held: all in one script, one round trip. err is
// ErrInvalidTTL, ctx's error, or a Redis failure or timeout; a call that
// timed out may still have been counted and its hints taken.
func (r *Redis) AllowOrder(ctx context.Context, key string, hints []string, ttl time.Duration) (OrderDecision, error) {
	if ttl <= 0 {
		return OrderDecision{}, ErrInvalidTTL
	}
	if err := ctx.Err(); err != nil {
		return OrderDecision{}, err
	}
	keys := make([]string, 0, 1+len(hints))
	keys = append(keys, r.cfg.prefix+key)
	for _, h := range hints {
		keys = append(keys, r.cfg.hintPrefix+h)
	}
	ms := int64((ttl + time.Millisecond - 1) / time.Millisecond)
	args := make([]any, 0, len(r.args)+2)
	args = append(args, strconv.FormatUint(rand.Uint64(), 36), r.args[0], ms)
	args = append(args, r.args[1:]...)
	res, err := call(ctx, r.cfg.timeout, func(ctx context.Context) ([]int64, error) {
		return orderScript.Run(ctx, r.client, keys, args...).Int64Slice()
	})
	if err != nil {
		return OrderDecision{}, fmt.Errorf("ratelimit: redis allow order: %w", err)
	}
	if len(res) != 3 {
		return OrderDecision{}, fmt.Errorf("ratelimit: redis allow order: unexpected reply %v", res)
	}
	if res[0] != 1 {
		return OrderDecision{RateDecision: Decision{RetryAfter: time.Duration(res[1]) * time.Microsecond}}, nil
	}
	return OrderDecision{RateDecision: Decision{Allowed: true}, Held: res[2] == 1}, nil
}
