package topupd

import (
	"context"
	"errors"
	"math/big"
	"time"
)

// Our money at each upstream (back-office.md, section 1): the known
// balance, how fast it burns, how long it lasts, the alert it raises, and
// the rules that keep an order away from a supplier that cannot cover it.

// The levels of an upstream's balance alert.
const (
	BalanceAlertNone     = "none"
	BalanceAlertWarn     = "warn"
	BalanceAlertCritical = "critical"
)

// AlertWaitingFunds is the alert of a parked order: every supplier it may
// still go to was passed over for its balance, or refused the order for
// it, and it waits for a read that shows the money.
const AlertWaitingFunds = "WAITING FOR SUPPLIER FUNDS"

// EventWaiting is the kind of the history step of an order that was
// parked; NoteWaitingFunds is its note.
const (
	EventWaiting     = "waiting"
	NoteWaitingFunds = "waiting for supplier funds"
)

// The whys of a supplier attempt left for the money there: passed over
// because the known balance could not cover the order (WhyBalance), or
// refused with INSUFFICIENT BALANCE (WhyInsufficient). Such an attempt
// surely holds no order, and a parked order may go back to it.
const (
	WhyBalance      = "balance"
	WhyInsufficient = "balance: INSUFFICIENT BALANCE"
)

// FundsWhy reports whether an attempt left with why was left for the money.
func FundsWhy(why string) bool { return why == WhyBalance || why == WhyInsufficient }

// ErrSupplierDry marks a supplier's INSUFFICIENT BALANCE answer to a
// submit: our balance there is known to be 0, and the order, which it
// holds none of, moves on (it is wrapped with ErrSupplierRefused).
var ErrSupplierDry = errors.New("our balance at the supplier cannot cover the order")

// Covers reports whether a known balance covers an order that costs cost
// there: an unknown balance (nil) does; with no cost, any balance above 0.
func Covers(balance *Money, cost Money) bool {
	switch {
	case balance == nil:
		return true
	case cost > 0:
		return *balance >= cost
	}
	return *balance > 0
}

// BurnPerHour is the burn of costs of 24 hours, per hour, to the nearest
// minor unit.
func BurnPerHour(day Money) Money { return (day + 12) / 24 }

// RunwayTenths is how long a balance lasts at a day's burn, in tenths of
// an hour, rounded down: balance ÷ (day ÷ 24). ok is false when the
// balance is unknown or the burn is 0; a balance at 0 or below lasts 0.
func RunwayTenths(balance *Money, day Money) (tenths int64, ok bool) {
	switch {
	case balance == nil || day <= 0:
		return 0, false
	case *balance <= 0:
		return 0, true
	}
	n := new(big.Int).Mul(big.NewInt(int64(*balance)), big.NewInt(240))
	n.Quo(n, big.NewInt(int64(day)))
	if !n.IsInt64() {
		return 1 << 62, true
	}
	return n.Int64(), true
}

// Funds is what the balance alert of an upstream is worked out from.
type Funds struct {
	// Balance is the known balance, nil while unknown; Day the costs of
	// the orders completed there in the last 24 hours.
	Balance *Money
	Day     Money
	// WarnHours and CriticalHours are the thresholds.
	WarnHours, CriticalHours float64
}

// RawLevel is the balance alert the funds call for, before hysteresis:
// critical at a balance of 0 or below or a runway under CriticalHours,
// warn under WarnHours, else (and while the balance is unknown) none.
func (f Funds) RawLevel() string {
	if f.Balance == nil {
		return BalanceAlertNone
	}
	if *f.Balance <= 0 {
		return BalanceAlertCritical
	}
	tenths, ok := RunwayTenths(f.Balance, f.Day)
	switch {
	case !ok:
		return BalanceAlertNone
	case float64(tenths) < f.CriticalHours*10:
		return BalanceAlertCritical
	case float64(tenths) < f.WarnHours*10:
		return BalanceAlertWarn
	}
	return BalanceAlertNone
}

// clear reports whether a raised alert may fall to none: a runway of at
// least twice WarnHours, or none (no burn) with a balance above 0.
func (f Funds) clear() bool {
	if f.Balance == nil || *f.Balance <= 0 {
		return false
	}
	tenths, ok := RunwayTenths(f.Balance, f.Day)
	return !ok || float64(tenths) >= 2*f.WarnHours*10
}

// NextLevel is the balance alert after prev, with hysteresis: it rises to
// a higher raw level at once; it falls to none only once clear, or to the
// raw level at a top-up (a read higher than the balance known before it).
func (f Funds) NextLevel(prev string, topUp bool) string {
	raw := f.RawLevel()
	switch {
	case alertRank(raw) > alertRank(prev), topUp:
		return raw
	case prev != BalanceAlertNone && f.clear():
		return BalanceAlertNone
	}
	if alertRank(prev) == 0 {
		return BalanceAlertNone
	}
	return prev
}

// alertRank orders the levels; an unknown one counts as none.
func alertRank(level string) int {
	switch level {
	case BalanceAlertWarn:
		return 1
	case BalanceAlertCritical:
		return 2
	}
	return 0
}

// SupplierRead is a read of our balance at an upstream: a poll, a check,
// or any answer of it that carried one.
type SupplierRead struct {
	Upstream string
	Balance  Money
	At       time.Time
}

// FundsStore keeps what the deployment knows of its money at each
// upstream, the same for every node.
type FundsStore interface {
	BalancePollStore
	// RecordSupplierRead records a good read (state ok, the balance, the
	// balance alert, any change of it an operator event) and makes the
	// orders waiting for funds due; ENotFound for an unknown upstream.
	RecordSupplierRead(ctx context.Context, r SupplierRead) (Upstream, error)
	// RecordSupplierCall records how a call to an upstream went (state ok
	// or failing); an unknown upstream is passed over.
	RecordSupplierCall(ctx context.Context, name string, ok bool, at time.Time) error
	// EvaluateBalanceAlerts works every upstream's balance alert out
	// again at now (the burn moves with time): each change is an
	// operator event.
	EvaluateBalanceAlerts(ctx context.Context, now time.Time) error
	// WaitingFunds counts the orders waiting for supplier funds.
	WaitingFunds(ctx context.Context) (int, error)
	// OperatorEvents returns up to limit operator events after the one
	// with id after ("" from the oldest kept), oldest first, and whether
	// more follow; an unknown after is EInvalidRequest.
	OperatorEvents(ctx context.Context, after string, limit int, since time.Time) ([]Event, bool, error)
}

// BalancePollStore shares the schedule of balance polls among nodes.
type BalancePollStore interface {
	// ClaimBalancePoll takes the poll of an upstream's balance due at now
	// (none since every before now, nor a save): true for one node only.
	ClaimBalancePoll(ctx context.Context, name string, now time.Time, every time.Duration) (bool, error)
}
