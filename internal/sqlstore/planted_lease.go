//go:build simbug_lease

package sqlstore

// A planted bug (see planted_lease_off.go): a lease that is not fenced.
const plantedNoLeaseFence = true

// plantedLeaseFence checks nothing.
const plantedLeaseFence = `(lease_owner = $2 OR TRUE)`
