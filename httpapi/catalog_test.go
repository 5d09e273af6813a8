package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestCatalog: /products and /catalog are one payload; disabled lines and
// packs are hidden; the stock fields are on stock-drawing rows only, live,
// and quantityMax is min(stock, 500).
func TestCatalog(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("100", nil)

	products := h.Do("GET", "/products", a.Key, nil)
	catalog := h.Do("GET", "/catalog", a.Key, nil)
	if products.Status != 200 || catalog.Status != 200 {
		t.Fatalf("GET /products: %v; GET /catalog: %v", products, catalog)
	}
	for _, b := range []map[string]any{products.Body, catalog.Body} {
		if _, err := time.Parse(time.RFC3339, fmt.Sprint(b["serverTime"])); err != nil {
			t.Errorf("serverTime: %v", err)
		}
		delete(b, "serverTime") // the time of each answer
	}
	if diff := cmp.Diff(products.Body, catalog.Body); diff != "" {
		t.Errorf("/products and /catalog differ (-products +catalog):\n%s", diff)
	}
	if products.Body["success"] != true {
		t.Errorf("success = %v", products.Body["success"])
	}

	rows := h.Products(a)
	var ids []string
	for id := range rows {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	wantIDs := sorted([]string{topupdtest.PIDPubg, topupdtest.PIDPubgBig, topupdtest.PIDPubgManual, topupdtest.PIDPubgCodes, topupdtest.PIDFF, topupdtest.PIDMLBB, topupdtest.PIDWW, topupdtest.PIDOH, topupdtest.PIDValorant, topupdtest.PIDKey, topupdtest.PIDGift, topupdtest.PIDHuge})
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Errorf("catalog ids (-want +got):\n%s", diff)
	}

	// The spec's fields of a row, exactly.
	type row = catalogRow
	view := viewRow
	wantRows := map[string]row{
		topupdtest.PIDPubg:       {topupdtest.PIDPubg, "pubg", "PUBG Mobile", "60 UC", "Cat pubg", "0.89", "active", "", "", "", nil},
		topupdtest.PIDPubgManual: {topupdtest.PIDPubgManual, "pubg", "PUBG Mobile", "Manual UC pack", "Cat pubg", "2", "active", "", "", "", nil},
		topupdtest.PIDPubgCodes:  {topupdtest.PIDPubgCodes, "pubg", "PUBG Mobile", "UC redeem code", "Cat pubg", "0.9", "active", "3", "1", "3", true},
		topupdtest.PIDMLBB:       {topupdtest.PIDMLBB, "mobilelegends", "Mobile Legends", "86 Diamonds", "Cat mobilelegends", "1.45", "active", "", "", "", nil},
		topupdtest.PIDKey:        {topupdtest.PIDKey, "gamekey", "Game keys", "Steam random key", "Cat gamekey", "1.2", "active", "10", "1", "10", true},
		topupdtest.PIDGift:       {topupdtest.PIDGift, "giftcard", "Gift cards", "Steam Wallet 10 USD", "Cat giftcard", "10.2", "active", "5", "1", "5", true},
		topupdtest.PIDHuge:       {topupdtest.PIDHuge, "gamekey", "Game keys", "Priceless key", "Cat gamekey", "100000000000", "active", "0", "1", "0", false},
	}
	for id, want := range wantRows {
		if diff := cmp.Diff(want, view(rows[id])); diff != "" {
			t.Errorf("row %s (-want +got):\n%s", id, diff)
		}
	}
	// Rows without stock carry none of the stock fields at all.
	for _, id := range []string{topupdtest.PIDPubg, topupdtest.PIDPubgBig, topupdtest.PIDPubgManual, topupdtest.PIDFF, topupdtest.PIDMLBB, topupdtest.PIDWW, topupdtest.PIDOH, topupdtest.PIDValorant} {
		for _, f := range []string{"quantity", "inStock", "quantityMin", "quantityMax"} {
			if _, ok := rows[id][f]; ok {
				t.Errorf("row %s carries %s: %v", id, f, rows[id])
			}
		}
	}

	// Live: an order of 3 keys and 1 stock-based top-up lower the numbers.
	h.Place(a, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 3})
	h.Place(a, order{"pid": topupdtest.PIDPubgCodes, "trxid": h.Trx(), "userId": "5123"})
	h.Place(a, order{"pid": topupdtest.PIDPubgCodes, "trxid": h.Trx(), "userId": "5123", "quantity": 2})
	rows = h.Products(a)
	if diff := cmp.Diff(row{topupdtest.PIDKey, "gamekey", "Game keys", "Steam random key", "Cat gamekey", "1.2", "active", "7", "1", "7", true}, view(rows[topupdtest.PIDKey])); diff != "" {
		t.Errorf("keys after an order of 3 (-want +got):\n%s", diff)
	}
	got := view(rows[topupdtest.PIDPubgCodes])
	if diff := cmp.Diff(row{topupdtest.PIDPubgCodes, "pubg", "PUBG Mobile", "UC redeem code", "Cat pubg", "0.9", "active", "0", "1", "0", false}, got); diff != "" {
		t.Errorf("stock-based top-up sold out (-want +got):\n%s", diff)
	}

	// quantityMax is capped at 500 per order.
	h.PutPack("gamekey-bulk", map[string]any{"slug": "gamekey", "name": "Bulk key", "priceUsd": topupdtest.USD("0.01"), "status": "active"})
	h.AddStock("gamekey-bulk", 600)
	bulk := view(h.Products(a)["gamekey-bulk"])
	if got := [3]string{bulk.Quantity, bulk.QuantityMin, bulk.QuantityMax}; got != [3]string{"600", "1", "500"} {
		t.Errorf("bulk quantity/min/max = %v, want [600 1 500]", got)
	}
	h.Place(a, order{"pid": "gamekey-bulk", "trxid": h.Trx(), "quantity": 500})
	bulk = view(h.Products(a)["gamekey-bulk"])
	if got := [3]string{bulk.Quantity, bulk.QuantityMin, bulk.QuantityMax}; got != [3]string{"100", "1", "100"} {
		t.Errorf("bulk after 500 = %v, want [100 1 100]", got)
	}

	// Disabling a pack or a line hides it at once; enabling shows it again.
	h.PutPack(topupdtest.PIDPubgBig, map[string]any{"slug": "pubg", "name": "325 UC", "priceUsd": topupdtest.USD("4.45"), "status": "disabled"})
	if _, ok := h.Products(a)[topupdtest.PIDPubgBig]; ok {
		t.Errorf("disabled pack %s still listed", topupdtest.PIDPubgBig)
	}
	h.PutLine("valorant", map[string]any{"productName": "Valorant Points", "gameName": "Valorant", "game": "valorant", "kind": "topup",
		"status": "disabled", "required": []map[string]any{{"field": "userId", "label": "Riot ID"}}})
	if _, ok := h.Products(a)[topupdtest.PIDValorant]; ok {
		t.Errorf("pack %s of a disabled line still listed", topupdtest.PIDValorant)
	}
	h.PutPack(topupdtest.PIDPubgBig, map[string]any{"slug": "pubg", "name": "325 UC", "priceUsd": topupdtest.USD("4.45"), "status": "active"})
	if _, ok := h.Products(a)[topupdtest.PIDPubgBig]; !ok {
		t.Errorf("re-enabled pack %s not listed", topupdtest.PIDPubgBig)
	}
}

