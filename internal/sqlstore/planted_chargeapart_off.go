//go:build !simbug_chargeapart

package sqlstore

// plantedChargeApart (build tag simbug_chargeapart) is a planted bug of
// the simulator's proof that it finds bugs (docs/simulation.md): an order's
// charge is written in a transaction of its own, after the order's. Off,
// it compiles away.
const plantedChargeApart = false
