package topupdtest

import (
	"context"
	"sync"

	"github.com/topupd/topupd"
)

// SupplierLog records every supplier call per order id.
type SupplierLog struct {
	mu        sync.Mutex
	active    map[string]int // calls in progress
	maxActive map[string]int // most calls ever in progress at once
	submits   map[string]int // Submit calls
	total     map[string]int // Submit and Status calls
}

func (l *SupplierLog) enter(id string, submit bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active[id]++
	l.maxActive[id] = max(l.maxActive[id], l.active[id])
	l.total[id]++
	if submit {
		l.submits[id]++
	}
}

func (l *SupplierLog) leave(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active[id]--
}

// Stats returns the most concurrent calls, the submits and all calls of an order.
func (l *SupplierLog) Stats(id string) [3]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return [3]int{l.maxActive[id], l.submits[id], l.total[id]}
}

// watched is a provider whose calls are recorded.
type watched struct {
	inner topupd.Provider
	log   *SupplierLog
}

// Submit records the call and makes it.
func (w watched) Submit(ctx context.Context, o *topupd.Order) (topupd.Outcome, error) {
	w.log.enter(o.ID, true)
	defer w.log.leave(o.ID)
	return w.inner.Submit(ctx, o)
}

// Status records the call and makes it.
func (w watched) Status(ctx context.Context, o *topupd.Order) (topupd.Outcome, error) {
	w.log.enter(o.ID, false)
	defer w.log.leave(o.ID)
	return w.inner.Status(ctx, o)
}

// newSupplierLog returns an empty log.
func newSupplierLog() *SupplierLog {
	return &SupplierLog{active: map[string]int{}, maxActive: map[string]int{}, submits: map[string]int{}, total: map[string]int{}}
}

// watch wraps a supplier so that its calls are recorded.
func (l *SupplierLog) watch(p topupd.Provider) topupd.Provider { return watched{p, l} }

// CheckPlayer passes a player check on, unrecorded (it concerns no order);
// a supplier that cannot check stays one that cannot.
func (w watched) CheckPlayer(ctx context.Context, s topupd.Supplier, f topupd.AccountFields) (topupd.PlayerCheck, error) {
	if pc, ok := w.inner.(topupd.PlayerChecker); ok {
		return pc.CheckPlayer(ctx, s, f)
	}
	return topupd.PlayerCheck{}, nil
}
