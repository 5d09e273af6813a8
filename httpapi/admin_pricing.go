package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// Pricing rules and held prices (back-office.md, section 4 (c)).

// pricingRoutes registers the pricing rules' and held prices' routes.
func (a *admin) pricingRoutes(mux router) {
	mux.Handle("PUT /admin/pricing-rules/{name}", a.call(service.OpPutPricingRule, a.putPricingRule))
	mux.Handle("GET /admin/pricing-rules", a.call(service.OpRead, a.listPricingRules))
	mux.Handle("DELETE /admin/pricing-rules/{name}", a.call(service.OpDeletePricingRule, a.deletePricingRule))
	mux.Handle("POST /admin/pricing/preview", a.call(service.OpPreviewPricing, a.previewPricing))
	mux.Handle("GET /admin/pricing/held", a.call(service.OpRead, a.listHeldPrices))
	mux.Handle("POST /admin/pricing/held/{pid}/apply", a.call(service.OpApplyHeldPrice, a.applyHeldPrice))
	mux.Handle("POST /admin/pricing/held/{pid}/discard", a.call(service.OpDiscardHeldPrice, a.discardHeldPrice))
}

// ruleView is a pricing rule as the operator sees it.
type ruleView struct {
	Name          string           `json:"name"`
	Scope         topupd.RuleScope `json:"scope"`
	MarkupPercent topupd.Percent   `json:"markupPercent"`
	FixedUsd      topupd.Money     `json:"fixedUsd"`
	MinMarginUsd  topupd.Money     `json:"minMarginUsd"`
	RoundToUsd    topupd.Money     `json:"roundToUsd"`
	UpdatedAt     string           `json:"updatedAt"`
}

func viewRule(r *topupd.PricingRule) ruleView {
	return ruleView{Name: r.Name, Scope: r.Scope, MarkupPercent: r.Markup, FixedUsd: r.Fixed, MinMarginUsd: r.MinMargin, RoundToUsd: r.RoundTo,
		UpdatedAt: r.UpdatedAt.UTC().Format(time.RFC3339Nano)}
}

// readRule reads a rule's body: scope, markupPercent (required), fixedUsd,
// minMarginUsd and roundToUsd (absent or null: 0, 0 and 0.01).
func readRule(obj *object, name string) (topupd.PricingRule, error) {
	r := topupd.PricingRule{Name: name, RoundTo: topupd.Cent}
	if obj.has("scope") {
		var raw json.RawMessage
		if obj.take("scope", &raw) {
			scope, err := decodeStrict[topupd.RuleScope](raw, "scope")
			if err != nil {
				return r, err
			}
			r.Scope = scope
		}
	}
	if !obj.take("markupPercent", &r.Markup) && obj.err == nil {
		return r, topupd.Errorf(topupd.EInvalidBody, "markupPercent: required, 0 to 1000")
	}
	r.Fixed, _ = obj.money("fixedUsd")
	r.MinMargin, _ = obj.money("minMarginUsd")
	if round, ok := obj.money("roundToUsd"); ok && round == 0 {
		return r, topupd.Errorf(topupd.EInvalidBody, "roundToUsd: at least 0.01")
	} else if ok {
		r.RoundTo = round
	}
	return r, obj.err
}

func (a *admin) putPricingRule(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	rule, err := readRule(obj, r.PathValue("name"))
	if err != nil {
		return err
	}
	if err := obj.done(); err != nil {
		return err
	}
	stored, err := a.Service.PutPricingRule(r.Context(), a.actor(r), rule)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewRule(&stored))
	return nil
}

// rulesAnswer is every rule.
type rulesAnswer struct {
	Success bool       `json:"success"`
	Rules   []ruleView `json:"rules"`
}

func (a *admin) listPricingRules(w http.ResponseWriter, r *http.Request) error {
	rules, err := a.Service.PricingRules(r.Context(), a.actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rulesAnswer{Success: true, Rules: viewEach(rules, viewRule)})
	return nil
}

func (a *admin) deletePricingRule(w http.ResponseWriter, r *http.Request) error {
	if err := a.Service.DeletePricingRule(r.Context(), a.actor(r), r.PathValue("name")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, plainSuccess{Success: true})
	return nil
}

// previewView is one pack a preview would reprice.
type previewView struct {
	PID         string       `json:"pid"`
	Rule        string       `json:"rule"`
	CostUsd     topupd.Money `json:"costUsd"`
	OldPriceUsd topupd.Money `json:"oldPriceUsd"`
	NewPriceUsd topupd.Money `json:"newPriceUsd"`
	Held        bool         `json:"held"`
}

// previewAnswer is a preview's changes.
type previewAnswer struct {
	Success bool          `json:"success"`
	Changes []previewView `json:"changes"`
}

// previewPricing answers what the current rules, or the body's rules as if
// saved, would price; nothing changes.
func (a *admin) previewPricing(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var raws []json.RawMessage
	obj.take("rules", &raws)
	if err := obj.done(); err != nil {
		return err
	}
	var changes []topupd.PricingRule
	for _, raw := range raws {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil || m == nil {
			return topupd.Errorf(topupd.EInvalidBody, "rules: each a rule object with its name")
		}
		one := &object{m: m}
		var name string
		if !one.take("name", &name) {
			return topupd.Errorf(topupd.EInvalidBody, "rules: each with its name")
		}
		rule, err := readRule(one, name)
		if err != nil {
			return err
		}
		if err := one.done(); err != nil {
			return err
		}
		changes = append(changes, rule)
	}
	list, err := a.Service.PreviewPricing(r.Context(), a.actor(r), changes)
	if err != nil {
		return err
	}
	out := previewAnswer{Success: true, Changes: []previewView{}}
	for _, c := range list {
		out.Changes = append(out.Changes, previewView{PID: c.PID, Rule: c.Rule, CostUsd: c.Cost, OldPriceUsd: c.OldPrice, NewPriceUsd: c.NewPrice,
			Held: c.Held})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// heldView is a held price.
type heldView struct {
	PID         string       `json:"pid"`
	Rule        string       `json:"rule"`
	CostUsd     topupd.Money `json:"costUsd"`
	OldPriceUsd topupd.Money `json:"oldPriceUsd"`
	NewPriceUsd topupd.Money `json:"newPriceUsd"`
	HeldAt      string       `json:"heldAt"`
}

// heldAnswer is every held price.
type heldAnswer struct {
	Success bool       `json:"success"`
	Held    []heldView `json:"held"`
}

func (a *admin) listHeldPrices(w http.ResponseWriter, r *http.Request) error {
	held, err := a.Service.HeldPrices(r.Context(), a.actor(r))
	if err != nil {
		return err
	}
	out := heldAnswer{Success: true, Held: []heldView{}}
	for _, h := range held {
		out.Held = append(out.Held, heldView{PID: h.PID, Rule: h.Rule, CostUsd: h.Cost, OldPriceUsd: h.OldPrice, NewPriceUsd: h.NewPrice,
			HeldAt: h.HeldAt.UTC().Format(time.RFC3339Nano)})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (a *admin) applyHeldPrice(w http.ResponseWriter, r *http.Request) error {
	v, err := a.Service.ApplyHeldPrice(r.Context(), a.actor(r), r.PathValue("pid"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewAdminPack(&v.Pack, v.Available))
	return nil
}

func (a *admin) discardHeldPrice(w http.ResponseWriter, r *http.Request) error {
	if err := a.Service.DiscardHeldPrice(r.Context(), a.actor(r), r.PathValue("pid")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, plainSuccess{Success: true})
	return nil
}
