package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/racer"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// batchPack is the stock pack the batch tests use: a key pack priced 1.2
// that costs 0.8 a unit.
const batchPack = "gamekey-batches"

// batchCodes makes n codes for a batch, registered as secrets of the log.
func batchCodes(h *topupdtest.T, prefix string, n int) []string {
	codes := make([]string, n)
	for i := range codes {
		codes[i] = fmt.Sprintf("%s-%04d-%s", prefix, i, topupd.NewID(""))
		h.Logs.Secret(codes[i], "a code of batch "+prefix)
	}
	return codes
}

// batchList reads batchPack's batches, newest first.
func batchList(t *testing.T, h *topupdtest.T) []map[string]any {
	t.Helper()
	r := h.AdminOK(200, "GET", "/admin/products/"+batchPack+"/batches", nil)
	var out []map[string]any
	list, _ := r.Body["batches"].([]any)
	for _, b := range list {
		out = append(out, b.(map[string]any))
	}
	return out
}

// TestStockBatches: each upload is a batch with its cost and note, listed
// with its counts; an upload may add to a batch it names; a stock order
// costs its codes' batch cost; a void (owner only) withdraws the unsold
// codes from the catalog and from every order; an export (owner only)
// holds them and is in the action log without them; the audit holds.
func TestStockBatches(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		h := topupdtest.New(t, db...)
		h.LoadCatalog()
		h.PutPack(batchPack, map[string]any{"slug": "gamekey", "name": "Batch key", "priceUsd": topupdtest.USD("1.2"),
			"costUsd": topupdtest.USD("0.8"), "status": "active"})
		codes := batchCodes(h, "FIRST", 4)
		up := h.AdminOK(200, "POST", "/admin/products/"+batchPack+"/stock",
			map[string]any{"codes": codes[:3], "costUsd": topupdtest.USD("0.5"), "note": "supplier A, invoice 7"})
		id := up.Num("batchId")
		if id == "" || up.Num("added") != "3" || up.Num("available") != "3" {
			t.Fatalf("the first upload: %s", up.Raw)
		}
		more := h.AdminOK(200, "POST", "/admin/products/"+batchPack+"/stock", map[string]any{"codes": codes[3:], "batchId": json.Number(id)})
		if more.Num("batchId") != id || more.Num("added") != "1" {
			t.Errorf("adding to the batch: %s", more.Raw)
		}
		for what, body := range map[string]map[string]any{
			"a cost with batchId": {"codes": []string{"X-1"}, "batchId": json.Number(id), "costUsd": 1},
			"a negative cost":     {"codes": []string{"X-2"}, "costUsd": -1},
			"a note too long":     {"codes": []string{"X-3"}, "note": strings.Repeat("n", 501)},
		} {
			if r := h.AdminDo("POST", "/admin/products/"+batchPack+"/stock", body); r.Status != 400 || r.Str("code") != "INVALID_BODY" {
				t.Errorf("%s: %s", what, r)
			}
		}
		if r := h.AdminDo("POST", "/admin/products/"+batchPack+"/stock", map[string]any{"codes": []string{"X-4"}, "batchId": 999999}); r.Status != 404 {
			t.Errorf("an unknown batch: %s", r)
		}
		h.AddStock(batchPack, 2) // a batch without a cost: the pack's cost

		a := h.NewAccount("100", nil)
		o := h.Place(a, map[string]any{"pid": batchPack, "trxid": h.Trx(), "quantity": 5})
		if o.Status != 200 || o.Str("status") != "completed" {
			t.Fatalf("an order of 5: %s", o)
		}
		if diff := cmp.Diff(codes, stringsOf(o.Body["codes"])[:4]); diff != "" {
			t.Errorf("the order's first codes, the batch's (-want +got):\n%s", diff)
		}
		stored, err := h.Store.Order(t.Context(), "", o.Str("orderId"))
		if want := topupd.Money(4*5_000 + 8_000); err != nil || stored.Cost == nil || *stored.Cost != want {
			t.Errorf("the order's cost: %v, %v; want %v (4 codes at 0.5, 1 at the pack's 0.8)", stored.Cost, err, want)
		}
		list := batchList(t, h) // newest first: the plain upload, then the first
		if len(list) != 2 {
			t.Fatalf("%d batches listed, want 2", len(list))
		}
		b := list[1]
		want := map[string]any{"id": json.Number(id), "pid": batchPack, "createdAt": b["createdAt"], "costUsd": json.Number("0.5"),
			"note": "supplier A, invoice 7", "operator": "root", "added": json.Number("4"), "sold": json.Number("4"),
			"unsold": json.Number("0"), "withdrawn": json.Number("0"), "voided": false}
		if diff := cmp.Diff(want, b); diff != "" {
			t.Errorf("the first batch as listed (-want +got):\n%s", diff)
		}

		// Roles: reading is anyone's; voiding is the owner's, as stock is;
		// exporting codes is the owner's alone.
		last := list[0]["id"].(json.Number).String()
		support, viewer, owner := h.NewOperator("sup", "support"), h.NewOperator("vic", "viewer"), h.NewOperator("own", "owner")
		if r := h.AdminAs(viewer, "GET", "/admin/products/"+batchPack+"/batches", nil); r.Status != 200 {
			t.Errorf("a viewer listing batches: %s", r)
		}
		for _, tok := range []string{support, viewer} {
			for _, call := range [][2]string{{"POST", "/admin/batches/" + last + "/void"}, {"GET", "/admin/batches/" + last + "/codes"}} {
				if r := h.AdminAs(tok, call[0], call[1], nil); r.Status != 403 || r.Str("code") != "ROLE_FORBIDDEN" {
					t.Errorf("%s %s by a non-owner: %s", call[0], call[1], r)
				}
			}
		}
		ex := h.AdminAs(owner, "GET", "/admin/batches/"+last+"/codes", nil)
		if got := stringsOf(ex.Body["codes"]); ex.Status != 200 || len(got) != 1 || got[0] != h.Codes[batchPack][1] {
			t.Errorf("the owner's export: %s; want the one unsold code %s", ex, h.Codes[batchPack][1])
		}
		acts := h.AdminOK(200, "GET", "/admin/actions?action=batch.export", nil)
		if list, _ := acts.Body["actions"].([]any); len(list) != 1 || !strings.Contains(string(acts.Raw), `"operator":"own"`) ||
			strings.Contains(string(acts.Raw), h.Codes[batchPack][1]) {
			t.Errorf("the export in the action log, once, by own, without its codes: %s", acts.Raw)
		}

		void := h.AdminAs(owner, "POST", "/admin/batches/"+last+"/void", nil)
		vb, _ := void.Body["batch"].(map[string]any)
		if void.Status != 200 || vb["voided"] != true || vb["withdrawn"] != json.Number("1") || vb["sold"] != json.Number("1") || vb["voidedAt"] == nil {
			t.Fatalf("the void: %s", void)
		}
		if got := h.Stock(a)[batchPack]; got != "0" {
			t.Errorf("the catalog's stock after the void: %s, want 0", got)
		}
		if r := h.Do("POST", "/orders", a.Key, map[string]any{"pid": batchPack, "trxid": h.Trx(), "quantity": 1}); r.Status != 400 || r.Str("error") != "INSUFFICIENT STOCK" {
			t.Errorf("an order after the void: %s", r)
		}
		if r := h.AdminDo("POST", "/admin/batches/"+last+"/void", nil); r.Status != 409 || r.Str("code") != "CONFLICT" {
			t.Errorf("a second void: %s", r)
		}
		if r := h.AdminDo("POST", "/admin/products/"+batchPack+"/stock", map[string]any{"codes": []string{"X-5"}, "batchId": json.Number(last)}); r.Status != 409 {
			t.Errorf("adding to a voided batch: %s", r)
		}
		for _, path := range []string{"/admin/batches/999999/void", "/admin/batches/x/void"} {
			if r := h.AdminDo("POST", path, nil); r.Status != 404 {
				t.Errorf("POST %s: %s", path, r)
			}
		}
		if r := h.AdminDo("GET", "/admin/products/no-such-pack/batches", nil); r.Status != 404 {
			t.Errorf("the batches of an unknown pack: %s", r)
		}
		if got := h.AdminOK(200, "GET", "/admin/actions?action=batch.void", nil); !strings.Contains(string(got.Raw), `"target":"`+last+`"`) {
			t.Errorf("the void in the action log: %s", got.Raw)
		}
		if au := h.AdminOK(200, "GET", "/admin/audit", nil); au.Body["success"] != true {
			t.Errorf("the audit: %s", au.Raw)
		}
	})
}

