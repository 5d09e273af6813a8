package ratelimit

import (
	"context"
	"sync"
	"time"
)

// RenewEvery is how many times per ttl a held lock is extended: a holder
// that dies stops extending, so its lock lapses at most ttl after the last
// extension, while a live holder keeps it through up to RenewEvery-1
// failed extensions in a row.
const RenewEvery = 4

// keepAlive extends a held lock every ttl/RenewEvery, from a goroutine of
// its own, until the returned release is called or ctx ends. extend reports
// false when it found the lock lost (taken over after it lapsed): extending
// then stops. An extension that failed for another reason (Redis slow or
// down) reports true and is tried again at the next tick. release stops the
// goroutine, waits for it (so that no extension runs after release), then
// calls letGo; it is safe to call twice.
func keepAlive(ctx context.Context, ttl time.Duration, extend func() bool, letGo func()) (release func()) {
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(max(ttl/RenewEvery, time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if !extend() {
					return
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			<-done
			letGo()
		})
	}
}
