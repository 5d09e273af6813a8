package limittest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// RunInFlight runs every in-flight behaviour as a parallel subtest.
// newInFlight must return a fresh InFlight whose keys no other test uses;
// errInvalidTTL is the error that Acquire and Hold return (as errors.Is sees
// it) for a ttl that is not positive, or nil to accept any error.
func RunInFlight(t *testing.T, newInFlight func(t *testing.T) topupd.InFlight, errInvalidTTL error) {
	tests := []struct {
		name string
		run  func(t *testing.T, f *inFlight)
	}{
		{"HeldThenReleased", testHeldThenReleased},
		{"Expiry", testExpiry},
		{"StaleReleaseKeepsNewHolder", testStaleRelease},
		{"ConcurrentAcquireOneWinner", testOneWinner},
		{"ConcurrentAcquireRelease", testAcquireReleaseRace},
		{"InvalidTTL", testInvalidTTL},
		{"CancelledContext", testInFlightCancelled},
		{"HoldKeepsLockWhileHeld", testHoldKeeps},
		{"HoldReleaseFreesAtOnce", testHoldRelease},
		{"HoldLapsesWhenHolderStops", testHoldLapses},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &inFlight{t: t, f: newInFlight(t), errInvalidTTL: errInvalidTTL}
			tc.run(t, f)
		})
	}
}

// inFlight is an InFlight under test.
type inFlight struct {
	t             *testing.T
	f             topupd.InFlight
	errInvalidTTL error
}

// taker is Acquire or Hold, by name.
type taker struct {
	name string
	take func(ctx context.Context, key string, ttl time.Duration) (release func(), ok bool, err error)
}

// takers returns f's two ways of taking a lock.
func (f *inFlight) takers() []taker {
	return []taker{{"Acquire", f.f.Acquire}, {"Hold", f.f.Hold}}
}

// acquire calls Acquire; it fails the test on an error or a nil release.
func (f *inFlight) acquire(key string, ttl time.Duration) (release func(), ok bool) {
	f.t.Helper()
	release, ok, err := f.f.Acquire(context.Background(), key, ttl)
	f.check("Acquire", key, release, err)
	return release, ok
}

// hold calls Hold under ctx; it fails the test on an error or a nil release.
func (f *inFlight) hold(ctx context.Context, key string, ttl time.Duration) (release func(), ok bool) {
	f.t.Helper()
	release, ok, err := f.f.Hold(ctx, key, ttl)
	f.check("Hold", key, release, err)
	return release, ok
}

// check fails the test when op on key returned an error or a nil release.
func (f *inFlight) check(op, key string, release func(), err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatalf("%s(%q): %v", op, key, err)
	}
	if release == nil {
		f.t.Fatalf("%s(%q) returned a nil release", op, key)
	}
}

// mustHold takes key for a minute, which must succeed, and returns its release.
func (f *inFlight) mustHold(key, what string) func() {
	f.t.Helper()
	release, ok := f.acquire(key, time.Minute)
	if !ok {
		f.t.Fatalf("%s: Acquire(%q) refused, want the lock free", what, key)
	}
	return release
}

// mustBeHeld checks that key cannot be taken.
func (f *inFlight) mustBeHeld(key, what string) {
	f.t.Helper()
	if release, ok := f.acquire(key, time.Minute); ok {
		release()
		f.t.Fatalf("%s: Acquire(%q) succeeded, want it held", what, key)
	}
}

// testHeldThenReleased: a held key refuses a second taker, other keys are
// free, release frees it and is safe twice, and an old release does not
// free a new holder.
func testHeldThenReleased(t *testing.T, f *inFlight) {
	release := f.mustHold("req-1", "first Acquire")
	f.mustBeHeld("req-1", "while held")
	f.mustHold("req-2", "another key")
	f.mustHold("", "the empty key")
	release()
	release()
	release2 := f.mustHold("req-1", "after release")
	release()
	f.mustBeHeld("req-1", "after the first holder's release, again")
	release2()
	f.mustHold("req-1", "after the second holder's release")
}

// testExpiry: a lock is held until its ttl has passed, then free by itself.
func testExpiry(t *testing.T, f *inFlight) {
	const ttl = time.Second
	timed(t, func(key string) error {
		start := time.Now()
		if _, ok := f.acquire(key, ttl); !ok {
			t.Fatalf("Acquire(%q) of a free key refused", key)
		}
		_, again := f.acquire(key, ttl)
		if err := inTime(start, ttl, "taking the lock and trying again"); err != nil {
			return err
		}
		if again {
			t.Fatalf("a second Acquire succeeded within the lock's ttl %v", ttl)
		}
		var release func()
		freed := waitFor(t, ttl+patience, "the lock to lapse", func() bool {
			r, ok := f.acquire(key, time.Minute)
			release = r
			return ok
		})
		release()
		if after := freed.Sub(start); after < ttl-slack {
			t.Fatalf("the lock was free again after %v, before its ttl %v", after, ttl)
		}
		return nil
	})
}

