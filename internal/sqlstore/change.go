package sqlstore

import (
	"context"

	"github.com/topupd/topupd"
)

// A store method that changes what the action log records takes the
// change as an argument (nil for none: the server's own work). Inside the
// store it rides on the context, so that inTx, which every write goes
// through, writes its entry in the change's transaction, whichever helper
// opened it.

// changeKey is the context key of the change a store call records.
type changeKey struct{}

// withChange returns ctx carrying ch for inTx; nil leaves ctx as it is.
func withChange(ctx context.Context, ch *topupd.Change) context.Context {
	if ch == nil {
		return ctx
	}
	return context.WithValue(ctx, changeKey{}, ch)
}

// changeOf returns the change the store call records, or nil.
func changeOf(ctx context.Context) *topupd.Change {
	ch, _ := ctx.Value(changeKey{}).(*topupd.Change)
	return ch
}
