package service

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/topupd/topupd"
)

// UpstreamView is an upstream the business buys from, with its health;
// our API key there is never shown.
type UpstreamView struct {
	// Upstream is as stored, without its API key.
	topupd.Upstream
	Health topupd.Health
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
// there; it answers the upstream as stored. With check, the upstream is
// asked for our balance first and nothing is saved unless it answers one:
// UPSTREAM_KEY_REFUSED for any other answer, UPSTREAM_UNREACHABLE for
// none, UPSTREAM_LOOP for an answer from this deployment. Without, it is
// saved unchecked. An existing upstream keeps its thresholds.
func (s *Service) PutUpstream(ctx context.Context, a Actor, u topupd.Upstream, check bool) (UpstreamView, error) {
	if err := Allowed(a, OpPutUpstream); err != nil {
		return UpstreamView{}, err
	}
	now := s.d.Now().UTC().Truncate(time.Millisecond)
	u.UpdatedAt, u.State, u.Balance, u.BalanceAt = now, topupd.UpstreamUnchecked, nil, nil
	if err := u.Validate(); err != nil {
		return UpstreamView{}, err
	}
	if check {
		bal, err := s.checkBalance(ctx, u)
		var refused *topupd.Error
		if errors.As(err, &refused) && refused.Code == topupd.EUpstreamRefused {
			return UpstreamView{}, topupd.Errorf(topupd.EUpstreamKeyRefused, "%s", refused.Detail)
		} else if err != nil {
			return UpstreamView{}, err
		}
		u.State, u.Balance, u.BalanceAt = topupd.UpstreamOK, &bal, &now
	}
	if err := s.d.Store.PutUpstream(ctx, change(a, OpPutUpstream, u.Name), u); err != nil {
		return UpstreamView{}, err
	}
	if u.Balance != nil {
		// A checked save is a read: the balance alert follows it, and
		// orders waiting for funds look again.
		if _, err := s.d.Store.RecordSupplierRead(ctx, topupd.SupplierRead{Upstream: u.Name, Balance: *u.Balance, At: now}); err != nil {
			return UpstreamView{}, err
		}
	}
	s.changed(ctx)
	stored, err := s.d.Store.Upstream(ctx, u.Name)
	return upstreamView(stored, s.upstreamHealth()), err
}

// checkBalance asks an upstream for our balance there.
func (s *Service) checkBalance(ctx context.Context, u topupd.Upstream) (topupd.Money, error) {
	if s.d.Suppliers == nil {
		return 0, topupd.Errorf(topupd.EInternal, "service: no supplier checker")
	}
	return s.d.Suppliers.CheckBalance(ctx, u)
}

// CheckUpstream asks an upstream for our balance there, at once, and
// records how it went (state ok with the balance, or failing): it answers
// the upstream as stored, or UPSTREAM_REFUSED, UPSTREAM_UNREACHABLE or
// UPSTREAM_LOOP (the failure recorded).
func (s *Service) CheckUpstream(ctx context.Context, a Actor, name string) (UpstreamView, error) {
	if err := Allowed(a, OpCheckUpstream); err != nil {
		return UpstreamView{}, err
	}
	u, err := s.d.Store.Upstream(ctx, name)
	if err != nil {
		return UpstreamView{}, err
	}
	bal, cerr := s.checkBalance(ctx, u)
	if cerr != nil && topupd.CodeOf(cerr) == topupd.EInternal {
		return UpstreamView{}, cerr
	}
	var read *topupd.Money
	if cerr == nil {
		read = &bal
	}
	now := s.d.Now().UTC().Truncate(time.Millisecond)
	if u, err = s.d.Store.RecordUpstreamCheck(ctx, change(a, OpCheckUpstream, name), name, read, now); err != nil {
		return UpstreamView{}, err
	}
	return upstreamView(u, s.upstreamHealth()), cerr
}

// SetUpstreamThresholds changes an upstream's runway thresholds, in hours
// (nil keeps one): both above 0, critical not above warn.
func (s *Service) SetUpstreamThresholds(ctx context.Context, a Actor, name string, warn, critical *float64) (UpstreamView, error) {
	if err := Allowed(a, OpUpdateUpstream); err != nil {
		return UpstreamView{}, err
	}
	u, err := s.d.Store.SetUpstreamThresholds(ctx, update(a, OpUpdateUpstream, name), name, warn, critical)
	return upstreamView(u, s.upstreamHealth()), err
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
	health := s.upstreamHealth()
	out := make([]UpstreamView, len(ups))
	for i, u := range ups {
		out[i] = upstreamView(u, health)
	}
	return out, nil
}

// upstreamHealth is each upstream's health as this node saw it, by name.
func (s *Service) upstreamHealth() map[string]topupd.Health {
	health := map[string]topupd.Health{}
	for _, h := range s.d.Health() {
		if h.Provider == topupd.ProviderUpstream {
			health[h.Upstream] = h
		}
	}
	return health
}

// upstreamView is u without its key, with its health in health (by name).
func upstreamView(u topupd.Upstream, health map[string]topupd.Health) UpstreamView {
	h, ok := health[u.Name]
	if !ok {
		h = topupd.Health{Provider: topupd.ProviderUpstream, Upstream: u.Name}
	}
	u.APIKey = ""
	return UpstreamView{Upstream: u, Health: h}
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
