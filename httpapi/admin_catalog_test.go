package httpapi_test

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestPatchPack: PATCH changes only the fields it sends: a price edit keeps
// the pack's supplier; a PUT replaces the whole pack.
func TestPatchPack(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	manual := func() map[string]any {
		for _, p := range h.AdminOK(http.StatusOK, "GET", "/admin/products", nil).Body["products"].([]any) {
			if p := p.(map[string]any); p["pid"] == topupdtest.PIDPubgManual {
				return p
			}
		}
		t.Fatal("no manual pack")
		return nil
	}
	want := manual()
	r := h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDPubgManual, map[string]any{"priceUsd": topupdtest.USD("2.5")})
	if r.Str("provider") != "manual" || r.Num("priceUsd") != "2.5" {
		t.Errorf("PATCH of the price: %v", r)
	}
	want["priceUsd"] = topupdtest.USD("2.5")
	if diff := cmp.Diff(want, manual()); diff != "" {
		t.Errorf("pack after a price PATCH (-want +got):\n%s", diff)
	}
	h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDPubgManual, map[string]any{"status": "disabled", "name": "Manual UC (paused)"})
	want["status"], want["name"] = "disabled", "Manual UC (paused)"
	if diff := cmp.Diff(want, manual()); diff != "" {
		t.Errorf("pack after a status and name PATCH (-want +got):\n%s", diff)
	}
	for _, bad := range []struct {
		body map[string]any
		code string
	}{
		{map[string]any{"priceUsd": topupdtest.USD("0")}, "INVALID_BODY"},
		{map[string]any{"provider": "nobody"}, "INVALID_BODY"},
		{map[string]any{"slug": "nosuchline"}, "INVALID_BODY"},
		{map[string]any{"provider": "upstream", "upstream": "nowhere", "upstreamPid": "x"}, "INVALID_BODY"},
		{map[string]any{"pid": "another"}, "INVALID_BODY"},
		{map[string]any{"colour": "red"}, "INVALID_BODY"},
	} {
		r := h.AdminDo("PATCH", "/admin/products/"+topupdtest.PIDPubgManual, bad.body)
		if r.Status != http.StatusBadRequest || r.Str("code") != bad.code {
			t.Errorf("PATCH %v: %v, want 400 %s", bad.body, r, bad.code)
		}
	}
	if diff := cmp.Diff(want, manual()); diff != "" {
		t.Errorf("refused PATCHes changed the pack (-want +got):\n%s", diff)
	}
	if r := h.AdminDo("PATCH", "/admin/products/nosuchpack", map[string]any{"priceUsd": topupdtest.USD("1")}); r.Status != http.StatusNotFound {
		t.Errorf("PATCH of an unknown pack: %v", r)
	}

	// Price edits racing a provider edit: neither undoes the other.
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			if i == 5 {
				h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDPubgManual, map[string]any{"provider": "sim"})
				return
			}
			h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDPubgManual, map[string]any{"priceUsd": topupdtest.USD("3")})
		})
	}
	wg.Wait()
	if got := manual(); got["provider"] != "sim" || got["priceUsd"] != topupdtest.USD("3") {
		t.Errorf("after racing PATCHes: %v", got)
	}
}

// TestPatchLine: PATCH of a line changes only what it sends.
func TestPatchLine(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	line := func() map[string]any {
		for _, l := range h.AdminOK(http.StatusOK, "GET", "/admin/services", nil).Body["services"].([]any) {
			if l := l.(map[string]any); l["slug"] == "wutheringwaves" {
				return l
			}
		}
		t.Fatal("no wutheringwaves line")
		return nil
	}
	want := line()
	h.AdminOK(http.StatusOK, "PATCH", "/admin/services/wutheringwaves", map[string]any{"status": "disabled"})
	want["status"] = "disabled"
	if diff := cmp.Diff(want, line()); diff != "" {
		t.Errorf("line after a status PATCH (-want +got):\n%s", diff)
	}
	if r := h.AdminDo("PATCH", "/admin/services/wutheringwaves", map[string]any{"kind": "nonsense"}); r.Status != http.StatusBadRequest {
		t.Errorf("PATCH with a bad kind: %v", r)
	}
	if r := h.AdminDo("PATCH", "/admin/services/nosuchline", map[string]any{"status": "active"}); r.Status != http.StatusNotFound {
		t.Errorf("PATCH of an unknown line: %v", r)
	}
	if diff := cmp.Diff(want, line()); diff != "" {
		t.Errorf("refused PATCHes changed the line (-want +got):\n%s", diff)
	}
}