// testStaleRelease: the release of a lock that lapsed and was taken by
// someone else frees nothing.
func testStaleRelease(t *testing.T, f *inFlight) {
	const ttl = time.Second
	stale, ok := f.acquire("k", ttl)
	if !ok {
		t.Fatal("Acquire of a free key refused")
	}
	f.takeOver("k", ttl, stale)
}

// takeOver waits for key's lock, taken with ttl, to lapse and takes it; the
// lapsed holder's release, stale, called twice, must then keep the new
// holder, and the new holder's release must free the key.
func (f *inFlight) takeOver(key string, ttl time.Duration, stale func()) {
	f.t.Helper()
	var release func()
	waitFor(f.t, ttl+patience, "the old lock to lapse", func() bool {
		r, ok := f.acquire(key, time.Minute)
		release = r
		return ok
	})
	stale()
	stale()
	f.mustBeHeld(key, "after the old holder's late release")
	release()
	f.mustHold(key, "after the new holder's release")
}

// testInvalidTTL: a ttl that is not positive is an error and takes nothing.
func testInvalidTTL(t *testing.T, f *inFlight) {
	for _, op := range f.takers() {
		for _, ttl := range []time.Duration{0, -time.Second} {
			release, ok, err := op.take(context.Background(), "k", ttl)
			if err == nil || f.errInvalidTTL != nil && !errors.Is(err, f.errInvalidTTL) || ok || release == nil {
				t.Fatalf("%s with ttl %v = (nil release: %v, %v, %v), want (non-nil, false, %v)", op.name, ttl, release == nil, ok, err, f.errInvalidTTL)
			}
			release()
		}
	}
	f.mustHold("k", "after the failed calls")
}

// testInFlightCancelled: under a context that has ended, taking a lock fails
// with the context's error and takes nothing.
func testInFlightCancelled(t *testing.T, f *inFlight) {
	for _, op := range f.takers() {
		for _, ctx := range endedContexts(t) {
			release, ok, err := op.take(ctx, "k", time.Minute)
			if !errors.Is(err, ctx.Err()) || ok || release == nil {
				t.Fatalf("%s under an ended context = (nil release: %v, %v, %v), want (non-nil, false, %v)", op.name, release == nil, ok, err, ctx.Err())
			}
			release()
		}
	}
	f.mustHold("k", "after the failed calls")
}

// testHoldKeeps: a held lock outlives several ttls while its holder lives;
// its release frees it at once, is safe twice and does not free a new holder.
func testHoldKeeps(t *testing.T, f *inFlight) {
	const ttl = 1500 * time.Millisecond
	release, ok := f.hold(t.Context(), "k", ttl)
	if !ok {
		t.Fatal("Hold of a free key refused")
	}
	for _, when := range []string{"one ttl", "two ttls", "three ttls"} {
		time.Sleep(ttl)
		f.mustBeHeld("k", when+" into a live Hold")
	}
	release()
	next := f.mustHold("k", "right after the Hold's release")
	release()
	f.mustBeHeld("k", "after the Hold's release, again")
	next()
}

// testHoldRelease: a Hold refuses a second taker, and a refused Hold (whose
// release does nothing) leaves the holder alone; its release frees the key
// at once.
func testHoldRelease(t *testing.T, f *inFlight) {
	release, ok := f.hold(t.Context(), "k", time.Minute)
	if !ok {
		t.Fatal("Hold of a free key refused")
	}
	f.mustBeHeld("k", "while held")
	refused, ok := f.hold(t.Context(), "k", time.Minute)
	if ok {
		t.Fatal("a second Hold succeeded while held")
	}
	refused()
	f.mustBeHeld("k", "after a refused Hold's release")
	f.mustHold("other", "another key")
	release()
	f.mustHold("k", "right after the Hold's release")
}

// testHoldLapses: once a holder's context ends (as when it dies) the lock
// lapses by itself, without a release; the dead holder's late release then
// keeps the new holder.
func testHoldLapses(t *testing.T, f *inFlight) {
	const ttl = time.Second
	ctx, cancel := context.WithCancel(t.Context())
	dead, ok := f.hold(ctx, "k", ttl)
	if !ok {
		t.Fatal("Hold of a free key refused")
	}
	cancel()
	f.takeOver("k", ttl, dead)
}