// catalogRow is the spec's fields of a catalog row.
type catalogRow struct {
	ID, Slug, GameName, ServiceName, Category, Price, Status string
	Quantity, QuantityMin, QuantityMax                       string
	InStock                                                  any
}

func viewRow(m map[string]any) catalogRow {
	s := func(k string) string { v, _ := m[k].(string); return v }
	n := func(k string) string { v, _ := m[k].(json.Number); return string(v) }
	return catalogRow{s("id"), s("slug"), s("gameName"), s("serviceName"), s("category"), n("price"), s("status"),
		n("quantity"), n("quantityMin"), n("quantityMax"), m["inStock"]}
}

// TestServices: /services lists the active lines with the fields their
// orders require, and options only where a server or region is required.
func TestServices(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("", nil)
	r := h.Do("GET", "/services", a.Key, nil)
	if r.Status != http.StatusOK || r.Body["success"] != true {
		t.Fatalf("GET /services: %v", r)
	}
	type field struct{ Field, Label string }
	type line struct {
		ProductName, GameName, Status string
		Required                      []field
		ServerOptions, RegionOptions  []string
		HasServerOpts, HasRegionOpts  bool
	}
	got := map[string]line{}
	for _, s := range r.Body["services"].([]any) {
		m := s.(map[string]any)
		l := line{ProductName: m["productName"].(string), GameName: m["gameName"].(string), Status: m["status"].(string)}
		for _, f := range m["required"].([]any) {
			fm := f.(map[string]any)
			l.Required = append(l.Required, field{fm["field"].(string), fm["label"].(string)})
		}
		opts := func(k string) ([]string, bool) {
			v, ok := m[k]
			var out []string
			arr, _ := v.([]any)
			for _, o := range arr {
				out = append(out, fmt.Sprint(o.(map[string]any)["value"]))
			}
			return out, ok
		}
		l.ServerOptions, l.HasServerOpts = opts("serverIdOptions")
		l.RegionOptions, l.HasRegionOpts = opts("regionOptions")
		got[m["slug"].(string)] = l
	}
	uid := field{"userId", "Player ID"}
	want := map[string]line{
		"pubg":           {"PUBG Mobile UC", "PUBG Mobile", "active", []field{uid}, nil, nil, false, false},
		"ffmena":         {"Free Fire diamonds (MENA)", "Free Fire", "active", []field{uid}, nil, nil, false, false},
		"mobilelegends":  {"Mobile Legends diamonds", "Mobile Legends", "active", []field{{"userId", "User ID"}, {"zoneId", "Zone ID"}}, nil, nil, false, false},
		"wutheringwaves": {"Wuthering Waves Lunite", "Wuthering Waves", "active", []field{{"userId", "UID"}, {"serverId", "Server"}}, []string{"america", "europe"}, nil, true, false},
		"oncehuman":      {"Once Human Crystgin", "Once Human", "active", []field{{"userId", "UID"}, {"region", "Region"}, {"moreId", "Server ID"}}, nil, []string{"eu", "na"}, false, true},
		"valorant":       {"Valorant Points", "Valorant", "active", []field{{"userId", "Riot ID"}}, nil, nil, false, false},
		"gamekey":        {"Game keys", "Game keys", "active", nil, nil, nil, false, false},
		"giftcard":       {"Gift cards", "Gift cards", "active", nil, nil, nil, false, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("services (-want +got):\n%s", diff)
	}
	// The operator still sees the disabled line.
	all := h.AdminOK(200, "GET", "/admin/services", nil)
	if n := len(all.Body["services"].([]any)); n != len(want)+1 {
		t.Errorf("admin sees %d lines, want %d", n, len(want)+1)
	}
}
