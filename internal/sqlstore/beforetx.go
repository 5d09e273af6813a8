package sqlstore

import "context"

// beforeTxKey carries a BeforeTx in a context.
type beforeTxKey struct{}

// BeforeTx is called before each write transaction a store call begins
// (once for it, not again for a retry), in the caller's goroutine. A fault
// injector (the simulator, docs/simulation.md) may stop the caller there
// by answering an error, which the call then returns: a store call made of
// more than one transaction then has its earlier ones committed and the
// later ones never begun, as a crash between them would leave them.
type BeforeTx func() error

// WithBeforeTx returns ctx carrying f for the store calls made with it.
func WithBeforeTx(ctx context.Context, f BeforeTx) context.Context {
	return context.WithValue(ctx, beforeTxKey{}, f)
}

// beforeTx calls the context's BeforeTx, if any.
func beforeTx(ctx context.Context) error {
	if f, ok := ctx.Value(beforeTxKey{}).(BeforeTx); ok && f != nil {
		return f()
	}
	return nil
}
