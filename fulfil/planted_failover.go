//go:build simbug_failover && !simbug_refundguard

package fulfil

// A planted bug (see planted.go): failover after an unknown outcome.
const (
	plantedNoRefundGuard     = false
	plantedFailoverOnUnknown = true
)
