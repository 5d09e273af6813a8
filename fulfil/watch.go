package fulfil

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/logctx"
)

// WatchStore is what the watch of suppliers' money reads and records.
type WatchStore interface {
	topupd.FundsStore
	ClaimNightly(ctx context.Context, supplier, day string, at time.Time) (bool, error)
	RecordReconciliationFailed(ctx context.Context, d topupd.ReconciliationFailedData, at time.Time) error
	Upstreams(ctx context.Context) ([]topupd.Upstream, error)
	Settings(ctx context.Context) (topupd.Settings, error)
	ExpireDeposits(ctx context.Context, now time.Time) (int, error)
	ApplyPriceChanges(ctx context.Context, now time.Time) (int, error)
}

// Watch keeps the database's view of each upstream current
// (back-office.md, section 1): it records every call's outcome and every
// balance an answer carries (it is the upstream provider's Observer),
// polls each upstream's balance every upstreamBalancePollMinutes (one
// node per poll), and works the balance alerts out again as the burn
// moves. Every node runs one.
type Watch struct {
	Store   WatchStore
	Checker topupd.SupplierChecker
	Now     func() time.Time
	Logger  *slog.Logger
	// Every is how often the watch looks (default 10 s): the polls due,
	// the balance alerts and the nightly reconciliations.
	Every time.Duration
	// Nightly, when set, reconciles an upstream's day by pull: each
	// upstream's previous UTC day, once reconcileAt has passed, by one
	// node (back-office.md, section 2).
	Nightly func(ctx context.Context, upstream string, p topupd.ReconPeriod) error

	mu      sync.Mutex
	written map[string]stateWritten
}

// stateWritten is the state this node last wrote for an upstream, and when.
type stateWritten struct {
	ok bool
	at time.Time
}

// stateFresh is how long a state this node wrote is not written again.
const stateFresh = 5 * time.Second

func (w *Watch) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Watch) logger() *slog.Logger { return logctx.Logger(w.Logger) }

// SupplierCall records how a call to an upstream went: the state, written
// when it changed on this node or has not been written for a while, so
// every node's view converges.
func (w *Watch) SupplierCall(upstream string, ok bool) {
	now := w.now()
	w.mu.Lock()
	if w.written == nil {
		w.written = map[string]stateWritten{}
	}
	last, seen := w.written[upstream]
	if seen && last.ok == ok && now.Sub(last.at) < stateFresh {
		w.mu.Unlock()
		return
	}
	w.written[upstream] = stateWritten{ok, now}
	w.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.Store.RecordSupplierCall(ctx, upstream, ok, now); err != nil {
		w.logger().Warn("fulfil: recording a supplier call", "upstream", upstream, "err", err)
	}
}

// SupplierRead records a balance an answer of an upstream carried.
func (w *Watch) SupplierRead(upstream string, balance topupd.Money) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := w.Store.RecordSupplierRead(ctx, topupd.SupplierRead{Upstream: upstream, Balance: balance, At: w.now()}); err != nil {
		w.logger().Warn("fulfil: recording a supplier's balance", "upstream", upstream, "err", err)
	}
}

// Run looks every Every until ctx ends.
func (w *Watch) Run(ctx context.Context) {
	every := w.Every
	if every <= 0 {
		every = 10 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		w.Look(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Look polls the balances due, works the balance alerts out again, runs
// the nightly reconciliation once it is due, expires the deposit tickets
// whose time has passed (back-office.md, section 3), and writes the
// scheduled prices that took effect into their packs (section 4 (e): they
// took effect at their time already, for orders and the catalog).
func (w *Watch) Look(ctx context.Context) {
	if _, err := w.Store.ExpireDeposits(ctx, w.now()); err != nil && ctx.Err() == nil {
		w.logger().Warn("fulfil: expiring deposit tickets", "err", err)
	}
	if _, err := w.Store.ApplyPriceChanges(ctx, w.now()); err != nil && ctx.Err() == nil {
		w.logger().Warn("fulfil: writing scheduled prices into their packs", "err", err)
	}
	st, err := w.Store.Settings(ctx)
	if err != nil {
		w.logger().Warn("fulfil: reading the settings", "err", err)
		return
	}
	if st.UpstreamBalancePollMinutes > 0 && w.Checker != nil {
		w.poll(ctx, time.Duration(st.UpstreamBalancePollMinutes)*time.Minute)
	}
	if err := w.Store.EvaluateBalanceAlerts(ctx, w.now()); err != nil && ctx.Err() == nil {
		w.logger().Warn("fulfil: working out the balance alerts", "err", err)
	}
	if st.ReconcileAt != "" && w.Nightly != nil {
		w.nightly(ctx, st.ReconcileAt)
	}
}

// nightly reconciles each upstream's previous UTC day once reconcileAt
// has passed today, each upstream's day by the node that takes it; one
// that cannot be read is told as reconciliation.failed.
func (w *Watch) nightly(ctx context.Context, at string) {
	clock, ok := topupd.ReconcileClock(at)
	now := w.now().UTC()
	today := now.Truncate(24 * time.Hour)
	if !ok || now.Before(today.Add(clock)) {
		return
	}
	day := today.AddDate(0, 0, -1)
	ups, err := w.Store.Upstreams(ctx)
	if err != nil {
		w.logger().Warn("fulfil: reading the upstreams", "err", err)
		return
	}
	for _, u := range ups {
		mine, err := w.Store.ClaimNightly(ctx, u.Name, day.Format(time.DateOnly), now)
		if err != nil || !mine {
			continue
		}
		if err := w.Nightly(ctx, u.Name, topupd.ReconPeriod{From: day, To: day}); err != nil {
			w.logger().Warn("fulfil: the nightly reconciliation", "upstream", u.Name, "err", err)
			d := topupd.ReconciliationFailedData{Supplier: u.Name, From: day.Format(time.DateOnly), To: day.Format(time.DateOnly), Error: err.Error()}
			if rerr := w.Store.RecordReconciliationFailed(ctx, d, w.now()); rerr != nil {
				w.logger().Warn("fulfil: telling a failed reconciliation", "upstream", u.Name, "err", rerr)
			}
		}
	}
}

// poll reads the balance of each upstream whose poll is due and that no
// other node has taken.
func (w *Watch) poll(ctx context.Context, every time.Duration) {
	ups, err := w.Store.Upstreams(ctx)
	if err != nil {
		w.logger().Warn("fulfil: reading the upstreams", "err", err)
		return
	}
	for _, u := range ups {
		if u.BalanceAt != nil && w.now().Sub(*u.BalanceAt) < every {
			continue // read within the period: by a check, an answer or a poll
		}
		mine, err := w.Store.ClaimBalancePoll(ctx, u.Name, w.now(), every)
		if err != nil || !mine {
			continue
		}
		bal, err := w.Checker.CheckBalance(ctx, u)
		if err != nil {
			w.logger().Warn("fulfil: polling a supplier's balance", "upstream", u.Name, "err", err)
			w.SupplierCall(u.Name, false)
			continue
		}
		if _, err := w.Store.RecordSupplierRead(ctx, topupd.SupplierRead{Upstream: u.Name, Balance: bal, At: w.now()}); err != nil {
			w.logger().Warn("fulfil: recording a supplier's balance", "upstream", u.Name, "err", err)
		}
	}
}