// TestVoidRacingOrders: 150 orders of one code race the void of the batch
// they draw from first, sent once 20 of them are answered. No order is given a code of the batch once the
// void committed: the batch's sold count is the one its void answered,
// exactly its codes among those delivered; every code is delivered once;
// the stock level is what is left; the audit holds.
func TestVoidRacingOrders(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		h := topupdtest.New(t, db...)
		h.LoadCatalog()
		h.PutPack(batchPack, map[string]any{"slug": "gamekey", "name": "Batch key", "priceUsd": topupdtest.USD("1.2"), "status": "active"})
		victim, other := batchCodes(h, "VICTIM", 100), batchCodes(h, "OTHER", 100)
		vid := h.AdminOK(200, "POST", "/admin/products/"+batchPack+"/stock", map[string]any{"codes": victim}).Num("batchId")
		h.AdminOK(200, "POST", "/admin/products/"+batchPack+"/stock", map[string]any{"codes": other})
		inVictim := map[string]bool{}
		for _, c := range victim {
			inVictim[c] = true
		}
		a := h.NewAccount("1000", nil)
		const orders = 150
		// The void goes once 20 orders are answered, while the rest are
		// on their way: it races them, not the first ones.
		var answered atomic.Int32
		twenty := make(chan struct{})
		replies, errs := racer.Run2(orders+1, func(i int) (topupdtest.Reply, error) {
			if i == orders/3 {
				<-twenty
				return h.Call(h.Admin.URL, "POST", "/admin/batches/"+vid+"/void", topupdtest.Headers{"Authorization": "Bearer " + h.Token}, nil)
			}
			defer func() {
				if answered.Add(1) == 20 {
					close(twenty)
				}
			}()
			return post(h, a, order{"pid": batchPack, "trxid": fmt.Sprintf("void-race-%03d", i), "quantity": 1})
		})
		failOnErrors(t, errs)
		void := replies[orders/3]
		vb, _ := void.Body["batch"].(map[string]any)
		if void.Status != 200 || vb == nil {
			t.Fatalf("the void: %s", void)
		}
		soldAtVoid, _ := vb["sold"].(json.Number).Int64()
		withdrawn, _ := vb["withdrawn"].(json.Number).Int64()
		served, refused := 0, 0
		delivered := map[string]bool{}
		fromVictim := 0
		for i, r := range replies {
			switch {
			case i == orders/3:
			case r.Status == 200 && r.Str("status") == "completed":
				served++
				for _, c := range stringsOf(r.Body["codes"]) {
					if delivered[c] {
						t.Errorf("code %s delivered twice", c)
					}
					delivered[c] = true
					if inVictim[c] {
						fromVictim++
					}
				}
			case r.Status == 400 && r.Str("error") == "INSUFFICIENT STOCK":
				refused++
			default:
				t.Errorf("an order: %s", r)
			}
		}
		if soldAtVoid+withdrawn != 100 || int64(fromVictim) != soldAtVoid {
			t.Errorf("the void answered %d sold and %d withdrawn; %d of its codes were delivered", soldAtVoid, withdrawn, fromVictim)
		}
		after := batchList(t, h)[1] // newest first: the victim is the second
		if after["id"] != json.Number(vid) || after["sold"] != json.Number(fmt.Sprint(soldAtVoid)) || after["unsold"] != json.Number(fmt.Sprint(withdrawn)) {
			t.Errorf("the voided batch after every order: %v; sold %d at its void", after, soldAtVoid)
		}
		left := 200 - served - int(withdrawn)
		t.Logf("the void found %d codes sold; %d orders served, %d refused, %d codes left", soldAtVoid, served, refused, left)
		if served+refused != orders || (left > 0 && refused > 0) {
			t.Errorf("%d served, %d refused, %d left in stock", served, refused, left)
		}
		if got := h.Stock(a)[batchPack]; got != fmt.Sprint(left) {
			t.Errorf("the catalog's stock: %s, want %d", got, left)
		}
		if au := h.AdminOK(200, "GET", "/admin/audit", nil); au.Body["success"] != true {
			t.Errorf("the audit: %s", au.Raw)
		}
	})
}

