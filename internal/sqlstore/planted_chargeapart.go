//go:build simbug_chargeapart

package sqlstore

// A planted bug (see planted_chargeapart_off.go): the charge made outside
// the order's transaction.
const plantedChargeApart = true
