package console

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// catalogData is the catalog page: every line and pack, the disabled too,
// and how many prices the pricing rules hold for an operator.
type catalogData struct {
	Lines []topupd.Line
	Packs []service.PackView
	Held  int
}

// catalog lists the lines and packs, with forms to add and edit them for a
// role that may.
func (c *Console) catalog(w http.ResponseWriter, r *http.Request, s *session) error {
	var d catalogData
	var err error
	if d.Lines, err = c.Service.Lines(r.Context(), s.actor); err != nil {
		return err
	}
	if d.Packs, err = c.Service.Packs(r.Context(), s.actor); err != nil {
		return err
	}
	held, err := c.Service.HeldPrices(r.Context(), s.actor)
	if err != nil {
		return err
	}
	d.Held = len(held)
	c.render(w, r, s, http.StatusOK, "catalog", "Catalog", d)
	return nil
}

// lineData is a line's edit page; Required is one field a line, as
// "field | label | pattern", and the choices one a line as "value | label".
type lineData struct {
	L                  topupd.Line
	Required           string
	ServerIDs, Regions string
	New                bool
}

// line shows a line's form: a new one at /console/catalog/lines/new.
func (c *Console) line(w http.ResponseWriter, r *http.Request, s *session) error {
	slug := r.PathValue("slug")
	d := lineData{New: slug == "new", L: topupd.Line{Kind: topupd.KindTopup, Status: topupd.StatusActive}}
	if !d.New {
		var err error
		d.L, err = c.Service.Line(r.Context(), s.actor, slug)
		if topupd.CodeOf(err) == topupd.ENotFound {
			return pageError{http.StatusNotFound, "There is no line " + slug + "."}
		} else if err != nil {
			return err
		}
		var req []string
		for _, f := range d.L.Required {
			req = append(req, strings.TrimRight(f.Field+" | "+f.Label+" | "+f.Pattern, " |"))
		}
		d.Required = strings.Join(req, "\n")
		d.ServerIDs, d.Regions = choicesText(d.L.ServerIDOptions), choicesText(d.L.RegionOptions)
	}
	c.render(w, r, s, http.StatusOK, "line", "Line "+slug, d)
	return nil
}

// saveLine creates a line or changes the fields the form holds.
func (c *Console) saveLine(w http.ResponseWriter, r *http.Request, s *session) error {
	slug := r.PathValue("slug")
	f := func(n string) string { return strings.TrimSpace(r.PostFormValue(n)) }
	var req []topupd.RequiredField
	for _, l := range strings.Split(r.PostFormValue("required"), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		parts := strings.SplitN(l, "|", 3)
		rf := topupd.RequiredField{Field: strings.TrimSpace(parts[0])}
		if len(parts) > 1 {
			rf.Label = strings.TrimSpace(parts[1])
		}
		if len(parts) > 2 {
			rf.Pattern = strings.TrimSpace(parts[2])
		}
		req = append(req, rf)
	}
	if req == nil {
		req = []topupd.RequiredField{}
	}
	servers, regions := parseChoices(r.PostFormValue("serverIdOptions")), parseChoices(r.PostFormValue("regionOptions"))
	var err error
	if slug == "new" {
		slug = f("slug")
		_, err = c.Service.PutLine(r.Context(), s.actor, topupd.Line{Slug: slug, ProductName: f("productName"), GameName: f("gameName"),
			Game: f("game"), Kind: topupd.LineKind(f("kind")), Status: f("status"), Required: req, ServerIDOptions: servers, RegionOptions: regions})
	} else {
		productName, gameName, game, kind, status := f("productName"), f("gameName"), f("game"), topupd.LineKind(f("kind")), f("status")
		if was, err := c.Service.Line(r.Context(), s.actor, slug); err != nil {
			return err
		} else if goesOffSale(was.Status, status) {
			if ok, err := c.offSaleConfirmed(w, r, s, "the line "+slug, topupd.OrdersQuery{Slug: slug}, "/console/catalog/lines/"+url.PathEscape(slug)); !ok || err != nil {
				return err
			}
		}
		_, err = c.Service.UpdateLine(r.Context(), s.actor, slug, service.LinePatch{ProductName: &productName, GameName: &gameName,
			Game: &game, Kind: &kind, Status: &status, Required: &req, ServerIDOptions: &servers, RegionOptions: &regions})
	}
	if err != nil {
		return err
	}
	return c.done(w, r, "/console/catalog", "Line "+slug+" is saved.")
}

// parseChoices reads choices, one a line as "value | label" (the label
// defaults to the value).
func parseChoices(text string) []topupd.Option {
	out := []topupd.Option{}
	for _, l := range strings.Split(text, "\n") {
		v, label, _ := strings.Cut(l, "|")
		v, label = strings.TrimSpace(v), strings.TrimSpace(label)
		if v == "" {
			continue
		}
		if label == "" {
			label = v
		}
		out = append(out, topupd.Option{Value: v, Label: label})
	}
	return out
}

