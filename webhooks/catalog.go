package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/topupd/topupd"
)

// catalogChanged is a catalog.changed event's data.
type catalogChanged struct {
	PIDs []string `json:"pids"`
}

// catalogEvents makes a packs.changed stream event into a catalog.changed
// event for each account it concerns: the accounts it names, or every live
// account that existed when the change was made. Each event's id is derived from the stream event's and the
// account's, so the same change told again, on any node, makes the same
// ids, which the store adds nothing for. A change of every pack names the
// packs on sale when it is told.
func (n *Notifier) catalogEvents(ctx context.Context, e *topupd.Event, d *topupd.PacksChangedData) ([]topupd.WebhookEvent, error) {
	c := *d
	c.PIDs = slices.Clone(d.PIDs)
	var err error
	if c.AllPacks {
		if c.PIDs, err = n.store.PIDsOnSale(ctx); err != nil {
			return nil, fmt.Errorf("webhooks: event %s: %w", e.ID, err)
		}
	}
	if len(c.PIDs) == 0 {
		return nil, nil
	}
	slices.Sort(c.PIDs)
	accounts := c.Accounts
	if accounts == nil {
		if accounts, err = n.store.CatalogReaders(ctx, e.At); err != nil {
			return nil, fmt.Errorf("webhooks: event %s: %w", e.ID, err)
		}
	}
	data, err := json.Marshal(catalogChanged{PIDs: slices.Compact(c.PIDs)})
	if err != nil {
		return nil, fmt.Errorf("webhooks: event %s: %w", e.ID, err)
	}
	out := make([]topupd.WebhookEvent, 0, len(accounts))
	for _, a := range accounts {
		out = append(out, topupd.WebhookEvent{ID: topupd.DerivedEventID(e.ID, e.At, a), AccountID: a,
			Type: topupd.WebhookCatalogChanged, At: e.At, Data: data})
	}
	return out, nil
}
