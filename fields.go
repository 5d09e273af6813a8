package topupd

import "time"

// The LogFields methods give a record's fields as the admin API names them,
// for the action log's before and after. They never hold a secret: no API
// key, token, code or upstream key.

// LogFields are the account's fields (its balance is the ledger's, not a field).
func (a *Account) LogFields() map[string]any {
	var until any
	if a.RestrictedUntil != nil {
		until = a.RestrictedUntil.UTC().Format(time.RFC3339Nano)
	}
	allow := a.IPAllowlist
	if allow == nil {
		allow = []string{}
	}
	f := map[string]any{"name": a.Name, "apiEnabled": a.APIEnabled, "adminDisabled": a.AdminDisabled, "banned": a.Banned,
		"restrictedUntil": until, "ipAllowlist": append([]string(nil), allow...), "ipAllowlistRequired": a.IPAllowlistRequired,
		"tier": nullString(a.Tier)}
	for _, s := range LimitSettings {
		f[s.Name] = nullMoney(*s.Of(&a.Limits))
	}
	return f
}

// nullString is s, or nil when empty: a field the API shows as null.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullMoney is the amount, or nil: a field the API shows as null.
func nullMoney(m *Money) any {
	if m == nil {
		return nil
	}
	return *m
}

// LogFields are the settings.
func (s *Settings) LogFields() map[string]any {
	return map[string]any{"maintenance": s.Maintenance, "ordersDisabled": s.OrdersDisabled,
		"eligibilityMinTopupUsd": s.EligibilityMinTopup, "simDelayMs": s.SimDelayMs, "simCallMs": s.SimCallMs,
		"upstreamBalancePollMinutes": s.UpstreamBalancePollMinutes, "reconcileAt": s.ReconcileAt,
		"depositBank": s.DepositBank, "depositTicketHours": s.DepositTicketHours, "depositSecondApprovalAboveUsd": s.DepositSecondApprovalAbove,
		"holdAbovePercent":  s.HoldAbove,
		"disputeWindowDays": s.DisputeWindowDays, "disputeAnswerHours": s.DisputeAnswerHours}
}

// LogFields are the pack's fields.
func (p *Pack) LogFields() map[string]any {
	return map[string]any{"slug": p.Slug, "name": p.Name, "category": p.Category, "priceUsd": p.Price, "status": p.Status,
		"stockBased": p.StockBased, "provider": p.Provider, "upstream": p.Upstream, "upstreamPid": p.UpstreamPID,
		"costUsd": p.Cost, "lowStockAt": p.LowStockAt, "suppliers": append([]Supplier{}, p.Suppliers...), "pricePinned": p.PricePinned}
}

// LogFields are the line's fields.
func (l *Line) LogFields() map[string]any {
	return map[string]any{"productName": l.ProductName, "gameName": l.GameName, "game": l.Game, "kind": string(l.Kind),
		"status": l.Status, "required": append([]RequiredField{}, l.Required...),
		"serverIdOptions": append([]Option{}, l.ServerIDOptions...), "regionOptions": append([]Option{}, l.RegionOptions...)}
}

// LogFields are what an operator may change of an order: its state.
func (o *Order) LogFields() map[string]any {
	return map[string]any{"status": string(o.Status), "error": o.Error, "refunded": o.Refunded, "alert": o.Alert,
		"deadlineAt": o.DeadlineAt.UTC().Format(time.RFC3339Nano), "codes": o.CodeCount}
}

// LogFields are the upstream's fields; its API key never is one.
func (u *Upstream) LogFields() map[string]any {
	return map[string]any{"baseUrl": u.BaseURL}
}

// LogFields are the operator's fields.
func (o *Operator) LogFields() map[string]any {
	return map[string]any{"role": string(o.Role), "disabled": o.Disabled}
}
