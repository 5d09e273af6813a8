package httpapi

import (
	"net/http"
	"strconv"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// adminLineView is a line as the operator sees and sends it.
type adminLineView struct {
	Slug            string                 `json:"slug"`
	ProductName     string                 `json:"productName"`
	GameName        string                 `json:"gameName"`
	Game            string                 `json:"game"`
	Kind            string                 `json:"kind"`
	Status          string                 `json:"status"`
	Required        []topupd.RequiredField `json:"required"`
	ServerIDOptions []topupd.Option        `json:"serverIdOptions,omitempty"`
	RegionOptions   []topupd.Option        `json:"regionOptions,omitempty"`
}

func viewAdminLine(l *topupd.Line) adminLineView {
	req := l.Required
	if req == nil {
		req = []topupd.RequiredField{}
	}
	return adminLineView{Slug: l.Slug, ProductName: l.ProductName, GameName: l.GameName, Game: l.Game, Kind: string(l.Kind),
		Status: l.Status, Required: req, ServerIDOptions: l.ServerIDOptions, RegionOptions: l.RegionOptions}
}

func (a *admin) putService(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	l := topupd.Line{Slug: r.PathValue("slug"), Status: topupd.StatusActive}
	if err := takeLine(obj, &l); err != nil {
		return err
	}
	if err := l.Validate(); err != nil {
		return err
	}
	if err := a.Store.PutLine(r.Context(), l); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewAdminLine(&l))
	return nil
}

// patchService changes the fields a body sends of a stored line; the others
// keep their values.
func (a *admin) patchService(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	l, err := a.Store.UpdateLine(r.Context(), r.PathValue("slug"), func(l *topupd.Line) error {
		if err := takeLine(obj.clone(), l); err != nil {
			return err
		}
		return l.Validate()
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewAdminLine(&l))
	return nil
}

// takeLine sets the fields of a line that the body sends.
func takeLine(obj *object, l *topupd.Line) error {
	var slug, kind string
	if obj.take("slug", &slug) && slug != l.Slug {
		return topupd.Errorf(topupd.EInvalidBody, "slug in the body differs from the path")
	}
	obj.take("productName", &l.ProductName)
	obj.take("gameName", &l.GameName)
	obj.take("game", &l.Game)
	if obj.take("kind", &kind) {
		l.Kind = topupd.LineKind(kind)
	}
	obj.take("status", &l.Status)
	if obj.has("required") {
		l.Required = nil
		obj.take("required", &l.Required)
	}
	if obj.has("serverIdOptions") {
		l.ServerIDOptions = obj.options("serverIdOptions")
	}
	if obj.has("regionOptions") {
		l.RegionOptions = obj.options("regionOptions")
	}
	return obj.done()
}

func (a *admin) listServices(w http.ResponseWriter, r *http.Request) error {
	lines, err := a.Store.Lines(r.Context())
	if err != nil {
		return err
	}
	out := make([]adminLineView, len(lines))
	for i := range lines {
		out[i] = viewAdminLine(&lines[i])
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "services": out})
	return nil
}

// adminPackView is a pack as the operator sees and sends it.
type adminPackView struct {
	PID         string       `json:"pid"`
	Slug        string       `json:"slug"`
	Name        string       `json:"name"`
	Category    string       `json:"category"`
	PriceUsd    topupd.Money `json:"priceUsd"`
	Status      string       `json:"status"`
	StockBased  bool         `json:"stockBased"`
	Provider    string       `json:"provider"`
	Upstream    string       `json:"upstream,omitempty"`
	UpstreamPID string       `json:"upstreamPid,omitempty"`
	Available   int          `json:"available"`
	// CostUsd, LowStockAt and Suppliers are left out when not set.
	CostUsd    *topupd.Money     `json:"costUsd,omitempty"`
	LowStockAt *int              `json:"lowStockAt,omitempty"`
	Suppliers  []topupd.Supplier `json:"suppliers,omitempty"`
}

func viewAdminPack(p *topupd.Pack, available int) adminPackView {
	v := adminPackView{PID: p.PID, Slug: p.Slug, Name: p.Name, Category: p.Category, PriceUsd: p.Price, Status: p.Status,
		StockBased: p.StockBased, Provider: p.Provider, Upstream: p.Upstream, UpstreamPID: p.UpstreamPID, Available: available,
		LowStockAt: p.LowStockAt, Suppliers: p.Suppliers}
	if p.Cost > 0 {
		v.CostUsd = &p.Cost
	}
	return v
}

func (a *admin) putProduct(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	p := topupd.Pack{PID: r.PathValue("pid"), Status: topupd.StatusActive} // no provider: checkPack settles it
	if !obj.has("priceUsd") {
		return topupd.Errorf(topupd.EInvalidBody, "priceUsd is required")
	}
	allow, err := takePack(obj, &p)
	if err != nil {
		return err
	}
	if err := a.checkPack(r, &p, allow); err != nil {
		return err
	}
	if err := a.Store.PutPack(r.Context(), p); err != nil {
		return err
	}
	return a.writePack(w, r, &p)
}

