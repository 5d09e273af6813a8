package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/api"
	"github.com/topupd/topupd/service"
)

// services lists the active lines.
func (a *reseller) services(w http.ResponseWriter, r *http.Request) error {
	lines, err := a.Service.ActiveLines(r.Context(), callerOf(r.Context()).caller())
	if err != nil {
		return err
	}
	out := []serviceView{}
	for i := range lines {
		out = append(out, viewService(&lines[i]))
	}
	writeTagged(w, r, servicesList{Services: out, Success: true})
	return nil
}

// products lists the active packs of active lines, with live stock; with
// the sim supplier off, its packs are not orderable and not listed. With
// updatedSince it lists only the packs that changed for the caller since
// then, a pack taken off sale as a gone row (catalogsync.go).
func (a *reseller) products(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	c := callerOf(ctx).caller()
	since, sync, err := updatedSince(r.URL.Query())
	if err != nil {
		return err
	}
	// The version is read before the catalog: a change between the two
	// reads shows in the answer and changes the next tag, so a client is
	// never left with an old answer under a current tag.
	version, err := a.Service.CatalogVersion(ctx, c)
	if err != nil {
		return err
	}
	tag := etag("products", c.Account.ID, version, r.URL.Query().Get("updatedSince"))
	if notModified(w, r, tag) {
		return nil
	}
	// The sync point comes before every read of the catalog, so the next
	// sync from serverTime misses nothing that this answer missed.
	at, err := a.Service.CatalogSyncPoint(ctx)
	if err != nil {
		return err
	}
	var changed []string
	if sync {
		if changed, err = a.Service.ChangedPacks(ctx, c, since); err != nil {
			return err
		}
	}
	onSale, err := a.onSale(ctx, c)
	if err != nil {
		return err
	}
	out := []productRow{}
	if !sync {
		for _, v := range onSale.rows {
			out = append(out, productRow{productView: v})
		}
	}
	for _, pid := range changed {
		if i, ok := onSale.at[pid]; ok {
			out = append(out, productRow{productView: onSale.rows[i]})
		} else {
			out = append(out, productRow{productView: productView{ID: pid}, gone: true})
		}
	}
	writeJSON(w, http.StatusOK, productsList{Products: out, ServerTime: at.UTC().Format(serverTimeLayout), Success: true})
	return nil
}

// catalogRows are the packs on sale to a caller, by PID, and where each is.
type catalogRows struct {
	rows []productView
	at   map[string]int
}

// onSale is the catalog on sale to the caller (service.Catalog), as rows.
func (a *reseller) onSale(ctx context.Context, caller service.Caller) (catalogRows, error) {
	var c catalogRows
	sale, err := a.Service.Catalog(ctx, caller)
	if err != nil {
		return c, err
	}
	c.at = make(map[string]int, len(sale.Packs))
	for i := range sale.Packs {
		p := &sale.Packs[i]
		c.at[p.PID] = len(c.rows)
		var next *topupd.NextPrice
		if n, ok := sale.Next[p.PID]; ok {
			next = &n
		}
		c.rows = append(c.rows, viewProduct(p, sale.Lines[p.Slug], sale.Stock, next))
	}
	return c, nil
}

// myIP answers the client IP the allow-list checks.
func (a *reseller) myIP(w http.ResponseWriter, r *http.Request) error {
	ip := callerOf(r.Context()).ip
	s := ""
	if ip.IsValid() {
		s = ip.String()
	}
	writeJSON(w, http.StatusOK, ipAnswer{IP: s, Success: true})
	return nil
}

// balance answers the account's balance.
func (a *reseller) balance(w http.ResponseWriter, r *http.Request) error {
	bal, err := a.Service.CallerBalance(r.Context(), callerOf(r.Context()).caller())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, balanceAnswer{BalanceUsd: bal, Currency: "USD", Success: true})
	return nil
}

// order answers one of the caller's orders.
func (a *reseller) order(w http.ResponseWriter, r *http.Request) error {
	books, id := callerOf(r.Context()).account.Books(), r.PathValue("orderId")
	key := finalOrderKey(books, id)
	if b, ok := a.final.get(key); ok {
		writeEncoded(w, http.StatusOK, b)
		return nil
	}
	o, err := a.Service.CallerOrder(r.Context(), callerOf(r.Context()).caller(), id)
	if err != nil {
		return err
	}
	b, err := encodeAnswer(orderAnswer{Success: true, orderView: viewOrder(&o, a.Now())})
	if err != nil {
		return err
	}
	a.final.keep(key, &o, b)
	writeEncoded(w, http.StatusOK, b)
	return nil
}

