package console

import (
	"errors"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// The Pricing page's forms (pricing.go): a rule is previewed
// (service.PreviewPricing, as if saved) and saved from the preview; a
// rule's deletion, a held price's application and a scheduled change's
// deletion ask first. A refusal is said beside the field at fault, the
// form keeping what was typed, or above the page.

// rulePreview is what saving a rule would change: the packs it would
// price, old → new, each marked when its rise is one a cost change would
// hold.
type rulePreview struct {
	Rule topupd.PricingRule
	// Terms is the rule in words; Replaces the stored rule of its name,
	// nil for a new one.
	Terms    string
	Replaces *topupd.PricingRule
	Changes  []previewRow
}

// previewRow is one pack whose price saving a rule would change.
type previewRow struct{ topupd.RulePreview }

// Move is the change in words: "$0.30 higher (37.5% more)".
func (p previewRow) Move() string { return priceMove(p.OldPrice, p.NewPrice) }

// ScopeText is what the rule prices, in words.
func (p *rulePreview) ScopeText() string { return scopeText(p.Rule.Scope) }

// HeldCount counts the changes whose rise a cost change would hold.
func (p *rulePreview) HeldCount() int {
	n := 0
	for _, c := range p.Changes {
		if c.Held {
			n++
		}
	}
	return n
}

// ReplacesText is the stored rule of the same name in words.
func (p *rulePreview) ReplacesText() string {
	if p.Replaces == nil {
		return ""
	}
	return scopeText(p.Replaces.Scope) + ": " + ruleText(p.Replaces)
}

// ruleNameRe is what a rule's name may look like (topupd.PricingRule).
var ruleNameRe = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// ruleOf reads the rule form; a refusal is a fieldError in plain words.
func ruleOf(r *http.Request) (topupd.PricingRule, error) {
	f := func(n string) string { return strings.TrimSpace(r.PostFormValue(n)) }
	rule := topupd.PricingRule{Name: f("name"), RoundTo: topupd.Cent}
	if !ruleNameRe.MatchString(rule.Name) {
		return rule, fieldError{"name", "“" + rule.Name + "” cannot be a rule's name: use 1 to 64 letters, digits, dots, dashes or underscores, such as standard or pubg-line."}
	}
	switch kind, v, _ := strings.Cut(f("scope"), ":"); {
	case kind == "" && v == "":
	case kind == "line" && v != "":
		rule.Scope.Line = v
	case kind == "pid" && v != "":
		rule.Scope.PID = v
	default:
		return rule, fieldError{"scope", "Choose what the rule prices from the list: every pack, a line or a pack."}
	}
	markup := f("markupPercent")
	m, ok := parsePercent(markup)
	switch {
	case markup == "":
		return rule, fieldError{"markupPercent", "Enter the markup on the cost, in percent, such as 10 (0 for none)."}
	case !ok:
		return rule, fieldError{"markupPercent", "“" + markup + "” is not a percentage: type a number such as 12.5 (at most 4 decimal places)."}
	case m < 0 || m > topupd.MaxRuleMarkup:
		return rule, fieldError{"markupPercent", "A rule's markup is 0 to 1000 percent."}
	}
	rule.Markup = m
	for _, a := range []struct {
		name, label string
		dst         *topupd.Money
		least       topupd.Money
	}{{"fixedUsd", "An amount added", &rule.Fixed, 0}, {"minMarginUsd", "A least margin", &rule.MinMargin, 0},
		{"roundToUsd", "Rounding", &rule.RoundTo, topupd.Cent}} {
		v := f(a.name)
		if v == "" {
			continue
		}
		amount, problem := parseAmount(v, centPlaces)
		if problem == "" && amount < a.least {
			problem = a.label + " is at least " + usdText(a.least) + "."
		}
		if problem != "" {
			return rule, fieldError{a.name, problem}
		}
		*a.dst = amount
	}
	return rule, nil
}

// parsePercent reads a percentage typed into a form ("12.5", "12.5%"),
// to 4 decimal places.
func parsePercent(v string) (topupd.Percent, bool) {
	m, problem := parseAmount(strings.TrimSpace(strings.TrimSuffix(v, "%")), 4)
	if problem != "" || strings.ContainsAny(v, "$,") {
		return 0, false
	}
	return topupd.Percent(m), true
}

// ruleRefusal says in plain words, beside its field, why the service
// refused a rule; other errors are returned as they are.
func ruleRefusal(err error, rule topupd.PricingRule, rules []ruleRow) error {
	var de *topupd.Error
	if !errors.As(err, &de) {
		return err
	}
	switch de.Code {
	case topupd.EConflict:
		for _, o := range rules {
			if o.Name != rule.Name && o.Scope == rule.Scope {
				return fieldError{"scope", "Rule " + o.Name + " prices " + scopeText(rule.Scope) + " already, and each has one rule: change " +
					o.Name + " instead, or choose another scope."}
			}
		}
		return fieldError{"scope", "Another rule prices " + scopeText(rule.Scope) + " already: change that rule instead, or choose another scope."}
	case topupd.EInvalidBody:
		field, why, _ := strings.Cut(de.Detail, ": ")
		switch field {
		case "scope":
			return fieldError{"scope", "There is no such " + strings.TrimPrefix(why, "no such ") + " now: choose one from the list."}
		case "name", "markupPercent", "fixedUsd", "minMarginUsd", "roundToUsd":
			return fieldError{field, sentence(why)}
		}
		return fieldError{"", sentence(de.Detail)}
	}
	return err
}

// previewRule shows what saving the rule typed would change, with the
// form still holding it and a button that saves it.
func (c *Console) previewRule(w http.ResponseWriter, r *http.Request, s *session) error {
	err := c.previewRuleForm(w, r, s)
	return c.formFailed(w, r, s, err, "pricing", c.pricingAgain(r, s))
}

// previewRuleForm is previewRule's work; refusals are fieldErrors.
func (c *Console) previewRuleForm(w http.ResponseWriter, r *http.Request, s *session) error {
	rule, err := ruleOf(r)
	if err != nil {
		return err
	}
	d, err := c.pricingData(r, s)
	if err != nil {
		return err
	}
	known := false
	for _, sc := range d.Scopes {
		known = known || sc.Value == scopeValue(rule.Scope)
	}
	if !known {
		return fieldError{"scope", "There is no " + scopeText(rule.Scope) + " now: choose one from the list."}
	}
	p := &rulePreview{Rule: rule, Terms: ruleText(&rule)}
	for _, o := range d.Rules {
		if o.Name == rule.Name {
			stored := o.PricingRule
			p.Replaces = &stored
		} else if o.Scope == rule.Scope {
			return ruleRefusal(topupd.Errorf(topupd.EConflict, "scope"), rule, d.Rules)
		}
	}
	changes, err := c.Service.PreviewPricing(r.Context(), s.actor, []topupd.PricingRule{rule})
	if err != nil {
		return ruleRefusal(err, rule, d.Rules)
	}
	for _, ch := range changes {
		if ch.Rule == rule.Name { // what saving it changes: the packs it prices
			p.Changes = append(p.Changes, previewRow{ch})
		}
	}
	d.Preview = p
	c.renderView(w, r, http.StatusOK, "pricing", view{Title: "Pricing", S: s, Nav: navFor(s, r.URL.Path), Data: d, Form: r.PostForm})
	return nil
}

// saveRule saves the rule previewed (service.PutPricingRule): the packs
// it prices take its price at once.
func (c *Console) saveRule(w http.ResponseWriter, r *http.Request, s *session) error {
	err := c.saveRuleForm(w, r, s)
	return c.formFailed(w, r, s, err, "pricing", c.pricingAgain(r, s))
}

// saveRuleForm is saveRule's work; refusals are fieldErrors.
func (c *Console) saveRuleForm(w http.ResponseWriter, r *http.Request, s *session) error {
	rule, err := ruleOf(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	changes, err := c.Service.PreviewPricing(ctx, s.actor, []topupd.PricingRule{rule})
	if err == nil {
		_, err = c.Service.PutPricingRule(ctx, s.actor, rule)
	}
	if err != nil {
		d, derr := c.pricingData(r, s)
		if derr != nil {
			return derr
		}
		return ruleRefusal(err, rule, d.Rules)
	}
	n := 0
	for _, ch := range changes {
		if ch.Rule == rule.Name {
			n++
		}
	}
	return c.done(w, r, pricingPath, "Rule "+rule.Name+" is saved ("+scopeText(rule.Scope)+": "+ruleText(&rule)+"); it priced "+plural(n, "pack")+".")
}

// deleteRule deletes a rule, after asking (service.DeletePricingRule):
// prices stay as they are.
func (c *Console) deleteRule(w http.ResponseWriter, r *http.Request, s *session) error {
	name := r.PathValue("name")
	err := c.deleteRuleForm(w, r, s, name)
	return c.formFailed(w, r, s, err, "pricing", c.pricingAgain(r, s))
}

// deleteRuleForm is deleteRule's work; refusals are fieldErrors.
func (c *Console) deleteRuleForm(w http.ResponseWriter, r *http.Request, s *session, name string) error {
	gone := fieldError{"", "There is no pricing rule " + name + " now: someone deleted it already. Nothing was changed."}
	rules, err := c.Service.PricingRules(r.Context(), s.actor)
	if err != nil {
		return err
	}
	var rule *topupd.PricingRule
	var rest []topupd.PricingRule
	for i := range rules {
		if rules[i].Name == name {
			rule = &rules[i]
		} else {
			rest = append(rest, rules[i])
		}
	}
	if rule == nil {
		return gone
	}
	q, err := c.deleteQuestion(r, s, rule, rules, rest)
	if err != nil {
		return err
	}
	if !c.confirmed(w, r, s, q, pricingPath) {
		return nil
	}
	if err := c.Service.DeletePricingRule(r.Context(), s.actor, name); topupd.CodeOf(err) == topupd.ENotFound {
		return gone
	} else if err != nil {
		return err
	}
	return c.done(w, r, pricingPath, "Rule "+name+" is deleted; prices stay as they are.")
}

// deleteQuestion asks whether to delete a rule, saying what prices the
// packs it prices afterwards.
func (c *Console) deleteQuestion(r *http.Request, s *session, rule *topupd.PricingRule, rules, rest []topupd.PricingRule) (string, error) {
	packs, err := c.Service.Packs(r.Context(), s.actor)
	if err != nil {
		return "", err
	}
	n, next := 0, map[string]bool{}
	for i := range packs {
		p := &packs[i].Pack
		if gov := topupd.RuleFor(p, rules); gov == nil || gov.Name != rule.Name {
			continue
		}
		n++
		if after := topupd.RuleFor(p, rest); after != nil {
			next["rule "+after.Name] = true
		} else {
			next["no rule"] = true
		}
	}
	q := "Delete pricing rule " + rule.Name + " (" + scopeText(rule.Scope) + ": " + ruleText(rule) + ")? Prices stay as they are."
	if n == 0 {
		return q + " It prices no pack now.", nil
	}
	var after []string
	for k := range next {
		after = append(after, k)
	}
	sort.Strings(after)
	them := "them when their costs change"
	if n == 1 {
		them = "it when its cost changes"
	}
	return q + " It prices " + plural(n, "pack") + " now; from then on " + strings.Join(after, " or ") + " prices " + them + ".", nil
}

// heldNow is a pack's held price as it stands; gone is the refusal
// when it has none.
func (c *Console) heldNow(r *http.Request, s *session, pid string) (topupd.HeldPrice, error) {
	held, err := c.Service.HeldPrices(r.Context(), s.actor)
	if err != nil {
		return topupd.HeldPrice{}, err
	}
	for _, h := range held {
		if h.PID == pid {
			return h, nil
		}
	}
	return topupd.HeldPrice{}, heldGone(pid)
}

// heldGone is the refusal of a held price that is no more.
func heldGone(pid string) error {
	return fieldError{"", "Pack " + pid + " has no held price now: it was applied or discarded already. Nothing was changed."}
}

// applyHeld sets a pack at its held price, after asking
// (service.ApplyHeldPrice). The form names the price it shows: a newer
// hold that replaced it meanwhile is not applied unseen.
func (c *Console) applyHeld(w http.ResponseWriter, r *http.Request, s *session) error {
	err := c.applyHeldForm(w, r, s, r.PathValue("pid"))
	return c.formFailed(w, r, s, err, "pricing", c.pricingAgain(r, s))
}

// applyHeldForm is applyHeld's work; refusals are fieldErrors.
func (c *Console) applyHeldForm(w http.ResponseWriter, r *http.Request, s *session, pid string) error {
	h, err := c.heldNow(r, s, pid)
	if err != nil {
		return err
	}
	if shown := r.PostFormValue("newPriceUsd"); shown != h.NewPrice.Dollars() {
		return fieldError{"", "The held price of " + pid + " is " + usdText(h.NewPrice) + " now (a newer cost change replaced the one shown): look at it again, and apply it if it is right. Nothing was changed."}
	}
	q := priceVerb(h.OldPrice, h.NewPrice) + " the price of " + pid + " from " + usdText(h.OldPrice) + " to " + usdText(h.NewPrice) + ", " +
		priceMove(h.OldPrice, h.NewPrice) + ", as rule " + h.Rule + " prices it at its cost " + usdText(h.Cost) + "? Resellers pay the new price from now on."
	if !c.confirmed(w, r, s, q, pricingPath) {
		return nil
	}
	p, err := c.Service.ApplyHeldPrice(r.Context(), s.actor, pid)
	if topupd.CodeOf(err) == topupd.ENotFound {
		return heldGone(pid)
	} else if err != nil {
		return err
	}
	return c.done(w, r, pricingPath, "Pack "+pid+" is priced at "+usdText(p.Price)+", rule "+h.Rule+"'s held price.")
}

// discardHeld forgets a pack's held price (service.DiscardHeldPrice):
// its price stays.
func (c *Console) discardHeld(w http.ResponseWriter, r *http.Request, s *session) error {
	pid := r.PathValue("pid")
	err := c.discardHeldForm(w, r, s, pid)
	return c.formFailed(w, r, s, err, "pricing", c.pricingAgain(r, s))
}

// discardHeldForm is discardHeld's work; refusals are fieldErrors.
func (c *Console) discardHeldForm(w http.ResponseWriter, r *http.Request, s *session, pid string) error {
	h, err := c.heldNow(r, s, pid)
	if err != nil {
		return err
	}
	if err := c.Service.DiscardHeldPrice(r.Context(), s.actor, pid); topupd.CodeOf(err) == topupd.ENotFound {
		return heldGone(pid)
	} else if err != nil {
		return err
	}
	return c.done(w, r, pricingPath, "The held price of "+pid+" ("+usdText(h.NewPrice)+") is discarded; it stays at "+usdText(h.OldPrice)+".")
}

// deletePriceChange deletes a scheduled price change, after asking
// (service.DeletePriceChange): the pack's price stays.
func (c *Console) deletePriceChange(w http.ResponseWriter, r *http.Request, s *session) error {
	err := c.deletePriceChangeForm(w, r, s, r.PathValue("id"))
	return c.formFailed(w, r, s, err, "pricing", c.pricingAgain(r, s))
}

// deletePriceChangeForm is deletePriceChange's work; refusals are
// fieldErrors. The form names the change's pack, whose changes are
// looked through for it.
func (c *Console) deletePriceChangeForm(w http.ResponseWriter, r *http.Request, s *session, id string) error {
	pid := r.PostFormValue("pid")
	gone := fieldError{"", "There is no scheduled change " + id + " now: someone deleted it already. Nothing was changed."}
	page, err := c.Service.PriceChanges(r.Context(), s.actor, topupd.PriceChangesQuery{PID: pid, Limit: service.MaxPage})
	if err != nil {
		return err
	}
	var ch *topupd.PriceChange
	for i := range page.Changes {
		if page.Changes[i].ID == id {
			ch = &page.Changes[i]
		}
	}
	if ch == nil || pid == "" {
		return gone
	}
	at := ch.EffectiveAt.In(zoneOf(r)).Format("2006-01-02 15:04 MST")
	if ch.StateAt(page.Now) == topupd.PriceChangeApplied {
		return fieldError{"", "The change of " + pid + "'s price to " + usdText(ch.Price) + " took effect at " + at + ", and cannot be deleted. Schedule another change to set it back."}
	}
	q := "Delete the change of " + pid + "'s price to " + usdText(ch.Price) + " at " + at + "? Its price stays as it is."
	if !c.confirmed(w, r, s, q, pricingPath) {
		return nil
	}
	_, err = c.Service.DeletePriceChange(r.Context(), s.actor, id)
	switch {
	case err == nil:
		return c.done(w, r, pricingPath, "The scheduled change of "+pid+"'s price to "+usdText(ch.Price)+" is deleted; its price stays.")
	case topupd.CodeOf(err) == topupd.ENotFound:
		return gone
	case topupd.CodeOf(err) == topupd.EPriceChangeApplied:
		return fieldError{"", "The change of " + pid + "'s price to " + usdText(ch.Price) + " took effect meanwhile, and cannot be deleted. Schedule another change to set it back."}
	}
	return err
}
