package console

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// tiersData is the price tiers page: every tier, and the form for a new one.
type tiersData struct {
	Tiers []tierLine
}

// tierLine is one tier in the list.
type tierLine struct {
	Name, Markup, Off, RoundTo string
	Prices, Accounts           int
	UpdatedAt                  time.Time
}

// tierData is one tier's form: its markup on the cost or percentage off
// the list price, rounding and a price for each pack (empty: not listed).
type tierData struct {
	Name, Markup, Off, RoundTo string
	Accounts                   int
	Packs                      []tierPack
}

// tierPack is one pack on a tier's form.
type tierPack struct {
	PID, Name string
	// Price is the tier's own price for the pack, "" when it lists none.
	Price string
	// PackPrice is the pack's own price; Cost the highest of its costs.
	PackPrice, Cost topupd.Money
}

// percentText writes a markup as typed: "12.5" for 12.5 %, "" for none.
func percentText(p *topupd.Percent) string {
	if p == nil {
		return ""
	}
	return strings.TrimSuffix(strings.TrimRight(topupd.Money(*p).Dollars(), "0"), ".")
}

// tiers lists the price tiers.
func (c *Console) tiers(w http.ResponseWriter, r *http.Request, s *session) error {
	d, err := c.tiersPage(r, s)
	if err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "tiers", "Price tiers", d)
	return nil
}

// tiersPage gathers the tiers page.
func (c *Console) tiersPage(r *http.Request, s *session) (tiersData, error) {
	tiers, err := c.Service.Tiers(r.Context(), s.actor)
	var d tiersData
	for _, t := range tiers {
		d.Tiers = append(d.Tiers, tierLine{Name: t.Name, Markup: percentText(t.Markup), Off: percentText(t.PercentOff), RoundTo: usdIfText(t.RoundTo), Prices: len(t.Prices),
			Accounts: t.Accounts, UpdatedAt: t.UpdatedAt})
	}
	return d, err
}

// usdIfText is an amount as a form shows it, "" for 0.
func usdIfText(m topupd.Money) string {
	if m == 0 {
		return ""
	}
	return m.Dollars()
}

// findTier reads one tier; ok is false when there is none of that name.
func (c *Console) findTier(r *http.Request, s *session, name string) (t topupd.Tier, ok bool, err error) {
	tiers, err := c.Service.Tiers(r.Context(), s.actor)
	for _, t := range tiers {
		if t.Name == name {
			return t, true, err
		}
	}
	return topupd.Tier{}, false, err
}

// tier shows one tier's form.
func (c *Console) tier(w http.ResponseWriter, r *http.Request, s *session) error {
	d, err := c.tierPage(r, s, r.PathValue("name"))
	if err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "tier", "Price tier "+d.Name, d)
	return nil
}

// tierPage gathers a tier's form; an unknown tier is a 404 page.
func (c *Console) tierPage(r *http.Request, s *session, name string) (tierData, error) {
	t, ok, err := c.findTier(r, s, name)
	if err != nil {
		return tierData{}, err
	}
	if !ok {
		return tierData{}, pageError{http.StatusNotFound, "There is no price tier " + name + "."}
	}
	packs, err := c.Service.Packs(r.Context(), s.actor)
	if err != nil {
		return tierData{}, err
	}
	d := tierData{Name: t.Name, Markup: percentText(t.Markup), Off: percentText(t.PercentOff), RoundTo: usdIfText(t.RoundTo), Accounts: t.Accounts}
	for _, p := range packs {
		tp := tierPack{PID: p.PID, Name: p.Name, PackPrice: p.Price, Cost: p.HighestCost()}
		if price, ok := t.Prices[p.PID]; ok {
			tp.Price = price.Dollars()
		}
		d.Packs = append(d.Packs, tp)
	}
	return d, nil
}

