//go:build !simbug_lease

package sqlstore

// plantedNoLeaseFence (build tag simbug_lease) is a planted bug of the
// simulator's proof that it finds bugs (docs/simulation.md):
// MarkSubmitting, MoveSupplier and Settle no longer check that the worker
// still holds the order's lease. Off, it compiles away.
const plantedNoLeaseFence = false

// plantedLeaseFence is MarkSubmitting's check of the lease.
const plantedLeaseFence = `lease_owner = $2`
