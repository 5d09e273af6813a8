package telegram

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// Our money at each upstream in operators' chats (back-office.md, section
// 1): /suppliers lists it, and the alerts watch it as the database keeps
// it, so that whichever node polls tells the same.

// suppliers lists every upstream: its known balance, its runway, its
// balance alert and its state.
func (b *Bot) suppliers(ctx context.Context, r *request, _ topupd.Chat) {
	if r.actorErr != nil {
		b.fail(ctx, r, r.actorErr)
		return
	}
	ups, err := b.Service.Upstreams(ctx, r.actor)
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	if len(ups) == 0 {
		b.reply(ctx, r, "No upstream is set up.")
		return
	}
	lines := make([]string, 0, len(ups))
	for _, u := range ups {
		lines = append(lines, supplierLine(&u.Upstream))
	}
	b.reply(ctx, r, strings.Join(lines, "\n"))
}

// supplierLine is one upstream as /suppliers shows it: "b: balance 12.50
// USD, runway 3.5 h, balanceAlert critical, state ok".
func supplierLine(u *topupd.Upstream) string {
	balance := "unknown"
	if u.Balance != nil {
		balance = u.Balance.Dollars() + " USD"
	}
	runway := "—"
	if h, ok := u.Runway(); ok {
		runway = fmt.Sprintf("%.1f h", h)
	}
	return fmt.Sprintf("%s: balance %s, runway %s, balanceAlert %s, state %s", u.Name, balance, runway, levelOf(u), u.State)
}

// levelOf is u's balance alert, none when not worked out yet.
func levelOf(u *topupd.Upstream) string {
	if u.BalanceAlert == "" {
		return topupd.BalanceAlertNone
	}
	return u.BalanceAlert
}

// supplierAlertKey and supplierAlert are the key and the message of a
// supplier failing or needing the operator, the same whether this node's
// health or the database's state raised it, so that it is one alert.
func supplierAlertKey(provider, upstream string) string {
	return "supplier:" + provider + "/" + upstream
}

func supplierAlert(provider, upstream string) string {
	return "supplier " + provider + upstreamOf(upstream) + " is failing or needs you (see /stuck)."
}

// supplierAlerts adds to out the alerts of our money at each upstream as
// the database keeps them: a balance alert raised (keyed by its level, so
// a rise from warn to critical tells the new level), a supplier whose last
// call failed, and orders waiting for supplier funds.
func (w *watcher) supplierAlerts(ctx context.Context, system service.Actor, out map[string]string) error {
	ups, err := w.b.Service.Upstreams(ctx, system)
	if err != nil {
		return err
	}
	for _, u := range ups {
		if level := levelOf(&u.Upstream); level != topupd.BalanceAlertNone {
			out["supplier-balance:"+u.Name+":"+level] = "supplier " + topupd.ProviderUpstream + " " + u.Name + "'s balance is low (" + level + "): see /suppliers."
		}
		if u.State == topupd.UpstreamFailing {
			out[supplierAlertKey(topupd.ProviderUpstream, u.Name)] = supplierAlert(topupd.ProviderUpstream, u.Name)
		}
	}
	waiting, err := w.b.Store.WaitingFunds(ctx)
	if err != nil {
		return err
	}
	if waiting > 0 {
		out["waiting-funds"] = "orders are waiting for supplier funds (see /stuck)."
	}
	return nil
}

// alertingUpstreams are the lines of /stuck for the upstreams the database
// holds as needing the operator (failing, or a balance alert raised) that
// this node's health, in listed, did not name already.
func (b *Bot) alertingUpstreams(ctx context.Context, a service.Actor, listed map[string]bool) ([]string, error) {
	ups, err := b.Service.Upstreams(ctx, a)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, u := range ups {
		if u.Alerting() && !listed[u.Name] {
			lines = append(lines, fmt.Sprintf("Supplier %s%s: alert, state %s, balanceAlert %s (see /suppliers)",
				topupd.ProviderUpstream, upstreamOf(u.Name), u.State, levelOf(&u.Upstream)))
		}
	}
	return lines, nil
}

// reconciliationAlerts adds to out an alert for each open reconciliation
// with a mismatch: the supplier, the days and the count, told once when
// it is made and cleared when it is closed.
func (w *watcher) reconciliationAlerts(ctx context.Context, system service.Actor, out map[string]string) error {
	open, err := w.b.Service.Reconciliations(ctx, system, topupd.ReconciliationsQuery{State: topupd.ReconOpen, Limit: 100})
	if err != nil {
		return err
	}
	for _, r := range open {
		whole, err := w.b.Service.Reconciliation(ctx, system, r.ID)
		if err != nil {
			return err
		}
		if n := len(whole.Mismatches); n > 0 {
			days := r.Period.From.Format(time.DateOnly)
			if !r.Period.To.Equal(r.Period.From) {
				days += " to " + r.Period.To.Format(time.DateOnly)
			}
			out["reconciliation:"+r.ID] = fmt.Sprintf("reconciliation %s with supplier %s (%s) found %d mismatches: see the console.", r.ID, r.Supplier, days, n)
		}
	}
	return nil
}
