package upstream

import (
	"context"
	"fmt"
	"net/http"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// CheckPlayer asks the upstream's POST /players/check about the player, for
// the upstream's own PID, and passes its answer on. An upstream that
// answers 404 or 501 has no player checks: the zero PlayerCheck (not
// supported). Any other failure (unreachable, 5xx, a refusal of our key or
// of the body, an answer that says nothing) is an error.
func (p *Provider) CheckPlayer(ctx context.Context, s topupd.Supplier, f topupd.AccountFields) (topupd.PlayerCheck, error) {
	c, err := p.clientOf(ctx, &s)
	if err != nil {
		return topupd.PlayerCheck{}, err
	}
	res, err := c.CheckPlayer(ctx, client.PlayerCheckRequest{PID: s.UpstreamPID, UserID: f.UserID, ZoneID: f.ZoneID,
		ServerID: f.ServerID, Region: f.Region, MoreID: f.MoreID})
	switch st := client.StatusCode(err); {
	case err == nil:
		return topupd.PlayerCheck{Supported: res.Supported, Valid: res.Valid, Nickname: res.Nickname}, nil
	case st == http.StatusNotFound || st == http.StatusNotImplemented:
		return topupd.PlayerCheck{}, nil
	}
	return topupd.PlayerCheck{}, fmt.Errorf("upstream %s: checking a player for %s: %w", s.Upstream, s.UpstreamPID, err)
}