// tierNameRe is what a tier's name may look like (topupd.Tier.Validate).
var tierNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// createTier makes a new tier with a markup and rounding, and opens its
// form for its prices; a name in use or not a name shows the form again.
func (c *Console) createTier(w http.ResponseWriter, r *http.Request, s *session) error {
	err := c.newTier(w, r, s)
	return c.formFailed(w, r, s, err, "tiers", func() (string, any, error) {
		d, err := c.tiersPage(r, s)
		return "Price tiers", d, err
	})
}

// newTier is createTier's work; refusals are fieldErrors.
func (c *Console) newTier(w http.ResponseWriter, r *http.Request, s *session) error {
	name := strings.TrimSpace(r.PostFormValue("name"))
	if !tierNameRe.MatchString(name) {
		return fieldError{"name", "“" + name + "” cannot be a tier's name: use 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit, such as gold or vip-2."}
	}
	if _, ok, err := c.findTier(r, s, name); err != nil {
		return err
	} else if ok {
		return fieldError{"name", "There is already a tier named " + name + ": open it from the list to change it."}
	}
	t, err := tierTerms(r, topupd.Tier{Name: name})
	if err != nil {
		return err
	}
	if err := c.putTier(w, r, s, t, nil); err != nil {
		return err
	}
	return nil
}

// saveTier replaces a tier with what its form holds: markup, rounding
// and a price for each pack (an empty price takes the pack off the tier's
// list). A large price or price change asks to be confirmed; a refused
// field shows the form again with what was typed.
func (c *Console) saveTier(w http.ResponseWriter, r *http.Request, s *session) error {
	name := r.PathValue("name")
	err := c.saveTierForm(w, r, s, name)
	return c.formFailed(w, r, s, err, "tier", func() (string, any, error) {
		d, err := c.tierPage(r, s, name)
		return "Price tier " + name, d, err
	})
}

// saveTierForm is saveTier's work; refusals are fieldErrors.
func (c *Console) saveTierForm(w http.ResponseWriter, r *http.Request, s *session, name string) error {
	was, ok, err := c.findTier(r, s, name)
	if err != nil {
		return err
	}
	if !ok {
		return pageError{http.StatusNotFound, "There is no price tier " + name + "."}
	}
	t, err := tierTerms(r, topupd.Tier{Name: name, Prices: map[string]topupd.Money{}})
	if err != nil {
		return err
	}
	packs, err := c.Service.Packs(r.Context(), s.actor)
	if err != nil {
		return err
	}
	var large []string
	for _, p := range packs {
		v := strings.TrimSpace(r.PostFormValue("price." + p.PID))
		if v == "" {
			continue
		}
		price, problem := parseAmount(v, centPlaces)
		if problem == "" && price <= 0 {
			problem = "A price is more than zero; leave it empty for the tier's markup, its percentage off, or the pack's price."
		}
		if problem != "" {
			return fieldError{"price." + p.PID, problem}
		}
		t.Prices[p.PID] = price
		before, listed := was.Prices[p.PID]
		if !listed {
			before = p.Price
		}
		if price != before && largePriceChange(before, price) {
			large = append(large, p.PID+" from "+usdText(before)+" to "+usdText(price)+", "+priceMove(before, price))
		}
	}
	return c.putTier(w, r, s, t, large)
}