// TestSimOff: with --sim off no order is fulfilled by sim: a pack that
// names sim is SIM_DISABLED, a top-up pack that names no provider is
// PROVIDER_REQUIRED, and a sim pack stored earlier is PRODUCT_DISABLED to
// order and absent from the catalog. Packs that draw from stock are stock,
// sim or no sim: they are sold from their codes.
func TestSimOff(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.PutLine("pubg", map[string]any{"productName": "PUBG UC", "gameName": "PUBG Mobile", "game": "pubg", "kind": "topup",
			"status": "active", "required": []map[string]any{{"field": "userId", "label": "Player ID"}}})
		h.PutLine("keys", map[string]any{"productName": "Keys", "gameName": "Keys", "game": "gamekey", "kind": "gamekey", "status": "active",
			"required": []map[string]any{}})
		uc := func(extra map[string]any) map[string]any {
			m := map[string]any{"slug": "pubg", "name": "60 UC", "priceUsd": topupdtest.USD("1"), "status": "active"}
			maps.Copy(m, extra)
			return m
		}
		r := h.AdminDo("PUT", "/admin/products/uc60", uc(nil))
		wantFailure(t, r, http.StatusBadRequest, "PROVIDER_REQUIRED", "PROVIDER_REQUIRED")
		r = h.AdminDo("PUT", "/admin/products/uc60", uc(map[string]any{"provider": "sim"}))
		wantFailure(t, r, http.StatusBadRequest, "SIM_DISABLED", "SIM_DISABLED")
		r = h.AdminDo("PUT", "/admin/products/uc60", uc(map[string]any{"suppliers": []map[string]any{{"provider": "manual"}, {"provider": "sim"}}}))
		wantFailure(t, r, http.StatusBadRequest, "SIM_DISABLED", "SIM_DISABLED")
		r = h.AdminDo("PUT", "/admin/products/uc60", uc(map[string]any{"provider": "stock"}))
		wantFailure(t, r, http.StatusBadRequest, "INVALID_BODY", "INVALID BODY")
		if r := h.AdminOK(http.StatusOK, "PUT", "/admin/products/uc60", uc(map[string]any{"provider": "manual"})); r.Str("provider") != "manual" {
			t.Errorf("a manual pack: %v", r)
		}
		r = h.AdminDo("PATCH", "/admin/products/uc60", map[string]any{"provider": "sim"})
		wantFailure(t, r, http.StatusBadRequest, "SIM_DISABLED", "SIM_DISABLED")

		// Packs that draw from stock are stock, named or not.
		if r := h.AdminOK(http.StatusOK, "PUT", "/admin/products/uc-code", uc(map[string]any{"stockBased": true})); r.Str("provider") != "stock" {
			t.Errorf("a stock-based top-up pack without a provider: %v", r)
		}
		if r := h.AdminOK(http.StatusOK, "PUT", "/admin/products/key1", map[string]any{"slug": "keys", "name": "Key", "priceUsd": topupdtest.USD("2"),
			"status": "active"}); r.Str("provider") != "stock" {
			t.Errorf("a key pack without a provider: %v", r)
		}
		h.AdminOK(http.StatusOK, "PUT", "/admin/products/key2", map[string]any{"slug": "keys", "name": "Key", "priceUsd": topupdtest.USD("2"),
			"status": "active", "provider": "stock"})
		r = h.AdminDo("PUT", "/admin/products/key3", map[string]any{"slug": "keys", "name": "Key", "priceUsd": topupdtest.USD("2"), "status": "active",
			"provider": "sim"})
		wantFailure(t, r, http.StatusBadRequest, "SIM_DISABLED", "SIM_DISABLED")
		r = h.AdminDo("PUT", "/admin/products/key3", map[string]any{"slug": "keys", "name": "Key", "priceUsd": topupdtest.USD("2"), "status": "active",
			"provider": "manual"})
		wantFailure(t, r, http.StatusBadRequest, "INVALID_BODY", "INVALID BODY")
		r = h.AdminDo("PATCH", "/admin/products/uc-code", map[string]any{"stockBased": false})
		wantFailure(t, r, http.StatusBadRequest, "INVALID_BODY", "INVALID BODY")
		codes := h.AddStock("key1", 2)
		a := h.NewAccount("10", nil)
		r = h.Do("POST", "/orders", a.Key, order{"pid": "key1", "trxid": h.Trx(), "quantity": 2})
		if r.Status != http.StatusOK || r.Str("status") != "completed" || !slices.Equal(stringsOf(r.Body["codes"]), codes) {
			t.Errorf("a stock order with sim off: %v, want completed with %v", r, codes)
		}

		// A sim pack stored before sim was turned off.
		if err := h.Store.PutPack(t.Context(), nil, simPack("uc325")); err != nil {
			t.Fatal(err)
		}
		before := h.Snapshot(a)
		r = h.Do("POST", "/orders", a.Key, order{"pid": "uc325", "trxid": h.Trx(), "userId": "5123"})
		wantFailure(t, r, http.StatusBadRequest, "PRODUCT_DISABLED", "PRODUCT DISABLED")
		if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
			t.Errorf("a refused sim order moved something (-before +after):\n%s", diff)
		}
		if p := h.Products(a); p["uc325"] != nil || p["uc60"] == nil || p["key1"] == nil {
			t.Errorf("catalog with sim off: %v", p)
		}
	}, topupdtest.WithSimOff())
}

