package console

import (
	"net/http"
	"strings"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// Catalog → Pricing (back-office.md, section 4 (c) and (e)): the pricing
// rules, each previewed before it is saved; the prices the rules hold
// back for an operator, with Apply and Discard; and the scheduled price
// changes, with Delete. Every role reads the page; the forms are the
// owner's and finance's (prices). The forms are in pricing_forms.go.

// pricingPath is the page.
const pricingPath = "/console/pricing"

// scheduledShown is how many scheduled changes the page lists, soonest
// first.
const scheduledShown = 50

// pricingData is the Pricing page.
type pricingData struct {
	Rules []ruleRow
	Held  []heldRow
	// Scheduled are the price changes still to take effect, soonest
	// first; MoreScheduled says there are more than the page lists.
	Scheduled     []scheduledRow
	MoreScheduled bool
	// Scopes are what the rule form offers a rule to price.
	Scopes []scopeChoice
	// HoldAbove is the rise, in percent of the old price, above which a
	// cost change's new price is held ("10").
	HoldAbove string
	// Edit is the rule the form starts from: ?edit=name, else empty.
	Edit ruleFields
	// Preview is what saving the rule typed would change, once previewed.
	Preview *rulePreview
}

// ruleRow is one rule as the page lists it.
type ruleRow struct {
	topupd.PricingRule
	// Packs counts the packs it prices now.
	Packs int
}

// ScopeText is what the rule prices, in words.
func (r ruleRow) ScopeText() string { return scopeText(r.Scope) }

// MarkupText is the rule's markup as the page shows it: "12.5%".
func (r ruleRow) MarkupText() string { return percentText(&r.Markup) + "%" }

// scopeText is what a scope takes in, in words.
func scopeText(s topupd.RuleScope) string {
	switch {
	case s.PID != "":
		return "pack " + s.PID
	case s.Line != "":
		return "line " + s.Line
	}
	return "every pack"
}

// ruleFields is a rule as the form holds it, typed text.
type ruleFields struct {
	Name, Scope, Markup, Fixed, MinMargin, RoundTo string
}

// fieldsOf is a stored rule as the form shows it.
func fieldsOf(r topupd.PricingRule) ruleFields {
	return ruleFields{Name: r.Name, Scope: scopeValue(r.Scope), Markup: percentText(&r.Markup), Fixed: usdIfText(r.Fixed),
		MinMargin: usdIfText(r.MinMargin), RoundTo: r.RoundTo.Dollars()}
}

// scopeChoice is one option of the form's scope list.
type scopeChoice struct{ Value, Label string }

// scopeValue is a scope as the form's list names it: "", "line:slug"
// or "pid:pid".
func scopeValue(s topupd.RuleScope) string {
	switch {
	case s.PID != "":
		return "pid:" + s.PID
	case s.Line != "":
		return "line:" + s.Line
	}
	return ""
}

// heldRow is a held price with its pack's name.
type heldRow struct {
	topupd.HeldPrice
	Name string
}

// Move is the held rise in words: "$0.30 higher (37.5% more)".
func (h heldRow) Move() string { return priceMove(h.OldPrice, h.NewPrice) }

// scheduledRow is a scheduled price change with its pack's name and
// price now.
type scheduledRow struct {
	topupd.PriceChange
	Name string
	Now  topupd.Money
}

// Move is the scheduled change in words: "$0.10 lower (11% less)".
func (r scheduledRow) Move() string { return priceMove(r.Now, r.Price) }

// pricing shows the Pricing page; ?edit=name fills the form with a rule.
func (c *Console) pricing(w http.ResponseWriter, r *http.Request, s *session) error {
	d, err := c.pricingData(r, s)
	if err != nil {
		return err
	}
	if name := r.URL.Query().Get("edit"); name != "" {
		found := false
		for _, rr := range d.Rules {
			if rr.Name == name {
				d.Edit, found = fieldsOf(rr.PricingRule), true
			}
		}
		if !found {
			return pageError{http.StatusNotFound, "There is no pricing rule " + name + "."}
		}
	}
	c.render(w, r, s, http.StatusOK, "pricing", "Pricing", d)
	return nil
}

// pricingAgain draws the Pricing page again after a refused form.
func (c *Console) pricingAgain(r *http.Request, s *session) func() (string, any, error) {
	return func() (string, any, error) {
		d, err := c.pricingData(r, s)
		return "Pricing", d, err
	}
}

// pricingData reads the Pricing page.
func (c *Console) pricingData(r *http.Request, s *session) (pricingData, error) {
	ctx := r.Context()
	var d pricingData
	rules, err := c.Service.PricingRules(ctx, s.actor)
	if err != nil {
		return d, err
	}
	packs, err := c.Service.Packs(ctx, s.actor)
	if err != nil {
		return d, err
	}
	lines, err := c.Service.Lines(ctx, s.actor)
	if err != nil {
		return d, err
	}
	held, err := c.Service.HeldPrices(ctx, s.actor)
	if err != nil {
		return d, err
	}
	st, err := c.Service.Settings(ctx, s.actor)
	if err != nil {
		return d, err
	}
	d.HoldAbove = percentText(&st.HoldAbove)
	names, governed := map[string]string{}, map[string]int{}
	d.Scopes = []scopeChoice{{"", "Every pack (a line's or a pack's own rule wins)"}}
	for _, l := range lines {
		d.Scopes = append(d.Scopes, scopeChoice{"line:" + l.Slug, "Line " + l.Slug + " (" + l.ProductName + ")"})
	}
	for i := range packs {
		p := &packs[i].Pack
		names[p.PID] = p.Name
		d.Scopes = append(d.Scopes, scopeChoice{"pid:" + p.PID, "Pack " + p.PID + " (" + p.Name + ")"})
		if rule := topupd.RuleFor(p, rules); rule != nil {
			governed[rule.Name]++
		}
	}
	for _, rule := range rules {
		d.Rules = append(d.Rules, ruleRow{PricingRule: rule, Packs: governed[rule.Name]})
	}
	for _, h := range held {
		d.Held = append(d.Held, heldRow{HeldPrice: h, Name: names[h.PID]})
	}
	d.Scheduled, d.MoreScheduled, err = c.scheduledChanges(r, s, packs)
	return d, err
}

// scheduledChanges is the "Scheduled changes" section's hook: the price
// changes still to take effect (service.PriceChanges, back-office.md 4
// (e)), soonest first, scheduledShown at most; more says there are more.
func (c *Console) scheduledChanges(r *http.Request, s *session, packs []service.PackView) (rows []scheduledRow, more bool, err error) {
	page, err := c.Service.PriceChanges(r.Context(), s.actor, topupd.PriceChangesQuery{State: topupd.PriceChangeScheduled, Limit: scheduledShown})
	if err != nil {
		return nil, false, err
	}
	byPID := map[string]*service.PackView{}
	for i := range packs {
		byPID[packs[i].PID] = &packs[i]
	}
	for _, ch := range page.Changes {
		row := scheduledRow{PriceChange: ch}
		if p := byPID[ch.PID]; p != nil {
			row.Name, row.Now = p.Name, p.Price
		}
		rows = append(rows, row)
	}
	return rows, page.Next != nil, nil
}

// ruleText is a rule's terms in words: "cost + 10%, + $0.05, at least
// $0.10 above the cost, rounded up to $0.05".
func ruleText(r *topupd.PricingRule) string {
	parts := []string{"cost + " + percentText(&r.Markup) + "%"}
	if r.Fixed > 0 {
		parts = append(parts, "+ "+usdText(r.Fixed))
	}
	if r.MinMargin > 0 {
		parts = append(parts, "at least "+usdText(r.MinMargin)+" above the cost")
	}
	if r.RoundTo > topupd.Cent {
		parts = append(parts, "rounded up to a multiple of "+usdText(r.RoundTo))
	}
	return strings.Join(parts, ", ")
}