// TestLowStockAlert: a pack's lowStockAt raises one alert when parallel
// orders bring its stock to it, however many orders follow, and clears
// it once when stock is added above it: one log line each, the metrics'
// gauge and counter, and the audit agreeing.
func TestLowStockAlert(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		h := topupdtest.New(t, db...)
		h.LoadCatalog()
		h.PutPack(batchPack, map[string]any{"slug": "gamekey", "name": "Batch key", "priceUsd": topupdtest.USD("1.2"), "status": "active"})
		h.AddStock(batchPack, 30)
		h.AdminOK(200, "PATCH", "/admin/products/"+batchPack, map[string]any{"lowStockAt": 10})
		a := h.NewAccount("1000", nil)
		replies, errs := racer.Run2(25, func(i int) (topupdtest.Reply, error) {
			return post(h, a, order{"pid": batchPack, "trxid": fmt.Sprintf("low-%02d", i), "quantity": 1})
		})
		failOnErrors(t, errs)
		for _, r := range replies {
			if r.Status != 200 {
				t.Fatalf("an order: %s", r)
			}
		}
		pid := `"pid":"` + batchPack + `"`
		if lines := h.Logs.Lines("low stock alert raised", pid); len(lines) != 1 || !strings.Contains(lines[0], `"available":10`) ||
			!strings.Contains(lines[0], `"lowStockAt":10`) {
			t.Errorf("the raised alert's log lines, want one at 10 codes:\n%s", strings.Join(lines, "\n"))
		}
		scrape := func() string {
			status, text := h.AdminText("/metrics", h.MetricsToken)
			if status != 200 {
				t.Fatalf("GET /metrics: %d", status)
			}
			return text
		}
		for _, want := range []string{`topupd_stock_low{pid="` + batchPack + `"} 1`, `topupd_low_stock_alerts_total{event="raised",pid="` + batchPack + `"} 1`} {
			if text := scrape(); !strings.Contains(text, want) {
				t.Errorf("GET /metrics lacks %s", want)
			}
		}
		h.AddStock(batchPack, 5) // 10: not above it
		if n := len(h.Logs.Lines("low stock alert cleared", pid)); n != 0 {
			t.Errorf("cleared with stock back at the level: %d lines", n)
		}
		h.AddStock(batchPack, 1)
		h.AddStock(batchPack, 1)
		if lines := h.Logs.Lines("low stock alert cleared", pid); len(lines) != 1 || !strings.Contains(lines[0], `"available":11`) {
			t.Errorf("the cleared alert's log lines, want one at 11 codes:\n%s", strings.Join(lines, "\n"))
		}
		if n := len(h.Logs.Lines("low stock alert raised", pid)); n != 1 {
			t.Errorf("%d raised lines after the restock, want still 1", n)
		}
		if text := scrape(); !strings.Contains(text, `topupd_stock_low{pid="`+batchPack+`"} 0`) {
			t.Errorf("GET /metrics lacks the cleared gauge")
		}
		// A level set above the stock raises the alert at once; taking the
		// level away clears it.
		h.AdminOK(200, "PATCH", "/admin/products/"+batchPack, map[string]any{"lowStockAt": 20})
		if lines := h.Logs.Lines("low stock alert raised", pid, `"lowStockAt":20`); len(lines) != 1 || !strings.Contains(lines[0], `"available":12`) {
			t.Errorf("raised by a level above the stock:\n%s", strings.Join(lines, "\n"))
		}
		h.AdminOK(200, "PATCH", "/admin/products/"+batchPack, map[string]any{"lowStockAt": nil})
		if n := len(h.Logs.Lines("low stock alert cleared", pid)); n != 2 {
			t.Errorf("%d cleared lines once the level is gone, want 2", n)
		}
		if au := h.AdminOK(200, "GET", "/admin/audit", nil); au.Body["success"] != true {
			t.Errorf("the audit: %s", au.Raw)
		}
	})
}