// noOrder answers GET /orders/ (an empty order id) as GET /orders/{orderId}
// answers an id that names no order of the caller.
func (a *reseller) noOrder(w http.ResponseWriter, r *http.Request) error {
	return topupd.Fail(topupd.EOrderNotFound)
}

// onlyPost answers /orders with a method other than POST as ServeMux
// answers a method a path does not serve: 405 METHOD_NOT_ALLOWED, with
// Allow: POST.
func (a *reseller) onlyPost(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", http.MethodPost)
	writeError(w, a.Logger, r, topupd.Fail(topupd.EMethodNotAllowed))
}

// History limits from the spec.
const (
	historyDefault  = 30
	historyMax      = 200
	pageSizeDefault = 20
	pageSizeMax     = 50
)

// history answers the caller's orders, newest first, in simple or paged
// mode; with trxid, only the order of that trxid (count 0 or 1).
func (a *reseller) history(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	c := callerOf(r.Context()).caller()
	if err := notEmpty(q, "limit", "page", "pageSize", "trxid"); err != nil {
		return err
	}
	trxid := q.Get("trxid")
	if err := token("trxid", trxid); err != nil {
		return topupd.Errorf(topupd.EInvalidRequest, "trxid: at most %d bytes of text", maxTokenLen)
	}
	if !q.Has("page") {
		limit, err := clampParam(q.Get("limit"), "limit", historyDefault, 1, historyMax)
		if err != nil {
			return err
		}
		orders, _, err := a.Service.CallerHistory(r.Context(), c, topupd.HistoryQuery{Limit: limit, TrxID: trxid})
		if err != nil {
			return err
		}
		views := a.viewOrders(orders)
		writeJSON(w, http.StatusOK, historyAnswer{Count: len(views), Orders: views, Success: true})
		return nil
	}
	page, err := intParam(q.Get("page"), "page", 1, 1, 1_000_000_000)
	if err != nil {
		return err
	}
	size, err := clampParam(q.Get("pageSize"), "pageSize", pageSizeDefault, 1, pageSizeMax)
	if err != nil {
		return err
	}
	orders, total, err := a.Service.CallerHistory(r.Context(), c, topupd.HistoryQuery{Offset: (page - 1) * size, Limit: size, TrxID: trxid})
	if err != nil {
		return err
	}
	views := a.viewOrders(orders)
	writeJSON(w, http.StatusOK, historyPage{Count: len(views), HasMore: page*size < total, Orders: views, Page: page, PageSize: size,
		Success: true, Total: total})
	return nil
}

func (a *reseller) viewOrders(orders []topupd.Order) []orderView {
	now := a.Now()
	views := make([]orderView, len(orders))
	for i := range orders {
		views[i] = viewOrder(&orders[i], now)
	}
	return views
}

// intParam reads an integer query parameter; empty gives def, out of range
// or not a number is EInvalidRequest.
func intParam(s, name string, def, lo, hi int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, topupd.Errorf(topupd.EInvalidRequest, "%s: a whole number from %d to %d", name, lo, hi)
	}
	return n, nil
}

// clampParam reads an integer query parameter and clamps it into [lo, hi];
// empty gives def, not a number is EInvalidRequest.
func clampParam(s, name string, def, lo, hi int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, topupd.Errorf(topupd.EInvalidRequest, "%s: a whole number", name)
	}
	return min(max(n, lo), hi), nil
}

// notEmpty refuses a query parameter given with an empty value
// (`?page=`): it is not a whole number, nor a trxid.
func notEmpty(q url.Values, names ...string) error {
	for _, name := range names {
		if q.Has(name) && q.Get(name) == "" {
			return topupd.Errorf(topupd.EInvalidRequest, "%s: given empty", name)
		}
	}
	return nil
}

// openapi answers the reseller API's OpenAPI document (api/reseller.yaml),
// as JSON.
func (a *reseller) openapi(w http.ResponseWriter, r *http.Request) error {
	doc, err := api.ResellerJSON()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write(doc)
	return err
}