// choicesText writes choices as parseChoices reads them.
func choicesText(cs []topupd.Option) string {
	var ls []string
	for _, c := range cs {
		ls = append(ls, c.Value+" | "+c.Label)
	}
	return strings.Join(ls, "\n")
}

// lineStatus enables or disables a line (a patch of its status alone).
func (c *Console) lineStatus(w http.ResponseWriter, r *http.Request, s *session) error {
	slug, st := r.PathValue("slug"), r.PostFormValue("status")
	if st == topupd.StatusDisabled {
		ok, err := c.offSaleConfirmed(w, r, s, "the line "+slug, topupd.OrdersQuery{Slug: slug}, "/console/catalog")
		if !ok || err != nil {
			return err
		}
	}
	if _, err := c.Service.UpdateLine(r.Context(), s.actor, slug, service.LinePatch{Status: &st}); err != nil {
		return err
	}
	return c.done(w, r, "/console/catalog", "Line "+slug+" is "+st+".")
}

// packData is a pack's edit page.
type packData struct {
	P     service.PackView
	New   bool
	Lines []topupd.Line
	// Rule says which pricing rule prices the pack, in words.
	Rule string
	// Undercut, after a cost edit refused as undercutting prices, is
	// what the form offers then (pricing_cost.go).
	Undercut *undercutChoice
}

// pack shows a pack's form: a new one at /console/catalog/packs/new.
func (c *Console) pack(w http.ResponseWriter, r *http.Request, s *session) error {
	pid := r.PathValue("pid")
	d, err := c.packPage(r, s, pid)
	if err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "pack", "Pack "+pid, d)
	return nil
}

// packPage gathers a pack's form; "new" is a new pack's.
func (c *Console) packPage(r *http.Request, s *session, pid string) (packData, error) {
	d := packData{New: pid == "new", P: service.PackView{Pack: topupd.Pack{Status: topupd.StatusActive, Provider: topupd.ProviderSim}}}
	var err error
	if d.Lines, err = c.Service.Lines(r.Context(), s.actor); err != nil {
		return d, err
	}
	if d.New {
		return d, nil
	}
	if d.P, err = c.findPack(r, s, pid); err != nil {
		return d, err
	}
	rules, err := c.Service.PricingRules(r.Context(), s.actor)
	d.Rule = ruleOfPack(&d.P.Pack, rules)
	return d, err
}

// findPack reads one pack; an unknown one is a 404 page.
func (c *Console) findPack(r *http.Request, s *session, pid string) (service.PackView, error) {
	p, err := c.Service.Pack(r.Context(), s.actor, pid)
	if topupd.CodeOf(err) == topupd.ENotFound {
		return p, pageError{http.StatusNotFound, "There is no pack " + pid + "."}
	}
	return p, err
}

// LargePrice is the price ($1,000) from which a pack's price asks to be
// confirmed; so does a change that more than doubles or halves it.
var LargePrice = topupd.USD(1000)

// largePriceChange reports whether a pack's price going from was (0 for
// a new pack) to price asks to be confirmed.
func largePriceChange(was, price topupd.Money) bool {
	return price >= LargePrice && was < LargePrice || was > 0 && (price > 2*was || 2*price < was)
}

// savePack creates a pack, or changes only the fields the form changed:
// a price edit changes nothing else. A large price or price change asks
// to be confirmed; a refused price or cost shows the form again, with
// what was typed and the refusal beside the field. A cost raised above
// prices the pack is sold at names them and offers Reprice and Keep
// below cost (pricing_cost.go).
func (c *Console) savePack(w http.ResponseWriter, r *http.Request, s *session) error {
	pid := r.PathValue("pid")
	err := c.savePackForm(w, r, s, pid)
	return c.formFailed(w, r, s, err, "pack", func() (string, any, error) {
		d, derr := c.packPage(r, s, pid)
		var ue *undercutError
		if errors.As(err, &ue) {
			d.Undercut = &ue.choice
		}
		return "Pack " + pid, d, derr
	})
}

