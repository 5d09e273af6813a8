package topupd

import "time"

// AuditCheck is one invariant of the books, checked over the whole database.
type AuditCheck struct {
	Name string
	// Violations counts the rows that break it; Examples names a few.
	Violations int
	Examples   []string
}

// Audit is the result of checking every invariant of the books at once.
type Audit struct {
	Accounts      int
	Orders        int
	LedgerEntries int
	Checks        []AuditCheck
}

// OK reports whether every check holds.
func (a Audit) OK() bool {
	for _, c := range a.Checks {
		if c.Violations != 0 {
			return false
		}
	}
	return true
}

// FinalGrace is how long past its deadline an order may still be
// processing before the audit's orders-final check counts it: the engine
// cancels an order at its deadline on its next look, and an order a
// supplier may have waits for its answer. An order processing within its
// deadline is the normal state of a live server, never a broken book.
const FinalGrace = 5 * time.Minute

// FinalDue is the time before which an order's deadline must lie for the
// audit at now to count it as one that should be final: now less
// FinalGrace.
func FinalDue(now time.Time) time.Time { return now.Add(-FinalGrace) }
