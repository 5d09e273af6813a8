package sqlstore

import "context"

// midpointKey carries a Midpoint in a context.
type midpointKey struct{}

// Midpoint is called between the transactions of a store call made of more
// than one, with where naming the point: a fault injector (the simulator,
// docs/simulation.md) may stop the node there by answering an error, which
// the call then returns with the earlier transactions committed and the
// later ones never begun, as a crash there would leave them.
type Midpoint func(where string) error

// WithMidpoint returns ctx carrying m for the store calls made with it.
func WithMidpoint(ctx context.Context, m Midpoint) context.Context {
	return context.WithValue(ctx, midpointKey{}, m)
}

// midpoint calls the context's Midpoint, if any.
func midpoint(ctx context.Context, where string) error {
	if m, ok := ctx.Value(midpointKey{}).(Midpoint); ok && m != nil {
		return m(where)
	}
	return nil
}
