//go:build simbug_refundguard

package fulfil

// A planted bug (see planted.go): the refund guard at the deadline removed.
const (
	plantedNoRefundGuard     = true
	plantedFailoverOnUnknown = false
)