// tierTerms reads a tier form's markup or percentage off the list price,
// and rounding, into t.
func tierTerms(r *http.Request, t topupd.Tier) (topupd.Tier, error) {
	if v := strings.TrimSpace(r.PostFormValue("markupPercent")); v != "" {
		m, problem := parseAmount(strings.TrimSpace(strings.TrimSuffix(v, "%")), 4)
		if problem != "" || strings.ContainsAny(v, "$,") {
			return t, fieldError{"markupPercent", "“" + v + "” is not a percentage: type a number such as 12.5 (at most 4 decimal places), or leave it empty for no markup."}
		}
		if m <= topupd.Money(topupd.MinMarkup) {
			return t, fieldError{"markupPercent", "A markup is above -100%: at -100% every price would be zero."}
		}
		p := topupd.Percent(m)
		t.Markup = &p
	}
	if v := strings.TrimSpace(r.PostFormValue("percentOffList")); v != "" {
		off, ok := parsePercent(v)
		switch {
		case !ok:
			return t, fieldError{"percentOffList", "“" + v + "” is not a percentage: type a number such as 5 (at most 4 decimal places), or leave it empty for no discount."}
		case off <= 0 || off >= topupd.Percent(topupd.USD(100)):
			return t, fieldError{"percentOffList", "A percentage off the list price is above 0 and below 100."}
		case t.Markup != nil:
			return t, fieldError{"percentOffList", "A tier takes a markup on the cost or a percentage off the list price, not both: empty one of them."}
		}
		t.PercentOff = &off
	}
	if v := strings.TrimSpace(r.PostFormValue("roundToUsd")); v != "" {
		m, problem := parseAmount(v, centPlaces)
		if problem == "" && m < topupd.Cent {
			problem = "Rounding is at least $0.01, a cent."
		}
		if problem != "" {
			return t, fieldError{"roundToUsd", problem + " Leave it empty to round up to whole cents."}
		}
		t.RoundTo = m
	}
	return t, nil
}

// putTier stores a tier through service.PutTier, after confirming large
// prices (large names them); a price or markup below a pack's cost is
// refused in plain words unless the form allows it.
func (c *Console) putTier(w http.ResponseWriter, r *http.Request, s *session, t topupd.Tier, large []string) error {
	back := "/console/catalog/tiers/" + url.PathEscape(t.Name)
	if r.URL.Path == "/console/catalog/tiers" {
		back = "/console/catalog/tiers"
	}
	if len(large) > 0 && !c.confirmed(w, r, s, "In tier "+t.Name+", change "+strings.Join(large, "; ")+"? Those are large prices or changes: check the digits.", back) {
		return nil
	}
	allow := r.PostFormValue("allowBelowCost") == "yes"
	_, err := c.Service.PutTier(r.Context(), s.actor, t, allow)
	if topupd.CodeOf(err) == topupd.EBelowCost {
		packs, perr := c.Service.Packs(r.Context(), s.actor)
		if perr != nil {
			return perr
		}
		return belowCostTier(&t, packs)
	} else if err != nil {
		return err
	}
	return c.done(w, r, "/console/catalog/tiers/"+url.PathEscape(t.Name), "Price tier "+t.Name+" is saved.")
}

// belowCostTier says in plain words, beside its field, which price of a
// tier is below a pack's cost (as topupd.CheckTierCosts found).
func belowCostTier(t *topupd.Tier, packs []service.PackView) error {
	slices.SortFunc(packs, func(a, b service.PackView) int { return strings.Compare(a.PID, b.PID) })
	const fix = " Every sale would lose money: raise it, or tick “Allow prices below the cost” to sell at a loss."
	for _, p := range packs {
		cost := p.HighestCost()
		if price, ok := t.Prices[p.PID]; ok {
			if cost > 0 && price < cost {
				return fieldError{"price." + p.PID, "The price " + usdText(price) + " is below the pack's cost " + usdText(cost) + "." + fix}
			}
		} else if price, source, ok := t.Quote(&p.Pack); ok && price < cost {
			if source == topupd.PriceDiscount {
				return fieldError{"percentOffList", "The percentage off prices " + p.PID + " at " + usdText(price) + " (its list price " + usdText(p.Price) +
					" less " + percentText(t.PercentOff) + "%), below its cost " + usdText(cost) + "." + fix}
			}
			return fieldError{"markupPercent", "The markup prices " + p.PID + " at " + usdText(price) + ", below its cost " + usdText(cost) + "." + fix}
		}
	}
	return fieldError{"", "A price of this tier is below a pack's cost." + fix}
}
