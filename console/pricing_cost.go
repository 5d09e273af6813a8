package console

import (
	"net/http"
	"strings"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// A pack's price and cost in words (back-office.md, section 4): how a
// price moves, and a cost edit refused because it raises the cost above
// prices the pack is sold at, with the two ways on: "Reprice" (the pack's
// rule sets its price) and "Keep below cost".

// priceMove is a price change in words, its amount and its share of the
// old price: "$0.45 lower (50.0% less)", "$0.30 higher (37.5% more)".
func priceMove(was, now topupd.Money) string {
	diff, word, share := now-was, "higher", "more"
	if diff < 0 {
		diff, word, share = -diff, "lower", "less"
	}
	if diff == 0 {
		return "the same"
	}
	s := usdText(diff) + " " + word
	if was > 0 {
		s += " (" + pctText(int64(diff), int64(was)) + " " + share + ")"
	}
	return s
}

// priceVerb is the verb of a price change: "Lower" for a drop, else
// "Raise".
func priceVerb(was, now topupd.Money) string {
	if now < was {
		return "Lower"
	}
	return "Raise"
}

// priceQuestion asks whether to change a pack's price a lot, saying
// whether it goes lower or higher and by how much.
func priceQuestion(name string, was, now topupd.Money) string {
	return priceVerb(was, now) + " the price of " + name + " from " + usdText(was) + " to " + usdText(now) + ", " + priceMove(was, now) +
		"? That is a large price change: check the digits."
}

// undercutWords is a price a cost is above, in words: "tier gold sells
// it at $0.80".
func undercutWords(u topupd.Undercut) string {
	price := usdText(u.Price)
	switch u.Kind {
	case topupd.UndercutPack:
		return "its own price " + price
	case topupd.UndercutTier:
		return "tier " + u.Name + " sells it at " + price
	case topupd.UndercutAccount:
		return "account " + u.AccountID + "'s own price " + price
	case topupd.UndercutScheduled:
		return "the scheduled price " + price
	}
	return u.Kind + " price " + price
}

// listWords joins items as a sentence does: "a, b and c".
func listWords(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// undercutChoice is what the pack form offers after a cost edit refused
// as undercutting prices: Reprice, and Keep below cost.
type undercutChoice struct {
	// Repriced says the refusal answers a Reprice.
	Repriced bool
	// Rule is the pack's pricing rule at the cost typed ("" for none),
	// RulePrice its price; Pinned says the pack's price is pinned.
	Rule      string
	RulePrice topupd.Money
	Pinned    bool
}

// KeepValue is what the "Keep below cost" button sends: after a
// Reprice, the rule's price applies too.
func (u *undercutChoice) KeepValue() string {
	if u.Repriced {
		return costRepriceKeep
	}
	return costKeep
}

// RepriceText says what Reprice does for this pack.
func (u *undercutChoice) RepriceText() string {
	switch {
	case u.Pinned:
		return "Its price is pinned, so no rule prices it: Reprice cannot set its price. Unpin it, or raise the price by hand."
	case u.Rule == "":
		return "No pricing rule prices it, so Reprice cannot set its price: add a rule on the Pricing page, or raise the price by hand."
	}
	return "Reprice: rule " + u.Rule + " sets its own price to " + usdText(u.RulePrice) + " at once; the other prices stay as they are."
}

// The values of the pack form's cost buttons (costChoice).
const (
	costReprice     = "reprice"
	costKeep        = "keep"
	costRepriceKeep = "reprice-keep"
)

// undercutError is a cost edit refused as undercutting prices: the
// refusal beside the cost field, and the choices the form then offers.
type undercutError struct {
	fieldError
	choice undercutChoice
}

// Unwrap is the refusal beside the field.
func (e *undercutError) Unwrap() error { return e.fieldError }

// undercutRefused says in plain words which prices the cost of p (the
// pack as the form would leave it) is above, and whether Reprice can
// help.
func (c *Console) undercutRefused(r *http.Request, s *session, p topupd.Pack, under []topupd.Undercut, repriced bool) error {
	rules, err := c.Service.PricingRules(r.Context(), s.actor)
	if err != nil {
		return err
	}
	u := undercutChoice{Repriced: repriced, Pinned: p.PricePinned}
	if rule := topupd.RuleFor(&p, rules); rule != nil {
		u.Rule = rule.Name
		u.RulePrice, _ = rule.PriceFor(p.HighestCost())
	}
	var words []string
	for _, x := range under {
		words = append(words, undercutWords(x))
	}
	prices := "a price"
	if len(under) > 1 {
		prices = plural(len(under), "price")
	}
	msg := "Nothing was saved: the cost " + usdText(p.HighestCost()) + " is above " + prices + " the pack is sold at: " + listWords(words) + "."
	switch {
	case repriced && u.Rule == "":
		msg = u.RepriceText() + " " + msg
	case repriced:
		msg = "Nothing was saved: with rule " + u.Rule + "'s price " + usdText(u.RulePrice) + " for the pack, the cost " + usdText(p.HighestCost()) +
			" is still above " + listWords(words) + "."
	}
	return &undercutError{fieldError{"cost", msg}, u}
}

// packSaved says what saving a pack did: its price as saved when its
// rule set it, and the rule's price held for an operator, if any.
func (c *Console) packSaved(r *http.Request, s *session, name string, typed topupd.Money, saved service.PackView) string {
	msg := "Pack " + name + " is saved."
	if saved.Price != typed {
		msg = "Pack " + name + " is saved; its pricing rule set its price to " + usdText(saved.Price) + "."
	}
	held, err := c.Service.HeldPrices(r.Context(), s.actor)
	if err != nil {
		return msg
	}
	for _, h := range held {
		if h.PID == saved.PID && h.Cost == saved.HighestCost() {
			msg += " Rule " + h.Rule + "'s new price " + usdText(h.NewPrice) + ", " + priceMove(h.OldPrice, h.NewPrice) +
				", is held: apply it or discard it on the Pricing page."
		}
	}
	return msg
}

// ruleOfPack is the pricing rule that prices a pack, in words, for its
// page.
func ruleOfPack(p *topupd.Pack, rules []topupd.PricingRule) string {
	switch rule := topupd.RuleFor(p, rules); {
	case p.PricePinned:
		return "Its price is pinned: no pricing rule changes it."
	case p.HighestCost() <= 0:
		return "Without a cost, no pricing rule prices it."
	case rule == nil:
		return "No pricing rule prices it."
	default:
		return "Rule " + rule.Name + " prices it: " + ruleText(rule) + "."
	}
}
