package ratelimit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/limittest"
)

// testRedisOptions returns the options of TOPUPD_TEST_REDIS, skipping tb when it is unset.
func testRedisOptions(tb testing.TB) *redis.Options {
	tb.Helper()
	url := os.Getenv("TOPUPD_TEST_REDIS")
	if url == "" {
		tb.Skip("TOPUPD_TEST_REDIS not set: skipping Redis tests")
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		tb.Fatalf("TOPUPD_TEST_REDIS: %v", err)
	}
	return opt
}

// newTestClient returns a fresh client on TOPUPD_TEST_REDIS, closed when tb ends.
func newTestClient(tb testing.TB) *redis.Client {
	tb.Helper()
	c := redis.NewClient(testRedisOptions(tb))
	tb.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		tb.Fatalf("TOPUPD_TEST_REDIS unreachable: %v", err)
	}
	return c
}

// testRedis returns a client and a key prefix of its own; the prefix's keys are deleted when tb ends.
func testRedis(tb testing.TB) (*redis.Client, string) {
	tb.Helper()
	c := newTestClient(tb)
	prefix := fmt.Sprintf("topupd:test:%016x:", rand.Uint64())
	tb.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 500).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			tb.Errorf("cleaning up %s*: %v", prefix, err)
		}
	})
	return c, prefix
}

