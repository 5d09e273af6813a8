package topupd

import (
	"context"
	"time"
)

// PlayerCheckTimeout is how long a player check (POST /players/check) may
// wait for the suppliers: past it, the check is SUPPLIER_UNAVAILABLE.
const PlayerCheckTimeout = 10 * time.Second

// InvalidPlayer is the error of a player a supplier refuses, in an order
// and in a player check.
const InvalidPlayer = "INVALID PLAYER"

// PlayerCheck is a supplier's answer about a player account. Its zero
// value is the answer of a supplier that cannot check players.
type PlayerCheck struct {
	// Supported is false when the supplier cannot check; Valid and
	// Nickname are then unset.
	Supported bool
	// Valid is whether the supplier knows the player.
	Valid bool
	// Nickname is the player's name, when the supplier gives one.
	Nickname string
}

// PlayerChecker is the optional interface of a Provider that can tell,
// before any order, whether a player account exists. A supplier that
// cannot check answers the zero PlayerCheck; an error means it could not
// be asked (unreachable, too slow, a garbled answer).
type PlayerChecker interface {
	// CheckPlayer asks supplier s about the player of account fields f,
	// as an order of s would name them.
	CheckPlayer(ctx context.Context, s Supplier, f AccountFields) (PlayerCheck, error)
}
