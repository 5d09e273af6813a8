package topupd

import "strings"

// The sim supplier's rules (operator-api.md, "The sim supplier switch"):
// a top-up whose userId starts with SimInvalidPlayerPrefix fails with
// INVALID PLAYER, and any other completes simDelayMs after placement, each
// call taking simCallMs. provider/sim answers by them; placement uses them
// to complete at once a top-up sim would complete at its first call
// (PlaceOrder.SimAtOnce).

// SimInvalidPlayerPrefix starts the user ids the sim supplier refuses.
const SimInvalidPlayerPrefix = "9999"

// SimRefuses reports whether the sim supplier refuses the player of fields f.
func SimRefuses(f AccountFields) bool {
	return strings.HasPrefix(f.UserID, SimInvalidPlayerPrefix)
}

// SimAnswersAtOnce reports whether, under settings st, the sim supplier
// answers an order's first call finally and without waiting: no delay
// after placement and no time per call.
func SimAnswersAtOnce(st Settings) bool {
	return st.SimDelayMs <= 0 && st.SimCallMs <= 0
}

// FollowsSimRules reports whether an order of this provider is fulfilled
// by the sim rules: the sim supplier's, and a sandbox's.
func FollowsSimRules(provider string) bool {
	return provider == ProviderSim || provider == ProviderSandbox
}
