package simulation

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/dbfault"
)

// opStore is the store as the operator's requests reach it: through the
// admin API of a node that may stop before a write reaches the database,
// or after its commit but before the answer is seen. The operator then
// sees the request fail (errDead) and does not know whether it took
// effect, and does what an operator would: sends it again, or reloads the
// page and reads what happened.
type opStore struct {
	topupd.Store
	w *World
}

// opCall runs one operator write, letting the scheduler stop the node that
// serves it before or after the call.
func opCall[T any](s opStore, name string, call func() (T, error)) (T, error) {
	return adminCall(s.w, s.w.rng, s.w.dbf.rng, "admin node", name, call)
}

// adminCall runs one write of an admin node (node names it in the trace)
// that may stop before or after it (drawn from crash) and whose SQL may
// meet a fault (drawn from faults): errDead when it stops.
func adminCall[T any](w *World, crash, faults *rand.Rand, node, name string, call func() (T, error)) (T, error) {
	var zero T
	if w.faults && crash.IntN(100) < w.mix.opCrash {
		w.logf("  CRASH %s before %s", node, name)
		w.crashes++
		return zero, errDead
	}
	disarm := w.armDBFrom(faults, name)
	v, err := call()
	disarm()
	if w.faults && crash.IntN(100) < w.mix.opCrash {
		w.logf("  CRASH %s after %s (err=%v)", node, name, err != nil)
		w.crashes++
		return zero, errDead
	}
	return v, err
}

// credited is Credit's answer.
type credited struct {
	e        topupd.LedgerEntry
	repeated bool
}

// Credit is the store's, at a point the admin node may crash.
func (s opStore) Credit(ctx context.Context, ch *topupd.Change, accountID string, amount topupd.Money, reference string, now time.Time) (topupd.LedgerEntry, bool, error) {
	r, err := opCall(s, "Credit", func() (credited, error) {
		e, repeated, err := s.Store.Credit(ctx, ch, accountID, amount, reference, now)
		return credited{e, repeated}, err
	})
	return r.e, r.repeated, err
}

// UpdateAccount is the store's, at a point the admin node may crash.
func (s opStore) UpdateAccount(ctx context.Context, ch *topupd.Change, id string, p topupd.AccountPatch) (topupd.Account, error) {
	return opCall(s, "UpdateAccount", func() (topupd.Account, error) { return s.Store.UpdateAccount(ctx, ch, id, p) })
}

// UpdatePack is the store's, at a point the admin node may crash.
func (s opStore) UpdatePack(ctx context.Context, ch *topupd.Change, pid string, apply func(*topupd.Pack) error) (topupd.Pack, error) {
	return opCall(s, "UpdatePack", func() (topupd.Pack, error) { return s.Store.UpdatePack(ctx, ch, pid, apply) })
}

// VoidBatch is the store's, at a point the admin node may crash.
func (s opStore) VoidBatch(ctx context.Context, ch *topupd.Change, id int64, now time.Time) (topupd.Batch, error) {
	return opCall(s, "VoidBatch", func() (topupd.Batch, error) { return s.Store.VoidBatch(ctx, ch, id, now) })
}

// Settle is the store's, at a point the admin node may crash.
func (s opStore) Settle(ctx context.Context, ch *topupd.Change, seq int64, st topupd.Settlement) (topupd.Order, error) {
	return opCall(s, "Settle", func() (topupd.Order, error) { return s.Store.Settle(ctx, ch, seq, st) })
}

// RetryOrder is the store's, at a point the admin node may crash.
func (s opStore) RetryOrder(ctx context.Context, ch *topupd.Change, seq int64, now, deadline time.Time) (topupd.Order, error) {
	return opCall(s, "RetryOrder", func() (topupd.Order, error) { return s.Store.RetryOrder(ctx, ch, seq, now, deadline) })
}

// untilAnswered sends an operator's request again while the node serving
// it stops before answering, or answers that its database failed (a fault
// at the SQL driver: busy, a lost connection, a commit's answer lost), as
// an operator would (each attempt fails with a chance of about 13%, so a
// hundred never all do in practice). crashed says whether any attempt
// was cut off, so that it may have taken effect unanswered.
func untilAnswered[T any](call func() (T, error)) (v T, crashed bool, err error) {
	for range 100 {
		if v, err = call(); err != errDead && !dbfault.IsInjected(err) {
			return v, crashed, err
		}
		crashed = true
	}
	return v, crashed, err
}
