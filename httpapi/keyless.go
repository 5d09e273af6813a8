package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/topupd/topupd"
)

// keyless limits, per client IP, the calls that end without a valid key
// (the reseller API: none, malformed, unknown or revoked) or admin token:
// within the limit each gets its 401; past it, 429 RATE_LIMIT with
// Retry-After, until the count falls back. Only such calls are counted: a
// call with a valid key from the same IP is never refused here (the
// account's own limits apply to it).
//
// Order of checks: a call is authenticated first (a missing or malformed
// key costs no lookup; a well-formed one an indexed read, or the auth
// cache, since a valid key from a limited IP must still be served), and
// only once it has failed is its IP counted. Once a node has seen an IP
// refused, it remembers until when (the limiter's Retry-After), and its
// further calls without a valid key are refused from that memory alone,
// with no limiter call: the limiter records only allowed calls, so nothing
// it would answer changes before then.
type keyless struct {
	limiter topupd.RateLimiter // nil: no limit
	log     *slog.Logger
	now     func() time.Time

	mu    sync.Mutex
	until map[string]time.Time // key → until when it is known to be limited

	lastWarn atomic.Int64 // when the limiter's failure was last logged (UnixNano)
}

// keylessTracked bounds the IPs a node remembers as limited; past it, it
// forgets about a tenth (they ask the limiter again).
const keylessTracked = 100_000

func newKeyless(l topupd.RateLimiter, log *slog.Logger, now func() time.Time) *keyless {
	return &keyless{limiter: l, log: log, now: now, until: map[string]time.Time{}}
}

// refuse answers a call from key (an API's prefix and the client IP) that
// ended without a valid key, whose own answer is refusal: refusal while
// the IP is within its limit, else 429 RATE_LIMIT with Retry-After set on
// w. When the limiter cannot answer (Redis down), the call gets refusal:
// it is refused either way.
func (k *keyless) refuse(ctx context.Context, w http.ResponseWriter, key string, refusal error) error {
	if k == nil || k.limiter == nil {
		return refusal
	}
	now := k.now()
	k.mu.Lock()
	until, hinted := k.until[key]
	if hinted && !now.Before(until) {
		delete(k.until, key)
		hinted = false
	}
	k.mu.Unlock()
	if hinted {
		return limited(w, until.Sub(now))
	}
	d, err := k.limiter.Allow(ctx, key)
	if err != nil {
		if last := k.lastWarn.Load(); now.UnixNano()-last >= int64(10*time.Second) && k.lastWarn.CompareAndSwap(last, now.UnixNano()) {
			k.log.WarnContext(ctx, "the limit on calls without a valid key cannot be checked; such calls get their 401", "err", err)
		}
		return refusal
	}
	if d.Allowed {
		return refusal
	}
	k.mu.Lock()
	if len(k.until) >= keylessTracked {
		for ip := range k.until { // map order is random: forget about a tenth
			delete(k.until, ip)
			if len(k.until) < keylessTracked*9/10 {
				break
			}
		}
	}
	k.until[key] = now.Add(d.RetryAfter)
	k.mu.Unlock()
	return limited(w, d.RetryAfter)
}

// limited is the 429 of a limited IP, with its Retry-After.
func limited(w http.ResponseWriter, wait time.Duration) error {
	w.Header().Set("Retry-After", strconv.Itoa(topupd.RateDecision{RetryAfter: wait}.RetryAfterSeconds()))
	return topupd.Errorf(topupd.ERateLimit, "too many calls without a valid key from this address")
}

// keylessRefusal reports whether err is a reseller call's failure to
// present a valid key: none, malformed, unknown or revoked.
func keylessRefusal(err error) bool {
	switch topupd.CodeOf(err) {
	case topupd.EMissingKey, topupd.EKeyFormat, topupd.EInvalidKey:
		return true
	}
	return false
}