// TestSimOnStockPacks: with sim on, a pack that draws from stock is still
// stock, even when the operator names sim for it (as the README once did),
// and a top-up pack that names no provider is sim.
func TestSimOnStockPacks(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.PutLine("keys", map[string]any{"productName": "Keys", "gameName": "Keys", "game": "gamekey", "kind": "gamekey", "status": "active",
		"required": []map[string]any{}})
	for _, provider := range []any{nil, "sim", "stock"} {
		body := map[string]any{"slug": "keys", "name": "Key", "priceUsd": topupdtest.USD("2"), "status": "active"}
		if provider != nil {
			body["provider"] = provider
		}
		if r := h.AdminOK(http.StatusOK, "PUT", "/admin/products/key", body); r.Str("provider") != "stock" {
			t.Errorf("a key pack with provider %v: %v, want stock", provider, r)
		}
	}
	h.PutLine("pubg", map[string]any{"productName": "PUBG UC", "gameName": "PUBG Mobile", "game": "pubg", "kind": "topup",
		"status": "active", "required": []map[string]any{{"field": "userId", "label": "Player ID"}}})
	if r := h.AdminOK(http.StatusOK, "PUT", "/admin/products/uc", map[string]any{"slug": "pubg", "name": "UC", "priceUsd": topupdtest.USD("1"),
		"status": "active"}); r.Str("provider") != "sim" {
		t.Errorf("a top-up pack without a provider, sim on: %v", r)
	}
}

// simPack is an active pubg pack fulfilled by sim, as stored before --sim off.
func simPack(pid string) topupd.Pack {
	return topupd.Pack{PID: pid, Slug: "pubg", Name: "325 UC", Price: 40_000, Status: topupd.StatusActive, Provider: topupd.ProviderSim}
}

// TestLineRequiresQuantity: a key line may declare quantity required, as an
// independent client declares key and gift-card lines; an order of it then
// needs quantity, matched against the line's pattern.
func TestLineRequiresQuantity(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	h.PutLine("gamekey", map[string]any{"productName": "Game keys", "gameName": "Game keys", "game": "gamekey", "kind": "gamekey",
		"status": "active", "required": []map[string]any{{"field": "quantity", "label": "Quantity", "pattern": "^[1-9][0-9]{0,2}$"}}})
	services := h.Do("GET", "/services", h.NewAccount("1", nil).Key, nil)
	if !strings.Contains(string(services.Raw), `{"field":"quantity","label":"Quantity"`) {
		t.Errorf("GET /services does not show the required quantity: %s", services.Raw)
	}
	a := h.NewAccount("10", nil)
	before := h.Snapshot(a)
	r := h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDKey, "trxid": h.Trx()})
	if r.Status != http.StatusBadRequest || r.Str("error") != "INVALID REQUEST" {
		t.Errorf("an order without the required quantity: %v, want 400 INVALID REQUEST", r)
	}
	if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
		t.Errorf("the refused order moved something (-want +got):\n%s", diff)
	}
	if r := h.Place(a, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 2}); r.Str("status") != "completed" || len(stringsOf(r.Body["codes"])) != 2 {
		t.Errorf("an order with the required quantity: %v", r)
	}
}