// savePackForm is savePack's work; refusals are fieldErrors.
func (c *Console) savePackForm(w http.ResponseWriter, r *http.Request, s *session, pid string) error {
	f := func(n string) string { return strings.TrimSpace(r.PostFormValue(n)) }
	price, problem := parseAmount(f("price"), centPlaces)
	if problem == "" && price <= 0 {
		problem = "A price is more than zero."
	}
	if problem != "" {
		return fieldError{"price", problem}
	}
	var cost *topupd.Money // empty: no cost
	if f("cost") != "" {
		m, problem := parseAmount(f("cost"), pricePlaces)
		if problem == "" && m < 0 {
			problem = "A cost cannot be negative."
		}
		if problem != "" {
			return fieldError{"cost", problem}
		}
		cost = &m
	}
	choice := f("costChoice")
	allow := f("allowBelowCost") == "yes" || choice == costKeep || choice == costRepriceKeep
	reprice := choice == costReprice || choice == costRepriceKeep
	pinned := f("pricePinned") == "yes"
	var was service.PackView
	if pid != "new" {
		var err error
		if was, err = c.findPack(r, s, pid); err != nil {
			return err
		}
	}
	name := pid
	if pid == "new" {
		name = f("pid")
	}
	// One confirmation asks about everything that needs one: a "yes"
	// confirms the whole form.
	var ask []string
	if price != was.Price && largePriceChange(was.Price, price) {
		q := "Price pack " + name + " at " + usdText(price) + "? That is a large price: check the digits."
		if pid != "new" {
			q = priceQuestion(name, was.Price, price)
		}
		ask = append(ask, q)
	}
	if pid != "new" && goesOffSale(was.Status, f("status")) && r.PostFormValue("confirmed") != "yes" {
		q, err := c.offSaleQuestion(r.Context(), s, "the pack "+pid, topupd.OrdersQuery{PID: pid})
		if err != nil {
			return err
		}
		ask = append(ask, q)
	}
	if len(ask) > 0 && !c.confirmed(w, r, s, strings.Join(ask, " "), "/console/catalog/packs/"+url.PathEscape(pid)) {
		return nil
	}
	var err error
	var saved service.PackView
	var after topupd.Pack // the pack as the form leaves it
	if pid == "new" {
		after = topupd.Pack{PID: name, Slug: f("slug"), Name: f("name"), Category: f("category"), Price: price, Status: f("status"),
			StockBased: f("stockBased") == "yes", Provider: f("provider"), Upstream: f("upstream"), UpstreamPID: f("upstreamPid"), PricePinned: pinned}
		if cost != nil {
			after.Cost = *cost
		}
		saved, err = c.Service.PutPack(r.Context(), s.actor, after, topupd.CostGuard{AllowBelowCost: allow, Reprice: reprice})
	} else {
		patch, changed := service.PackPatch{AllowBelowCost: allow, Reprice: reprice}, false
		for _, v := range []struct {
			dst       **string
			was, form string
		}{{&patch.Name, was.Name, f("name")}, {&patch.Category, was.Category, f("category")}, {&patch.Status, was.Status, f("status")}} {
			if v.was != v.form {
				*v.dst, changed = &v.form, true
			}
		}
		if price != was.Price {
			patch.Price, changed = &price, true
		}
		var wasCost *topupd.Money // the pack's cost, nil when not set
		if was.Cost > 0 {
			wasCost = &was.Cost
		}
		if (cost == nil) != (wasCost == nil) || cost != nil && *cost != *wasCost {
			var to topupd.Money // none clears it
			if cost != nil {
				to = *cost
			}
			patch.Cost, changed = &to, true
		}
		if f("pinShown") == "yes" && pinned != was.PricePinned {
			patch.PricePinned, changed = &pinned, true
		}
		if !changed && !reprice {
			return c.done(w, r, "/console/catalog", "Pack "+pid+": nothing changed.")
		}
		after = was.Pack
		patch.Apply(&after)
		saved, err = c.Service.UpdatePack(r.Context(), s.actor, pid, patch)
	}
	var de *topupd.Error
	if errors.As(err, &de) && de.Code == topupd.EBelowCost && len(de.Undercut) > 0 {
		return c.undercutRefused(r, s, after, de.Undercut, reprice)
	} else if topupd.CodeOf(err) == topupd.EBelowCost {
		return fieldError{"price", belowCost(price, cost, was.Cost)}
	} else if err != nil {
		return err
	}
	return c.done(w, r, "/console/catalog", c.packSaved(r, s, name, price, saved))
}

// belowCost says in plain words why a price below the cost was refused,
// and what to do: cost is the one typed (nil: none), was the pack's.
func belowCost(price topupd.Money, cost *topupd.Money, was topupd.Money) string {
	if cost != nil {
		was = *cost
	}
	return "The price " + usdText(price) + " is below the cost " + usdText(was) +
		": every sale would lose money. Raise the price, lower the cost, or tick “Allow a price below the cost” to sell at a loss."
}

// packStatus enables or disables a pack (a patch of its status alone).
func (c *Console) packStatus(w http.ResponseWriter, r *http.Request, s *session) error {
	pid, st := r.PathValue("pid"), r.PostFormValue("status")
	if st == topupd.StatusDisabled {
		ok, err := c.offSaleConfirmed(w, r, s, "the pack "+pid, topupd.OrdersQuery{PID: pid}, "/console/catalog")
		if !ok || err != nil {
			return err
		}
	}
	if _, err := c.Service.UpdatePack(r.Context(), s.actor, pid, service.PackPatch{Status: &st}); err != nil {
		return err
	}
	return c.done(w, r, "/console/catalog", "Pack "+pid+" is "+st+".")
}
