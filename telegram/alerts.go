package telegram

import (
	"context"
	"fmt"
	"sort"

	tgbot "github.com/go-telegram/bot"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// operatorAlerts tells every operator's chat when an alert starts and
// when it clears, once each: a supplier alerting (failing, or needing
// the operator: our balance or key at an upstream), an upstream's balance
// alert at warn or critical, orders waiting for supplier funds, orders
// stuck past their deadline, a pack low on stock (by its lowStockAt when
// set), a webhook endpoint the server disabled (until it is enabled or deleted). The
// store keeps the alerts told, so a restart or a takeover neither repeats
// nor forgets one; an alert is recorded before it is sent, so a send lost
// to a crash is not sent twice, and undone when the Bot API took it for
// no chat, so an outage delays it and does not lose it.
func (w *watcher) operatorAlerts(ctx context.Context, api *tgbot.Bot) {
	now, err := w.currentAlerts(ctx)
	if err != nil {
		w.b.Logger.Warn("telegram: reading what the alerts watch", "err", w.b.scrub(err))
		return
	}
	told, err := w.b.Store.BotAlerts(ctx)
	if err != nil {
		w.b.Logger.Warn("telegram: reading the alerts told", "err", w.b.scrub(err))
		return
	}
	type change struct {
		key, message, text string
		on                 bool
	}
	var tell []change
	for _, k := range sortedKeys(now) {
		if _, ok := told[k]; !ok {
			if changed, err := w.b.Store.SetBotAlert(ctx, k, now[k], true, w.b.Now()); err == nil && changed {
				tell = append(tell, change{k, now[k], AlertPrefix + now[k], true})
			}
		}
	}
	for _, k := range sortedKeys(told) {
		if _, ok := now[k]; !ok {
			if changed, err := w.b.Store.SetBotAlert(ctx, k, told[k], false, w.b.Now()); err == nil && changed {
				tell = append(tell, change{k, told[k], ClearedPrefix + told[k], false})
			}
		}
	}
	if len(tell) == 0 {
		return
	}
	chats, err := w.b.Store.OperatorChats(ctx)
	if err != nil {
		w.b.Logger.Warn("telegram: reading operators' chats", "err", w.b.scrub(err))
		return
	}
	for _, c := range tell {
		w.b.Logger.Info("telegram: operator alert", "alert", c.text)
		told, failed := 0, 0
		for _, chat := range chats {
			if err := w.b.notify(ctx, api, chat.ChatID, c.text); err != nil {
				failed++
			} else {
				told++
			}
		}
		if told == 0 && failed > 0 {
			// Nobody heard it while the Bot API was away: undone, it is
			// told in a later round.
			if _, err := w.b.Store.SetBotAlert(ctx, c.key, c.message, !c.on, w.b.Now()); err != nil {
				w.b.Logger.Warn("telegram: undoing an alert not told", "alert", c.text, "err", w.b.scrub(err))
			}
		}
	}
}

// The prefixes of operator alerts.
const (
	// AlertPrefix starts an alert that has started.
	AlertPrefix = "Alert: "
	// ClearedPrefix starts an alert that has cleared.
	ClearedPrefix = "Cleared: "
)

// currentAlerts are the alerts that hold now, by key; a message names
// the thing, not figures that move, so that it reads the same when it
// clears.
func (w *watcher) currentAlerts(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	system := service.RootActor("telegram-alerts")
	health, err := w.b.Service.Providers(ctx, system)
	if err != nil {
		return nil, err
	}
	for _, h := range health {
		if h.Alert {
			out[supplierAlertKey(h.Provider, h.Upstream)] = supplierAlert(h.Provider, h.Upstream)
		}
	}
	if err := w.supplierAlerts(ctx, system, out); err != nil {
		return nil, err
	}
	if err := w.reconciliationAlerts(ctx, system, out); err != nil {
		return nil, err
	}
	disputes, err := w.b.Service.OpenDisputesNow(ctx, system, maxDisputeAlerts)
	if err != nil {
		return nil, err
	}
	now := w.b.Now()
	for _, d := range disputes {
		out["dispute:"+d.ID] = fmt.Sprintf("dispute %s of order %s (%s) is open, due %s UTC.", d.ID, d.OrderID, d.Reason,
			d.DueAt.UTC().Format("2006-01-02 15:04"))
		if d.Overdue(now) {
			out["dispute-overdue:"+d.ID] = fmt.Sprintf("dispute %s of order %s is overdue (due %s UTC).", d.ID, d.OrderID,
				d.DueAt.UTC().Format("2006-01-02 15:04"))
		}
	}
	held, err := w.b.Service.HeldPrices(ctx, system)
	if err != nil {
		return nil, err
	}
	for _, h := range held {
		out["held:"+h.PID] = fmt.Sprintf("pack %s's price is held: rule %s would raise it from %s to %s USD (cost %s); apply or discard it (Catalog, Pricing).",
			h.PID, h.Rule, h.OldPrice.Dollars(), h.NewPrice.Dollars(), h.Cost.Dollars())
	}
	stuck, err := w.b.Service.StuckOrders(ctx, service.RootActor("telegram-alerts"), 0, nil)
	if err != nil {
		return nil, err
	}
	if len(stuck.Orders) > 0 {
		out["stuck"] = "orders are stuck past their deadline or with an alert (see /stuck)."
	}
	disabled, err := w.b.Service.DisabledWebhooks(ctx, system)
	if err != nil {
		return nil, err
	}
	for _, e := range disabled {
		out["webhook:"+e.ID] = "webhook endpoint " + e.ID + " of " + e.AccountID + " (" + e.URL + ") is disabled (" + e.DisabledReason + ")."
	}
	packs, err := w.b.Service.StockPacks(ctx, system)
	if err != nil {
		return nil, err
	}
	// A pack's lowStockAt, when set, decides: its alert as the database
	// keeps it (raised when the stock fell to it or below, cleared when
	// stock was added above it). Without one, an active pack is low under
	// topupd.LowStock codes, as before lowStockAt (topupd.LowOnStock).
	levels, err := w.b.Store.LowStock(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range packs {
		if !topupd.LowOnStock(p.PID, p.Status, p.Available, levels) {
			continue
		}
		msg := fmt.Sprintf("pack %s is low on stock (under %d codes).", p.PID, topupd.LowStock)
		if p.LowStockAt != nil {
			msg = fmt.Sprintf("pack %s is low on stock (%d codes or fewer).", p.PID, *p.LowStockAt)
		}
		out["low-stock:"+p.PID] = msg
	}
	return out, nil
}

// sortedKeys are a map's keys in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// maxDisputeAlerts bounds the open disputes the alerts read: the newest.
const maxDisputeAlerts = 200