// redisMicros returns Redis's clock in microseconds.
func redisMicros(t *testing.T, c *redis.Client) int64 {
	t.Helper()
	now, err := c.Time(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return now.UnixMicro()
}

// waitRedisUntil sleeps until Redis's clock reaches us microseconds.
func waitRedisUntil(t *testing.T, c *redis.Client, us int64) {
	t.Helper()
	for {
		d := time.Duration(us-redisMicros(t, c)) * time.Microsecond
		if d <= 0 {
			return
		}
		time.Sleep(d)
	}
}

// scores returns the times (µs) recorded under key, oldest first.
func scores(t *testing.T, c *redis.Client, key string) []int64 {
	t.Helper()
	zs, err := c.ZRangeWithScores(context.Background(), key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int64, len(zs))
	for i, z := range zs {
		out[i] = int64(z.Score)
	}
	return out
}

// redisAllow calls l.Allow with a background context and fails the test on error.
func redisAllow(t testing.TB, l *Redis, key string) Decision {
	t.Helper()
	d, err := l.Allow(context.Background(), key)
	if err != nil {
		t.Fatalf("Allow(%q): %v", key, err)
	}
	return d
}

// refusedExactly calls Allow, expects a refusal and checks RetryAfter is blockedUntil (µs) minus Redis's time of the call.
func refusedExactly(t *testing.T, c *redis.Client, l *Redis, key string, blockedUntil int64) (d Decision, after int64) {
	t.Helper()
	before := redisMicros(t, c)
	d = redisAllow(t, l, key)
	after = redisMicros(t, c)
	if d.Allowed {
		t.Fatal("call allowed, want refused")
	}
	lo, hi := time.Duration(blockedUntil-after)*time.Microsecond, time.Duration(blockedUntil-before)*time.Microsecond
	if d.RetryAfter <= 0 || d.RetryAfter < lo || d.RetryAfter > hi {
		t.Fatalf("RetryAfter = %v, want within [%v, %v] and > 0", d.RetryAfter, lo, hi)
	}
	return d, after
}

// suiteTimeout bounds the suite's Redis calls: generous, so that a busy
// machine slows the suite down rather than failing it.
const suiteTimeout = 2 * time.Second

// TestRedisLimiterSuite runs the behaviour suite of every limiter on Redis,
// each subtest under a key prefix of its own.
func TestRedisLimiterSuite(t *testing.T) {
	testRedisOptions(t)
	t.Parallel()
	limittest.RunLimiter(t, func(t *testing.T, windows []limittest.Window) topupd.RateLimiter {
		c, prefix := testRedis(t)
		return NewRedis(c, windowsOf(windows), WithPrefix(prefix), WithTimeout(suiteTimeout))
	})
}

// TestRedisSpecBurstExact: the key's sorted set holds one entry per allowed
// call and none per refused one, and RetryAfter is exact on Redis's clock.
func TestRedisSpecBurstExact(t *testing.T) {
	c, prefix := testRedis(t)
	l := NewRedis(c, spec, WithPrefix(prefix))
	for i := range 40 {
		if d := redisAllow(t, l, "acct"); !d.Allowed {
			t.Fatalf("call %d refused: %+v", i+1, d)
		}
	}
	log := scores(t, c, prefix+"acct")
	if len(log) != 40 {
		t.Fatalf("%d entries recorded, want 40", len(log))
	}
	d, after := refusedExactly(t, c, l, "acct", log[0]+1e6)
	if d.RetryAfter > time.Second {
		t.Fatalf("RetryAfter = %v, want <= 1s", d.RetryAfter)
	}
	want := 40
	for range 5 {
		if redisAllow(t, l, "acct").Allowed { // only if this machine took over a second
			want++
		}
	}
	if n := len(scores(t, c, prefix+"acct")); n != want {
		t.Fatalf("%d entries after refused calls, want %d (refusals recorded?)", n, want)
	}
	waitRedisUntil(t, c, after+d.RetryAfter.Microseconds())
	if d := redisAllow(t, l, "acct"); !d.Allowed {
		t.Fatalf("call after RetryAfter refused: %+v", d)
	}
}

// TestRedisTwoWindowsExact: RetryAfter is exact on Redis's clock for each
// window, the key expires after the longest Period, and the set keeps no
// more entries than the largest Limit.
func TestRedisTwoWindowsExact(t *testing.T) {
	c, prefix := testRedis(t)
	const short, long = 200 * time.Millisecond, time.Second
	l := NewRedis(c, []Window{{3, short}, {5, long}}, WithPrefix(prefix))
	key := prefix + "k"
	for i := range 3 {
		if !redisAllow(t, l, "k").Allowed {
			t.Fatalf("call %d refused", i+1)
		}
	}
	log := scores(t, c, key)
	d, _ := refusedExactly(t, c, l, "k", log[0]+short.Microseconds())
	if d.RetryAfter > short {
		t.Fatalf("short window: RetryAfter = %v, want <= %v", d.RetryAfter, short)
	}
	if ttl := c.PTTL(context.Background(), key).Val(); ttl <= 0 || ttl > long {
		t.Fatalf("PTTL = %v, want in (0, %v]", ttl, long)
	}

	// Once the whole burst has left the short window, the long one allows two more.
	waitRedisUntil(t, c, log[2]+short.Microseconds())
	for i := range 2 {
		if !redisAllow(t, l, "k").Allowed {
			t.Fatalf("call %d after the short window refused", i+4)
		}
	}
	d, after := refusedExactly(t, c, l, "k", log[0]+long.Microseconds())
	if d.RetryAfter <= short {
		t.Fatalf("long window: RetryAfter = %v, want > %v", d.RetryAfter, short)
	}
	waitRedisUntil(t, c, after+d.RetryAfter.Microseconds())
	if !redisAllow(t, l, "k").Allowed {
		t.Fatal("call after the long window's RetryAfter refused")
	}
	if n := len(scores(t, c, key)); n > 5 {
		t.Fatalf("%d entries kept, want at most 5", n)
	}
}

// TestRedisSharedAcrossNodes: two nodes (clients) share one limit, and
// simultaneous calls are recorded as distinct entries.
func TestRedisSharedAcrossNodes(t *testing.T) {
	c1, prefix := testRedis(t)
	c2 := newTestClient(t)
	nodes := []*Redis{NewRedis(c1, spec, WithPrefix(prefix)), NewRedis(c2, spec, WithPrefix(prefix))}
	var allowed atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 80 {
		l := nodes[i%2]
		wg.Go(func() {
			<-start
			if redisAllow(t, l, "acct").Allowed {
				allowed.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if got := allowed.Load(); got != 40 {
		t.Fatalf("%d of 80 calls allowed across two nodes, want 40", got)
	}
	if n := len(scores(t, c1, prefix+"acct")); n != 40 {
		t.Fatalf("%d entries, want 40", n)
	}
}

func BenchmarkRedisAllow(b *testing.B) {
	c, prefix := testRedis(b)
	l := NewRedis(c, spec, WithPrefix(prefix))
	var n atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := l.Allow(context.Background(), strconv.FormatInt(n.Add(1)%1024, 10)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
