package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// syncer is one account's catalog sync as a client runs it: the time to
// send as updatedSince, and the tags of its last answers.
type syncer struct {
	t     *testing.T
	h     *topupdtest.T
	a     topupdtest.Account
	since string
	tag   string // of GET /products
}

// syncAnswer is a catalog answer: its rows by id, raw, and its tag.
type syncAnswer struct {
	rows       map[string]map[string]any
	serverTime string
	tag        string
}

// get asks path with updatedSince (when not "") and If-None-Match (when
// not ""); a 304 is answered with a nil body.
func (s *syncer) get(path, since, tag string) (int, syncAnswer) {
	s.t.Helper()
	if since != "" {
		path += "?updatedSince=" + url.QueryEscape(since)
	}
	req, err := http.NewRequest("GET", s.h.API.URL+path, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("X-API-Key", s.a.Key)
	if tag != "" {
		req.Header.Set("If-None-Match", tag)
	}
	resp, err := s.h.HTTP.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	ans := syncAnswer{tag: resp.Header.Get("ETag")}
	switch resp.StatusCode {
	case http.StatusNotModified:
		if len(raw) != 0 || ans.tag != tag {
			s.t.Errorf("GET %s: 304 with body %q and ETag %q, want no body and %q", path, raw, ans.tag, tag)
		}
		return resp.StatusCode, ans
	case http.StatusOK:
	default:
		s.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, raw)
	}
	var body struct {
		Products   []map[string]any `json:"products"`
		ServerTime string           `json:"serverTime"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		s.t.Fatalf("GET %s: %v: %s", path, err, raw)
	}
	if _, err := time.Parse(time.RFC3339, body.ServerTime); err != nil {
		s.t.Errorf("GET %s: serverTime %q: %v", path, body.ServerTime, err)
	}
	if ans.tag == "" {
		s.t.Errorf("GET %s: no ETag", path)
	}
	ans.serverTime = body.ServerTime
	ans.rows = map[string]map[string]any{}
	for _, r := range body.Products {
		ans.rows[r["id"].(string)] = r
	}
	return resp.StatusCode, ans
}

// start reads the whole catalog, then syncs until an answer lists nothing,
// so that what the next sync lists is what the test changed after it.
func (s *syncer) start() {
	s.t.Helper()
	_, full := s.get("/products", "", "")
	s.since, s.tag = full.serverTime, full.tag
	for range 1000 {
		if _, ans := s.get("/products", s.since, ""); len(ans.rows) > 0 {
			s.since = ans.serverTime
			continue
		}
		return
	}
	s.t.Fatalf("%s: every sync lists a change", s.a.ID)
}

// changed syncs from the last serverTime and returns the rows listed; it
// also checks the ETag: a new one (and the old one no longer 304) exactly
// when tagChanges.
func (s *syncer) changed(tagChanges bool) map[string]map[string]any {
	s.t.Helper()
	status, _ := s.get("/products", "", s.tag)
	switch {
	case tagChanges && status == http.StatusNotModified:
		s.t.Errorf("%s: the ETag did not change", s.a.ID)
	case !tagChanges && status != http.StatusNotModified:
		s.t.Errorf("%s: the ETag changed (%d)", s.a.ID, status)
	}
	if tagChanges {
		_, full := s.get("/products", "", "")
		s.tag = full.tag
		if status, _ := s.get("/catalog", "", s.tag); status != http.StatusNotModified {
			s.t.Errorf("%s: GET /catalog with the ETag of /products: %d, want 304", s.a.ID, status)
		}
	}
	_, ans := s.get("/products", s.since, "")
	s.since = ans.serverTime
	return ans.rows
}

// ids are the keys of rows, sorted.
func ids(rows map[string]map[string]any) []string {
	out := []string{}
	for id := range rows {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// disabledRow is a sync answer's row of a pack off sale.
func disabledRow(id string) map[string]any { return map[string]any{"id": id, "status": "disabled"} }

// TestCatalogSync: updatedSince lists exactly what changed for the caller
// (a tier's price for its accounts only; a pack sold out and back in stock;
// a pack and a line taken off sale, as disabled rows), serverTime chains
// the syncs, and the ETag changes on each of those changes, with stock
// levels, and on nothing else.
func TestCatalogSync(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/gold", map[string]any{"prices": map[string]any{topupdtest.PIDFF: usd("0.9")}})
		h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/silver", map[string]any{"markupPercent": usd("5")})
		gold, silver, none := h.NewAccount("100", nil), h.NewAccount("100", nil), h.NewAccount("100", nil)
		h.AdminOK(http.StatusOK, "PATCH", "/admin/accounts/"+gold.ID, map[string]any{"tier": "gold"})
		h.AdminOK(http.StatusOK, "PATCH", "/admin/accounts/"+silver.ID, map[string]any{"tier": "silver"})
		var everyone []*syncer
		for _, a := range []topupdtest.Account{gold, silver, none} {
			s := &syncer{t: t, h: h, a: a}
			s.start()
			everyone = append(everyone, s)
		}
		// Every pack, by PID, those not on sale too.
		var packs []map[string]any
		var every []string
		for _, p := range h.AdminOK(http.StatusOK, "GET", "/admin/products", nil).Body["products"].([]any) {
			packs = append(packs, p.(map[string]any))
			every = append(every, p.(map[string]any)["pid"].(string))
		}
		sort.Strings(every)
		expect := func(doing string, want map[string][]string, tagChanges map[string]bool) map[string]map[string]map[string]any {
			t.Helper()
			got := map[string]map[string]map[string]any{}
			for _, s := range everyone {
				got[s.a.ID] = s.changed(tagChanges[s.a.ID])
				if diff := cmp.Diff(append([]string{}, want[s.a.ID]...), ids(got[s.a.ID])); diff != "" {
					t.Errorf("%s: %s lists (-want +got):\n%s", doing, s.a.ID, diff)
				}
			}
			return got
		}
		all := func(v bool) map[string]bool { return map[string]bool{gold.ID: v, silver.ID: v, none.ID: v} }

		// Nothing changed: nothing listed, every tag still current.
		expect("no change", nil, all(false))

		// A price of the gold tier: gold's account only.
		h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/gold", map[string]any{"prices": map[string]any{topupdtest.PIDFF: usd("0.85")}})
		got := expect("a gold price", map[string][]string{gold.ID: {topupdtest.PIDFF}}, map[string]bool{gold.ID: true})
		if p := got[gold.ID][topupdtest.PIDFF]["price"]; p != 0.85 {
			t.Errorf("gold's new price of %s: %v, want 0.85", topupdtest.PIDFF, p)
		}
		// The silver markup: every pack of silver's account (those off sale
		// as disabled rows).
		h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/silver", map[string]any{"markupPercent": usd("7")})
		expect("the silver markup", map[string][]string{silver.ID: every}, map[string]bool{silver.ID: true})
		// An account's own price, set and removed: that account only.
		own := "/admin/accounts/" + none.ID + "/prices/" + topupdtest.PIDMLBB
		h.AdminOK(http.StatusOK, "PUT", own, map[string]any{"priceUsd": usd("1.4")})
		expect("an own price", map[string][]string{none.ID: {topupdtest.PIDMLBB}}, map[string]bool{none.ID: true})
		h.AdminOK(http.StatusOK, "DELETE", own, nil)
		expect("an own price removed", map[string][]string{none.ID: {topupdtest.PIDMLBB}}, map[string]bool{none.ID: true})
		// A base price: everyone.
		h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDWW, map[string]any{"priceUsd": usd("0.97")})
		expect("a base price", map[string][]string{gold.ID: {topupdtest.PIDWW}, silver.ID: {topupdtest.PIDWW}, none.ID: {topupdtest.PIDWW}}, all(true))
		// A cost: the price of silver's account, which the markup prices
		// from it (and, listed for everyone, the same row for the others).
		h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDWW, map[string]any{"costUsd": usd("0.5")})
		got = expect("a cost", map[string][]string{gold.ID: {topupdtest.PIDWW}, silver.ID: {topupdtest.PIDWW}, none.ID: {topupdtest.PIDWW}}, all(true))
		if p := got[silver.ID][topupdtest.PIDWW]["price"]; p != 0.54 {
			t.Errorf("silver's price of %s after its cost was set: %v, want 0.54 (0.50 + 7%%, rounded up to the cent)", topupdtest.PIDWW, p)
		}

		// Stock: a sale that leaves some changes the quantity (the tag), not
		// inStock (the list); selling the rest and a new batch change both.
		key := []string{topupdtest.PIDKey}
		h.Place(gold, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1})
		expect("a sale", nil, all(true))
		h.Place(gold, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 9})
		got = expect("sold out", map[string][]string{gold.ID: key, silver.ID: key, none.ID: key}, all(true))
		if r := got[none.ID][topupdtest.PIDKey]; r["inStock"] != false || r["quantity"] != 0.0 {
			t.Errorf("sold out: %v", r)
		}
		h.AddStock(topupdtest.PIDKey, 2)
		got = expect("back in stock", map[string][]string{gold.ID: key, silver.ID: key, none.ID: key}, all(true))
		if r := got[silver.ID][topupdtest.PIDKey]; r["inStock"] != true || r["quantity"] != 2.0 {
			t.Errorf("back in stock: %v", r)
		}

		// A pack taken off sale: a disabled row, and nothing else of it.
		h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDWW, map[string]any{"status": "disabled"})
		got = expect("a pack disabled", map[string][]string{gold.ID: {topupdtest.PIDWW}, silver.ID: {topupdtest.PIDWW}, none.ID: {topupdtest.PIDWW}}, all(true))
		if diff := cmp.Diff(disabledRow(topupdtest.PIDWW), got[gold.ID][topupdtest.PIDWW]); diff != "" {
			t.Errorf("a disabled pack's row (-want +got):\n%s", diff)
		}
		// A line taken off sale: each of its packs.
		var pubg []string
		for _, p := range packs {
			if p["slug"] == "pubg" {
				pubg = append(pubg, p["pid"].(string))
			}
		}
		if !slices.Contains(pubg, topupdtest.PIDPubg) {
			t.Fatalf("the pubg line's packs: %v", pubg)
		}
		h.AdminOK(http.StatusOK, "PATCH", "/admin/services/pubg", map[string]any{"status": "disabled"})
		got = expect("a line disabled", map[string][]string{gold.ID: pubg, silver.ID: pubg, none.ID: pubg}, all(true))
		for _, pid := range pubg {
			if diff := cmp.Diff(disabledRow(pid), got[silver.ID][pid]); diff != "" {
				t.Errorf("a pack of a disabled line (-want +got):\n%s", diff)
			}
		}
		expect("no change at the end", nil, all(false))
	})
}

// TestCatalogSyncEdges: a bad updatedSince is 400 INVALID_REQUEST; a time
// in the future lists nothing; GET /services has an ETag that a line's
// change changes; If-None-Match takes lists, weak tags and *.
func TestCatalogSyncEdges(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("10", nil)
	for _, bad := range []string{"", "yesterday", "2025-01-31", "2025-01-31T12:00:00", "1738324800"} {
		for _, path := range []string{"/products", "/catalog"} {
			wantCode(t, h.Do("GET", path+"?updatedSince="+url.QueryEscape(bad), a.Key, nil), 400, "INVALID_REQUEST", "updatedSince="+bad)
		}
	}
	s := &syncer{t: t, h: h, a: a}
	if _, ans := s.get("/products", "2999-01-01T00:00:00+02:00", ""); len(ans.rows) != 0 {
		t.Errorf("a sync from the future lists %v", ids(ans.rows))
	}
	_, full := s.get("/products", "", "")
	_, old := s.get("/products", "2000-01-01T00:00:00.5Z", "")
	for id, row := range old.rows {
		if onSale, ok := full.rows[id]; ok {
			if diff := cmp.Diff(onSale, row); diff != "" {
				t.Errorf("a sync from 2000: row %s (-full +sync):\n%s", id, diff)
			}
		} else if diff := cmp.Diff(disabledRow(id), row); diff != "" {
			t.Errorf("a sync from 2000: a pack off sale (-want +got):\n%s", diff)
		}
	}
	if len(full.rows) != topupdtest.ActivePacks || len(old.rows) <= len(full.rows) {
		t.Errorf("a sync from 2000 lists %d rows, the catalog %d: want every pack, those off sale too", len(old.rows), len(full.rows))
	}

	services := func(hdr topupdtest.Headers) (int, string) {
		t.Helper()
		hdr["X-API-Key"] = a.Key
		r, err := h.Call(h.API.URL, "GET", "/services", hdr, nil)
		if err != nil && r.Status != http.StatusNotModified {
			t.Fatal(err)
		}
		return r.Status, r.Header.Get("ETag")
	}
	status, tag := services(topupdtest.Headers{})
	if status != http.StatusOK || tag == "" {
		t.Fatalf("GET /services: %d, ETag %q", status, tag)
	}
	for _, inm := range []string{tag, "W/" + tag, `"other", ` + tag, "*"} {
		if status, _ := services(topupdtest.Headers{"If-None-Match": inm}); status != http.StatusNotModified {
			t.Errorf("GET /services with If-None-Match %s: %d, want 304", inm, status)
		}
	}
	if status, _ := services(topupdtest.Headers{"If-None-Match": `"other"`}); status != http.StatusOK {
		t.Errorf("GET /services with another tag: %d, want 200", status)
	}
	h.AdminOK(http.StatusOK, "PATCH", "/admin/services/pubg", map[string]any{"productName": "PUBG Mobile UC (new)"})
	if status, newTag := services(topupdtest.Headers{"If-None-Match": tag}); status != http.StatusOK || newTag == tag {
		t.Errorf("GET /services after a line changed: %d, ETag %q (was %q)", status, newTag, tag)
	}
}