// patchProduct changes the fields a body sends of a stored pack; the others
// keep their values, so a price edit never changes who fulfils the pack.
func (a *admin) patchProduct(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	p, err := a.Store.UpdatePack(r.Context(), r.PathValue("pid"), func(p *topupd.Pack) error {
		allow, err := takePack(obj.clone(), p)
		if err != nil {
			return err
		}
		return a.checkPack(r, p, allow)
	})
	if err != nil {
		return err
	}
	return a.writePack(w, r, &p)
}

// takePack sets the fields of a pack that the body sends, and reports
// whether it allows a price below cost.
func takePack(obj *object, p *topupd.Pack) (allowBelowCost bool, err error) {
	var pid string
	if obj.take("pid", &pid) && pid != p.PID {
		return false, topupd.Errorf(topupd.EInvalidBody, "pid in the body differs from the path")
	}
	obj.take("allowBelowCost", &allowBelowCost)
	obj.take("slug", &p.Slug)
	obj.take("name", &p.Name)
	obj.take("category", &p.Category)
	if price, ok := obj.money("priceUsd"); ok {
		p.Price = price
	}
	obj.take("status", &p.Status)
	obj.take("stockBased", &p.StockBased)
	sentProvider := obj.has("provider") || obj.has("upstream") || obj.has("upstreamPid")
	obj.take("provider", &p.Provider)
	obj.take("upstream", &p.Upstream)
	obj.take("upstreamPid", &p.UpstreamPID)
	if obj.has("costUsd") {
		p.Cost, _ = obj.money("costUsd") // null clears it
	}
	if obj.has("lowStockAt") {
		p.LowStockAt = nil
		var n int
		if obj.take("lowStockAt", &n) {
			p.LowStockAt = &n
		}
	}
	if obj.has("suppliers") {
		p.Suppliers = obj.suppliers("suppliers")
		if len(p.Suppliers) > 0 && !sentProvider {
			first := p.Suppliers[0]
			p.Provider, p.Upstream, p.UpstreamPID = first.Provider, first.Upstream, first.UpstreamPID
		}
	}
	return allowBelowCost, obj.done()
}

// checkPack checks a pack about to be stored: valid, priced at or above
// its cost unless allowed, its suppliers allowed and configured, its line
// existing.
func (a *admin) checkPack(r *http.Request, p *topupd.Pack, allowBelowCost bool) error {
	line, err := a.lineOf(r, p.Slug)
	if err != nil {
		return err
	}
	if err := p.ResolveProvider(&line, !a.SimOff); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if err := topupd.CheckCost(p.Price, p.HighestCost(), allowBelowCost); err != nil {
		return err
	}
	for _, s := range p.SupplierList() {
		if s.Provider == topupd.ProviderSim && a.SimOff {
			return topupd.Errorf(topupd.ESimDisabled, "the sim supplier is off (--sim off): name the pack's provider")
		}
		if s.Provider == topupd.ProviderUpstream {
			if _, err := a.Store.Upstream(r.Context(), s.Upstream); err != nil {
				if topupd.CodeOf(err) == topupd.ENotFound {
					return topupd.Errorf(topupd.EInvalidBody, "upstream %q is not configured (PUT /admin/upstreams/%s first)", s.Upstream, s.Upstream)
				}
				return err
			}
		}
	}
	return nil
}

// lineOf finds the service line a pack names.
func (a *admin) lineOf(r *http.Request, slug string) (topupd.Line, error) {
	lines, err := a.Store.Lines(r.Context())
	if err != nil {
		return topupd.Line{}, err
	}
	for _, l := range lines {
		if l.Slug == slug {
			return l, nil
		}
	}
	return topupd.Line{}, topupd.Errorf(topupd.EInvalidBody, "slug %q names no service line", slug)
}

// writePack answers a pack with its stock.
func (a *admin) writePack(w http.ResponseWriter, r *http.Request, p *topupd.Pack) error {
	stock, err := a.Store.StockLevels(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewAdminPack(p, stock[p.PID]))
	return nil
}

func (a *admin) listProducts(w http.ResponseWriter, r *http.Request) error {
	packs, err := a.Store.Packs(r.Context())
	if err != nil {
		return err
	}
	stock, err := a.Store.StockLevels(r.Context())
	if err != nil {
		return err
	}
	out := make([]adminPackView, len(packs))
	for i := range packs {
		out[i] = viewAdminPack(&packs[i], stock[packs[i].PID])
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "products": out})
	return nil
}

// maxStockBatch bounds the codes added in one call.
const maxStockBatch = 10_000

// readCodes reads a body of only { "codes": [...] } with at least least
// and at most maxStockBatch codes.
func readCodes(r *http.Request, least int) ([]string, error) {
	obj, err := readAdminObject(r)
	if err != nil {
		return nil, err
	}
	var codes []string
	obj.take("codes", &codes)
	if err := obj.done(); err != nil {
		return nil, err
	}
	return codes, service.CheckCodes(codes, least, maxStockBatch)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
