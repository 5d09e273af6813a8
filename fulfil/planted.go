//go:build !simbug_refundguard && !simbug_failover

package fulfil

// The planted bugs of the simulator's proof that it finds bugs
// (docs/simulation.md): each is off unless its build tag is set, and a
// constant false compiles its branch away.
const (
	// plantedNoRefundGuard (simbug_refundguard) refunds an order at its
	// deadline even when a submit may have reached the supplier.
	plantedNoRefundGuard = false
	// plantedFailoverOnUnknown (simbug_failover) moves an order on to its
	// next supplier after a submit whose outcome is unknown.
	plantedFailoverOnUnknown = false
)
