//go:build !simbug_lease

package sqlstore

// plantedNoLeaseFence (build tag simbug_lease) is a planted bug of the
// simulator's proof that it finds bugs (docs/simulation.md):
// MarkSubmitting, MoveSupplier and Settle no longer check that the worker
// still holds the order's lease. Off, it compiles away. The simulator does
// not catch it yet (docs/simulation.md says why), so CI does not run it.
const plantedNoLeaseFence = false

// plantedLeaseFence is MarkSubmitting's check of the lease.
const plantedLeaseFence = `lease_owner = $2`
