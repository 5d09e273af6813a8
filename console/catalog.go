package console

import (
	"net/http"
	"strings"

	"github.com/topupd/topupd/client"
)

// catalogData is the catalog page: every line and pack, the disabled too.
type catalogData struct {
	Lines []client.Line
	Packs []client.Pack
}

// catalog lists the lines and packs, with forms to add and edit them for a
// role that may.
func (c *Console) catalog(w http.ResponseWriter, r *http.Request, s *session) error {
	var d catalogData
	var err error
	if d.Lines, err = c.Admin.Services(s.ctx); err != nil {
		return err
	}
	if d.Packs, err = c.Admin.Products(s.ctx); err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "catalog", "Catalog", d)
	return nil
}

// lineData is a line's edit page; Required is one field a line, as
// "field | label | pattern", and the choices one a line as "value | label".
type lineData struct {
	L                  client.Line
	Required           string
	ServerIDs, Regions string
	New                bool
}

// line shows a line's form: a new one at /console/catalog/lines/new.
func (c *Console) line(w http.ResponseWriter, r *http.Request, s *session) error {
	slug := r.PathValue("slug")
	d := lineData{New: slug == "new", L: client.Line{Kind: "topup", Status: "active"}}
	if !d.New {
		lines, err := c.Admin.Services(s.ctx)
		if err != nil {
			return err
		}
		found := false
		for _, l := range lines {
			if l.Slug == slug {
				d.L, found = l, true
			}
		}
		if !found {
			return pageError{http.StatusNotFound, "There is no line " + slug + "."}
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

// saveLine creates a line (PUT) or changes the fields the form holds
// (PATCH: its serverId and region choices stay as they are).
func (c *Console) saveLine(w http.ResponseWriter, r *http.Request, s *session) error {
	slug := r.PathValue("slug")
	f := func(n string) string { return strings.TrimSpace(r.PostFormValue(n)) }
	var req []client.RequiredField
	for _, l := range strings.Split(r.PostFormValue("required"), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		parts := strings.SplitN(l, "|", 3)
		rf := client.RequiredField{Field: strings.TrimSpace(parts[0])}
		if len(parts) > 1 {
			rf.Label = strings.TrimSpace(parts[1])
		}
		if len(parts) > 2 {
			rf.Pattern = strings.TrimSpace(parts[2])
		}
		req = append(req, rf)
	}
	if req == nil {
		req = []client.RequiredField{}
	}
	servers, regions := parseChoices(r.PostFormValue("serverIdOptions")), parseChoices(r.PostFormValue("regionOptions"))
	var err error
	if slug == "new" {
		slug = f("slug")
		_, err = c.Admin.PutService(s.ctx, client.Line{Slug: slug, ProductName: f("productName"), GameName: f("gameName"), Game: f("game"),
			Kind: f("kind"), Status: f("status"), Required: req, ServerIDOptions: servers, RegionOptions: regions})
	} else {
		_, err = c.Admin.PatchService(s.ctx, slug, map[string]any{"productName": f("productName"), "gameName": f("gameName"),
			"game": f("game"), "kind": f("kind"), "status": f("status"), "required": req,
			"serverIdOptions": servers, "regionOptions": regions})
	}
	if err != nil {
		return err
	}
	return c.done(w, r, "/console/catalog", "Line "+slug+" is saved.")
}

// parseChoices reads choices, one a line as "value | label" (the label
// defaults to the value).
func parseChoices(text string) []client.Choice {
	out := []client.Choice{}
	for _, l := range strings.Split(text, "\n") {
		v, label, _ := strings.Cut(l, "|")
		v, label = strings.TrimSpace(v), strings.TrimSpace(label)
		if v == "" {
			continue
		}
		if label == "" {
			label = v
		}
		out = append(out, client.Choice{Value: v, Label: label})
	}
	return out
}

// choicesText writes choices as parseChoices reads them.
func choicesText(cs []client.Choice) string {
	var ls []string
	for _, c := range cs {
		ls = append(ls, c.Value+" | "+c.Label)
	}
	return strings.Join(ls, "\n")
}

// lineStatus enables or disables a line (a PATCH of its status alone).
func (c *Console) lineStatus(w http.ResponseWriter, r *http.Request, s *session) error {
	slug, st := r.PathValue("slug"), r.PostFormValue("status")
	if _, err := c.Admin.PatchService(s.ctx, slug, map[string]any{"status": st}); err != nil {
		return err
	}
	return c.done(w, r, "/console/catalog", "Line "+slug+" is "+st+".")
}

// packData is a pack's edit page.
type packData struct {
	P     client.Pack
	New   bool
	Lines []client.Line
}

// pack shows a pack's form: a new one at /console/catalog/packs/new.
func (c *Console) pack(w http.ResponseWriter, r *http.Request, s *session) error {
	pid := r.PathValue("pid")
	d := packData{New: pid == "new", P: client.Pack{Status: "active", Provider: "sim"}}
	var err error
	if d.Lines, err = c.Admin.Services(s.ctx); err != nil {
		return err
	}
	if !d.New {
		p, ok, err := c.findPack(s, pid)
		if err != nil {
			return err
		}
		if !ok {
			return pageError{http.StatusNotFound, "There is no pack " + pid + "."}
		}
		d.P = p
	}
	c.render(w, r, s, http.StatusOK, "pack", "Pack "+pid, d)
	return nil
}

// findPack reads one pack.
func (c *Console) findPack(s *session, pid string) (client.Pack, bool, error) {
	packs, err := c.Admin.Products(s.ctx)
	for _, p := range packs {
		if p.PID == pid {
			return p, true, nil
		}
	}
	return client.Pack{}, false, err
}

// savePack creates a pack (PUT) or sends, as a PATCH, only the fields the
// form changed: a price edit changes nothing else.
func (c *Console) savePack(w http.ResponseWriter, r *http.Request, s *session) error {
	pid := r.PathValue("pid")
	f := func(n string) string { return strings.TrimSpace(r.PostFormValue(n)) }
	price, err := money(r, "price", "Price")
	if err != nil {
		return err
	}
	var cost *client.Money // empty: no cost
	if f("cost") != "" {
		m, err := money(r, "cost", "Cost")
		if err != nil {
			return err
		}
		cost = &m
	}
	allow := f("allowBelowCost") == "yes"
	if pid == "new" {
		pid = f("pid")
		_, err = c.Admin.PutProduct(s.ctx, client.Pack{PID: pid, Slug: f("slug"), Name: f("name"), Category: f("category"), PriceUSD: price,
			Status: f("status"), StockBased: f("stockBased") == "yes", Provider: f("provider"), Upstream: f("upstream"), UpstreamPID: f("upstreamPid"),
			CostUSD: cost, AllowBelowCost: allow})
	} else {
		p, ok, ferr := c.findPack(s, pid)
		if ferr != nil {
			return ferr
		}
		if !ok {
			return pageError{http.StatusNotFound, "There is no pack " + pid + "."}
		}
		changed := map[string]any{}
		for name, v := range map[string][2]string{"name": {p.Name, f("name")}, "category": {p.Category, f("category")}, "status": {p.Status, f("status")}} {
			if v[0] != v[1] {
				changed[name] = v[1]
			}
		}
		if price != p.PriceUSD {
			changed["priceUsd"] = price
		}
		if (cost == nil) != (p.CostUSD == nil) || cost != nil && *cost != *p.CostUSD {
			changed["costUsd"] = cost
		}
		if len(changed) == 0 {
			return c.done(w, r, "/console/catalog", "Pack "+pid+": nothing changed.")
		}
		if allow {
			changed["allowBelowCost"] = true
		}
		_, err = c.Admin.PatchProduct(s.ctx, pid, changed)
	}
	if err != nil {
		return err
	}
	return c.done(w, r, "/console/catalog", "Pack "+pid+" is saved.")
}

// packStatus enables or disables a pack (a PATCH of its status alone).
func (c *Console) packStatus(w http.ResponseWriter, r *http.Request, s *session) error {
	pid, st := r.PathValue("pid"), r.PostFormValue("status")
	if _, err := c.Admin.PatchProduct(s.ctx, pid, map[string]any{"status": st}); err != nil {
		return err
	}
	return c.done(w, r, "/console/catalog", "Pack "+pid+" is "+st+".")
}
