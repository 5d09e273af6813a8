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
	p, err := linePatchOf(obj, l.Slug)
	if err != nil {
		return err
	}
	p.Apply(&l)
	if l, err = a.Service.PutLine(r.Context(), a.actor(r), l); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewAdminLine(&l))
	return nil
}

// patchService changes the fields a body sends of a stored line; the others
// keep their values. An unknown line is 404 whatever the body holds.
func (a *admin) patchService(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	slug := r.PathValue("slug")
	p, err := linePatchOf(obj, slug)
	if err != nil {
		if _, lerr := a.Service.Line(r.Context(), a.actor(r), slug); lerr != nil {
			return lerr
		}
		return err
	}
	l, err := a.Service.UpdateLine(r.Context(), a.actor(r), slug, p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewAdminLine(&l))
	return nil
}

// linePatchOf reads the fields of a line that the body sends, about the
// line slug names.
func linePatchOf(obj *object, slug string) (service.LinePatch, error) {
	var p service.LinePatch
	var bodySlug string
	if obj.take("slug", &bodySlug) && bodySlug != slug {
		return p, topupd.Errorf(topupd.EInvalidBody, "slug in the body differs from the path")
	}
	p.ProductName, p.GameName, p.Game = takeString(obj, "productName"), takeString(obj, "gameName"), takeString(obj, "game")
	var kind string
	if obj.take("kind", &kind) {
		k := topupd.LineKind(kind)
		p.Kind = &k
	}
	p.Status = takeString(obj, "status")
	if obj.has("required") {
		var req []topupd.RequiredField
		obj.take("required", &req)
		p.Required = &req
	}
	if obj.has("serverIdOptions") {
		opts := obj.options("serverIdOptions")
		p.ServerIDOptions = &opts
	}
	if obj.has("regionOptions") {
		opts := obj.options("regionOptions")
		p.RegionOptions = &opts
	}
	return p, obj.done()
}

// takeString takes a string field: nil when the body does not send it (or
// sends null).
func takeString(obj *object, name string) *string {
	var s string
	if !obj.take(name, &s) {
		return nil
	}
	return &s
}

// servicesAnswer is the list of lines.
type servicesAnswer struct {
	Services []adminLineView `json:"services"`
	Success  bool            `json:"success"`
}

func (a *admin) listServices(w http.ResponseWriter, r *http.Request) error {
	lines, err := a.Service.Lines(r.Context(), a.actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, servicesAnswer{Services: viewEach(lines, viewAdminLine), Success: true})
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
	// PricePinned keeps the price as set by hand: no pricing rule sets it.
	PricePinned bool `json:"pricePinned"`
}

func viewAdminPack(p *topupd.Pack, available int) adminPackView {
	v := adminPackView{PID: p.PID, Slug: p.Slug, Name: p.Name, Category: p.Category, PriceUsd: p.Price, Status: p.Status,
		StockBased: p.StockBased, Provider: p.Provider, Upstream: p.Upstream, UpstreamPID: p.UpstreamPID, Available: available,
		LowStockAt: p.LowStockAt, Suppliers: p.Suppliers, PricePinned: p.PricePinned}
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
	p := topupd.Pack{PID: r.PathValue("pid"), Status: topupd.StatusActive} // no provider: the service settles it
	if !obj.has("priceUsd") {
		return topupd.Errorf(topupd.EInvalidBody, "priceUsd is required")
	}
	patch, err := packPatchOf(obj, p.PID)
	if err != nil {
		return err
	}
	patch.Apply(&p)
	guard := patch.Guard()
	guard.PriceSet = false // a PUT always names the price: the one stored is not set again by hand
	v, err := a.Service.PutPack(r.Context(), a.actor(r), p, guard)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewAdminPack(&v.Pack, v.Available))
	return nil
}

// patchProduct changes the fields a body sends of a stored pack; the others
// keep their values, so a price edit never changes who fulfils the pack.
// An unknown pack is 404 whatever the body holds.
func (a *admin) patchProduct(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	pid := r.PathValue("pid")
	patch, err := packPatchOf(obj, pid)
	if err != nil {
		if _, perr := a.Service.Pack(r.Context(), a.actor(r), pid); perr != nil {
			return perr
		}
		return err
	}
	v, err := a.Service.UpdatePack(r.Context(), a.actor(r), pid, patch)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewAdminPack(&v.Pack, v.Available))
	return nil
}

// packPatchOf reads the fields of a pack that the body sends, about the
// pack pid names, and whether it allows a price below cost. A supplier
// list sent without provider, upstream or upstreamPid makes its first
// supplier the pack's provider.
func packPatchOf(obj *object, pid string) (service.PackPatch, error) {
	var p service.PackPatch
	var bodyPID string
	if obj.take("pid", &bodyPID) && bodyPID != pid {
		return p, topupd.Errorf(topupd.EInvalidBody, "pid in the body differs from the path")
	}
	obj.take("allowBelowCost", &p.AllowBelowCost)
	obj.take("reprice", &p.Reprice)
	var pinned bool
	if obj.take("pricePinned", &pinned) {
		p.PricePinned = &pinned
	}
	p.Slug, p.Name, p.Category = takeString(obj, "slug"), takeString(obj, "name"), takeString(obj, "category")
	if price, ok := obj.money("priceUsd"); ok {
		p.Price = &price
	}
	p.Status = takeString(obj, "status")
	var stockBased bool
	if obj.take("stockBased", &stockBased) {
		p.StockBased = &stockBased
	}
	sentProvider := obj.has("provider") || obj.has("upstream") || obj.has("upstreamPid")
	p.Provider, p.Upstream, p.UpstreamPID = takeString(obj, "provider"), takeString(obj, "upstream"), takeString(obj, "upstreamPid")
	if obj.has("costUsd") {
		cost, _ := obj.money("costUsd") // null clears it
		p.Cost = &cost
	}
	if obj.has("lowStockAt") {
		var level *int
		var n int
		if obj.take("lowStockAt", &n) {
			level = &n
		}
		p.LowStockAt = &level
	}
	if obj.has("suppliers") {
		list := obj.suppliers("suppliers")
		p.Suppliers = &list
		if len(list) > 0 && !sentProvider {
			first := list[0]
			p.Provider, p.Upstream, p.UpstreamPID = &first.Provider, &first.Upstream, &first.UpstreamPID
		}
	}
	return p, obj.done()
}

// productsAnswer is the list of packs.
type productsAnswer struct {
	Products []adminPackView `json:"products"`
	Success  bool            `json:"success"`
}

func (a *admin) listProducts(w http.ResponseWriter, r *http.Request) error {
	packs, err := a.Service.Packs(r.Context(), a.actor(r))
	if err != nil {
		return err
	}
	out := make([]adminPackView, len(packs))
	for i := range packs {
		out[i] = viewAdminPack(&packs[i].Pack, packs[i].Available)
	}
	writeJSON(w, http.StatusOK, productsAnswer{Products: out, Success: true})
	return nil
}

// maxStockBatch bounds the codes added in one call.
const maxStockBatch = service.MaxStockCodes

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
