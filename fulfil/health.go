package fulfil

import (
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/topupd/topupd"
)

// healthWindow is how many recent calls the error rate is taken over.
const healthWindow = 100

// unhealthyAfter is how many calls in a row must fail for a supplier to be
// unhealthy (see healthy).
const unhealthyAfter = 3

// healthBook keeps, per supplier (a provider, and for upstream orders the
// upstream's name), how its recent calls went. It is this node's view.
type healthBook struct {
	mu    sync.Mutex
	by    map[string]*supplierHealth
	order []string
}

type supplierHealth struct {
	topupd.Health
	recent []bool // ring of the last healthWindow outcomes: true = failed
	next   int
	streak int // calls failed in a row, up to the newest
}

func newHealthBook() *healthBook { return &healthBook{by: map[string]*supplierHealth{}} }

// record notes one supplier call's result.
func (b *healthBook) record(o *topupd.Order, at time.Time, err error) {
	key := o.Provider + "/" + o.Upstream
	b.mu.Lock()
	defer b.mu.Unlock()
	h, ok := b.by[key]
	if !ok {
		h = &supplierHealth{Health: topupd.Health{Provider: o.Provider, Upstream: o.Upstream}}
		b.by[key] = h
		b.order = append(b.order, key)
	}
	// An answer that our balance there is too low is an answer: the
	// balance, not the supplier's health, keeps orders away (funds.go).
	failed := err != nil && !errors.Is(err, topupd.ErrSupplierDry)
	if len(h.recent) < healthWindow {
		h.recent = append(h.recent, failed)
	} else {
		if h.recent[h.next] {
			h.Errors--
		}
		h.recent[h.next] = failed
		h.next = (h.next + 1) % healthWindow
	}
	h.Calls = len(h.recent)
	if failed {
		h.Errors++
		h.streak++
		h.LastError, h.LastErrorMessage = at, err.Error()
		h.Alert = errors.Is(err, topupd.ErrNeedsOperator)
	} else {
		h.LastSuccess, h.Alert, h.streak = at, false, 0
	}
}

// healthy reports whether an order should be sent to a supplier, as far as
// this node has seen. A supplier is unhealthy while it is alerting (its
// newest call failed in a way only the operator can clear: our balance or
// our key there) or its newest unhealthyAfter calls all failed, and for
// hold after its newest failure; after that, the next order tries it
// again, and its answer decides. A supplier this node has not called yet
// is healthy.
func (b *healthBook) healthy(provider, upstream string, now time.Time, hold time.Duration) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	h, ok := b.by[provider+"/"+upstream]
	if !ok || (!h.Alert && h.streak < unhealthyAfter) {
		return true
	}
	return now.Sub(h.LastError) >= hold
}

// snapshot returns every supplier's health, by provider then upstream.
func (b *healthBook) snapshot() []topupd.Health {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]topupd.Health, 0, len(b.by))
	for _, k := range b.order {
		out = append(out, b.by[k].Health)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Provider != out[j].Provider {
			return out[i].Provider < out[j].Provider
		}
		return out[i].Upstream < out[j].Upstream
	})
	return out
}
