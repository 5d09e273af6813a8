package service

import (
	"context"
	"sort"
	"time"

	"github.com/topupd/topupd"
)

// UpstreamView is an upstream the business buys from, with its health;
// our API key there is never shown.
type UpstreamView struct {
	Name, BaseURL string
	UpdatedAt     time.Time
	Health        topupd.Health
}

// ProviderHealth is how a supplier's recent calls went (as this node has
// seen them), and how many of its orders are stuck (as the database holds
// them: every node's orders).
type ProviderHealth struct {
	topupd.Health
	// StuckOrders counts the supplier's processing orders that need the
	// operator (past their deadline, or carrying an alert).
	StuckOrders int
}

// PutUpstream creates or replaces an upstream server and our API key
// there; it answers the upstream as stored.
func (s *Service) PutUpstream(ctx context.Context, a Actor, u topupd.Upstream) (topupd.Upstream, error) {
	if err := Allowed(a, OpPutUpstream); err != nil {
		return u, err
	}
	u.UpdatedAt = s.d.Now()
	if err := u.Validate(); err != nil {
		return u, err
	}
	if err := s.d.Store.PutUpstream(ctx, change(a, OpPutUpstream, u.Name), u); err != nil {
		return u, err
	}
	s.changed(ctx)
	return u, nil
}

// DeleteUpstream removes an upstream: UPSTREAM_IN_USE while a pack names
// it or a processing order is or may go there (the detail lists the
// packs), NOT_FOUND when there is none.
func (s *Service) DeleteUpstream(ctx context.Context, a Actor, name string) error {
	if err := Allowed(a, OpDeleteUpstream); err != nil {
		return err
	}
	if err := s.d.Store.DeleteUpstream(ctx, change(a, OpDeleteUpstream, name), name); err != nil {
		return err
	}
	s.changed(ctx)
	return nil
}

// Upstreams lists every upstream by name with its health.
func (s *Service) Upstreams(ctx context.Context, a Actor) ([]UpstreamView, error) {
	if err := readCatalog(a); err != nil {
		return nil, err
	}
	ups, err := s.d.Store.Upstreams(ctx)
	if err != nil {
		return nil, err
	}
	health := map[string]topupd.Health{}
	for _, h := range s.d.Health() {
		if h.Provider == topupd.ProviderUpstream {
			health[h.Upstream] = h
		}
	}
	out := make([]UpstreamView, len(ups))
	for i, u := range ups {
		h, ok := health[u.Name]
		if !ok {
			h = topupd.Health{Provider: topupd.ProviderUpstream, Upstream: u.Name}
		}
		out[i] = UpstreamView{Name: u.Name, BaseURL: u.BaseURL, UpdatedAt: u.UpdatedAt, Health: h}
	}
	return out, nil
}

// Providers lists every supplier's health and its stuck orders, by
// provider and upstream: a supplier with stuck orders is alerting, and one
// this node has not called yet is listed when it has stuck orders.
func (s *Service) Providers(ctx context.Context, a Actor) ([]ProviderHealth, error) {
	if err := readCatalog(a); err != nil {
		return nil, err
	}
	stuck, err := s.d.Store.StuckCounts(ctx, s.d.Now())
	if err != nil {
		return nil, err
	}
	type key struct{ provider, upstream string }
	counts := map[key]int{}
	for _, c := range stuck {
		counts[key{c.Provider, c.Upstream}] = c.Orders
	}
	out := []ProviderHealth{}
	for _, h := range s.d.Health() {
		k := key{h.Provider, h.Upstream}
		v := ProviderHealth{Health: h, StuckOrders: counts[k]}
		v.Alert = v.Alert || v.StuckOrders > 0
		delete(counts, k)
		out = append(out, v)
	}
	for k, n := range counts {
		out = append(out, ProviderHealth{Health: topupd.Health{Provider: k.provider, Upstream: k.upstream, Alert: true}, StuckOrders: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Provider != out[j].Provider {
			return out[i].Provider < out[j].Provider
		}
		return out[i].Upstream < out[j].Upstream
	})
	return out, nil
}
