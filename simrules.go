package topupd

import (
	"strings"
	"time"
)

// The sim supplier's rules (operator-api.md, "The sim supplier switch"):
// a top-up whose userId starts with SimInvalidPlayerPrefix fails with
// INVALID PLAYER, and any other completes simDelayMs after placement, each
// call taking simCallMs. provider/sim answers by them; placement uses them
// to give a top-up the answer sim would give its first call: completed
// at once, or pending until simDelayMs after placement (PlaceOrder.Sim).

// SimInvalidPlayerPrefix starts the user ids the sim supplier refuses.
const SimInvalidPlayerPrefix = "9999"

// SimRefuses reports whether the sim supplier refuses the player of fields f.
func SimRefuses(f AccountFields) bool {
	return strings.HasPrefix(f.UserID, SimInvalidPlayerPrefix)
}

// SimTerms are the sim supplier's answers to a first call, under the
// settings they were read from (SimTermsOf).
type SimTerms struct {
	// AtOnce: a call takes no time (simCallMs 0), so its answer is known
	// before it is made (PlaceOrder.Sim).
	AtOnce bool
	// Delay is how long a top-up stays processing after placement
	// (simDelayMs).
	Delay time.Duration
}

// SimTermsOf reads the sim supplier's terms from settings st.
func SimTermsOf(st Settings) SimTerms {
	return SimTerms{AtOnce: st.SimCallMs <= 0, Delay: SimDelay(st)}
}

// SimDelay is how long, under settings st, a sim top-up stays processing
// after placement (simDelayMs).
func SimDelay(st Settings) time.Duration {
	return time.Duration(max(st.SimDelayMs, 0)) * time.Millisecond
}

// FollowsSimRules reports whether an order of this provider is fulfilled
// by the sim rules: the sim supplier's, and a sandbox's.
func FollowsSimRules(provider string) bool {
	return provider == ProviderSim || provider == ProviderSandbox
}
