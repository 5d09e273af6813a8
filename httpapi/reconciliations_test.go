package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestReconciliations, on SQLite and PostgreSQL, against a real topupd as
// the upstream: a pull matches our orders with its statement and history
// (a cost we recorded wrong, a charge we never ordered) and works the
// balance drift out from our deposits; a supplier's file finds what it
// says (a refund of an order we completed, an order it lacks); bad
// periods and files are refused and store nothing; every role reads.
func TestReconciliations(t *testing.T) {
	t.Parallel()
	b := topupdtest.New(t)
	b.LoadCatalog()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		ours := b.NewAccount("20", nil)
		h.Logs.Secret(ours.Key, "our key at B")
		h.AdminOK(http.StatusOK, "PUT", "/admin/upstreams/b", map[string]any{"baseUrl": b.API.URL, "apiKey": ours.Key})
		pack := func(cost string) {
			h.PutPack("b-pubg", map[string]any{"slug": "pubg", "name": "60 UC from B", "priceUsd": 1.5, "costUsd": json.Number(cost),
				"status": "active", "provider": "upstream", "upstream": "b", "upstreamPid": topupdtest.PIDPubg})
		}
		pack("0.89")
		shop := h.NewAccount("50", nil)
		var ids []string
		for i := range 3 {
			if i == 2 {
				pack("0.80") // recorded wrong: B charges 0.89
			}
			r := h.Place(shop, map[string]any{"pid": "b-pubg", "trxid": h.Trx(), "userId": "5123456"})
			if done := h.WaitOrder(shop, r.Str("orderId")); done.Str("status") != "completed" {
				t.Fatalf("order %d: %s", i, done)
			}
			ids = append(ids, r.Str("orderId"))
		}
		// A charge at B we never ordered.
		elsewhere := "ELSEWHERE-" + h.Trx()
		if r := b.Place(ours, map[string]any{"pid": topupdtest.PIDPubg, "trxid": elsewhere, "userId": "5123456"}); r.Status != 200 {
			t.Fatalf("an order at B behind our back: %s", r)
		}
		today := h.Now().UTC().Format(time.DateOnly)
		h.AdminOK(http.StatusCreated, "POST", "/admin/upstreams/b/deposits", map[string]any{"amountUsd": 20, "reference": "wire-1"})
		pulled := h.AdminOK(http.StatusCreated, "POST", "/admin/upstreams/b/reconciliations", map[string]any{"from": today, "to": today})
		wantKinds := map[string]string{"topupd-" + ids[2]: "cost_mismatch", elsewhere: "missing_here"}
		if got := mismatchKinds(pulled.Body); fmt.Sprint(got) != fmt.Sprint(wantKinds) {
			t.Errorf("pulled mismatches %v, want %v", got, wantKinds)
		}
		if pulled.Str("source") != "pull" || pulled.Str("state") != "open" || num(pulled.Body["matched"]) != "2" ||
			num(pulled.Body["balanceDriftUsd"]) != "-0.98" || !strings.HasPrefix(pulled.Str("id"), "rec_") {
			t.Errorf("the pull: %s", pulled)
		}
		totals := pulled.Body["totals"].(map[string]any)
		if num(totals["ourOrders"]) != "3" || num(totals["theirOrders"]) != "4" || num(totals["ourCostUsd"]) != "2.58" || num(totals["theirCostUsd"]) != "3.56" {
			t.Errorf("the pull's totals: %v", totals)
		}
		// A file: B refunded our second order, lacks the third, and lists one
		// we never sent.
		file := "Ref,Charged,State,When\n" +
			fmt.Sprintf("topupd-%s,0.89,success,%s 01:00:00\n", ids[0], today) +
			fmt.Sprintf("topupd-%s,0.89,success,%s 01:00:00\n", ids[1], today) +
			fmt.Sprintf("topupd-%s,-0.89,refunded,%s 02:00:00\n", ids[1], today) +
			fmt.Sprintf("topupd-nosuchorder,2,,%s 03:00:00\n", today) +
			"topupd-yesterday,5,,2000-01-01 00:00:00\n"
		q := "?from=" + today + "&to=" + today + "&reference=ref&amount=CHARGED&status=state&time=when"
		fromFile := csvPost(t, h, "/admin/upstreams/b/reconciliations"+q, file)
		wantKinds = map[string]string{"topupd-" + ids[1]: "status_mismatch", "topupd-" + ids[2]: "missing_upstream", "topupd-nosuchorder": "missing_here"}
		if fromFile.Status != 201 || fmt.Sprint(mismatchKinds(fromFile.Body)) != fmt.Sprint(wantKinds) || fromFile.Str("source") != "csv" ||
			fromFile.Body["balanceDriftUsd"] != nil || num(fromFile.Body["matched"]) != "1" {
			t.Errorf("from a file: %s; want %v", fromFile, wantKinds)
		}
		before := len(h.AdminOK(http.StatusOK, "GET", "/admin/reconciliations", nil).Body["reconciliations"].([]any))
		for what, c := range map[string]struct {
			path, body string
			code       string
			says       string
		}{
			"a bad amount":      {q, "ref,charged,state,when\ntopupd-a,1,,2026-12-01 00:00:00\ntopupd-b,lots,,2026-12-01 00:00:00\n", "INVALID_BODY", "line 3"},
			"a missing column":  {"?from=" + today + "&to=" + today + "&reference=ref&amount=price", "ref,charged\n", "INVALID_REQUEST", `"price"`},
			"32 days":           {"?from=2026-01-01&to=2026-02-01&reference=ref&amount=charged", "ref,charged\n", "INVALID_REQUEST", "31 days"},
			"an unknown option": {q + "&sep=x", "ref,charged,state,when\n", "INVALID_REQUEST", "sep"},
			"100,001 rows": {"?from=" + today + "&to=" + today + "&reference=ref&amount=charged",
				"ref,charged\n" + strings.Repeat("topupd-a,1\n", 100_001), "INVALID_BODY", "line 100002"},
		} {
			if r := csvPost(t, h, "/admin/upstreams/b/reconciliations"+c.path, c.body); r.Status != 400 || r.Str("code") != c.code || !strings.Contains(r.Str("detail"), c.says) {
				t.Errorf("%s: %s; want 400 %s saying %s", what, r, c.code, c.says)
			}
		}
		for what, body := range map[string]map[string]any{
			"a period after today": {"from": today, "to": time.Now().AddDate(0, 0, 2).Format(time.DateOnly)},
			"32 days":              {"from": "2026-01-01", "to": "2026-02-01"},
			"no dates":             {},
			"an unknown field":     {"from": today, "to": today, "format": "csv"},
		} {
			if r := h.AdminDo("POST", "/admin/upstreams/b/reconciliations", body); r.Status != 400 || r.Str("code") != "INVALID_BODY" {
				t.Errorf("%s: %s; want 400 INVALID_BODY", what, r)
			}
		}
		if r := h.AdminDo("POST", "/admin/upstreams/nobody/reconciliations", map[string]any{"from": today, "to": today}); r.Status != 404 {
			t.Errorf("an unknown upstream: %s", r)
		}
		list := h.AdminOK(http.StatusOK, "GET", "/admin/reconciliations?supplier=b&limit=1", nil)
		rows := list.Body["reconciliations"].([]any)
		if before != 2 || len(rows) != 1 || rows[0].(map[string]any)["id"] != fromFile.Str("id") || rows[0].(map[string]any)["mismatches"] != nil ||
			list.Body["nextCursor"] == nil {
			t.Errorf("the list (%d before the refusals): %s", before, list)
		}
		next := h.AdminOK(http.StatusOK, "GET", "/admin/reconciliations?supplier=b&limit=1&cursor="+list.Str("nextCursor"), nil)
		if rows := next.Body["reconciliations"].([]any); len(rows) != 1 || rows[0].(map[string]any)["id"] != pulled.Str("id") {
			t.Errorf("the next page: %s", next)
		}
		viewer := h.NewOperator("vic", "viewer")
		if r := h.AdminAs(viewer, "GET", "/admin/reconciliations/"+pulled.Str("id"), nil); r.Status != 200 || fmt.Sprint(mismatchKinds(r.Body)) != fmt.Sprint(mismatchKinds(pulled.Body)) {
			t.Errorf("a viewer reads it: %s", r)
		}
		if r := h.AdminAs(viewer, "POST", "/admin/upstreams/b/reconciliations", map[string]any{"from": today, "to": today}); r.Status != 403 {
			t.Errorf("a viewer runs one: %s", r)
		}
		if r := h.AdminDo("GET", "/admin/reconciliations/rec_nosuch", nil); r.Status != 404 {
			t.Errorf("an unknown reconciliation: %s", r)
		}
		// Closing: not while a mismatch is open; a file that agrees closes,
		// once; each run with mismatches was one operator event.
		if r := h.AdminDo("POST", "/admin/reconciliations/"+pulled.Str("id")+"/close", nil); r.Status != 409 || r.Str("code") != "MISMATCHES_OPEN" {
			t.Errorf("closing with mismatches open: %s", r)
		}
		agree := "ref,charged\n" + fmt.Sprintf("topupd-%s,0.89\ntopupd-%s,0.89\ntopupd-%s,0.80\n", ids[0], ids[1], ids[2])
		clean := csvPost(t, h, "/admin/upstreams/b/reconciliations?from="+today+"&to="+today+"&reference=ref&amount=charged", agree)
		if clean.Status != 201 || len(mismatchKinds(clean.Body)) != 0 || num(clean.Body["matched"]) != "3" {
			t.Fatalf("a file that agrees: %s", clean)
		}
		if r := h.AdminAs(viewer, "POST", "/admin/reconciliations/"+clean.Str("id")+"/close", nil); r.Status != 403 {
			t.Errorf("a viewer closes: %s", r)
		}
		closed := h.AdminOK(http.StatusOK, "POST", "/admin/reconciliations/"+clean.Str("id")+"/close", nil)
		if closed.Str("state") != "closed" || closed.Str("closedAt") == "" {
			t.Errorf("closed: %s", closed)
		}
		if r := h.AdminDo("POST", "/admin/reconciliations/"+clean.Str("id")+"/close", nil); r.Status != 409 || r.Str("code") != "RECONCILIATION_CLOSED" {
			t.Errorf("closing twice: %s", r)
		}
		var told []string
		operatorEvents(t, h, "", func(r topupdtest.Reply) bool {
			told = nil
			for _, e := range r.Body["events"].([]any) {
				if e := e.(map[string]any); e["type"] == "reconciliation.mismatches" {
					d := e["data"].(map[string]any)
					told = append(told, fmt.Sprintf("%v %v %v", d["reconciliationId"], d["supplier"], num(d["mismatches"])))
				}
			}
			return len(told) >= 2
		})
		if want := []string{pulled.Str("id") + " b 2", fromFile.Str("id") + " b 3"}; fmt.Sprint(told) != fmt.Sprint(want) {
			t.Errorf("operator events %v, want %v", told, want)
		}
		if _, text := h.AdminText("/metrics", h.MetricsToken); !strings.Contains(text, `topupd_reconciliation_open_mismatches{supplier="b"} 5`) {
			t.Errorf("the metric of open mismatches is not 5")
		}
	})
}

// mismatchKinds are a reconciliation's mismatches' kinds by reference.
func mismatchKinds(body map[string]any) map[string]string {
	out := map[string]string{}
	list, _ := body["mismatches"].([]any)
	for _, m := range list {
		m := m.(map[string]any)
		out[m["reference"].(string)] = m["kind"].(string)
	}
	return out
}

// csvPost sends a supplier's file to the admin API.
func csvPost(t *testing.T, h *topupdtest.T, path, file string) topupdtest.Reply {
	t.Helper()
	r, err := h.Call(h.Admin.URL, "POST", path, topupdtest.Headers{"Authorization": "Bearer " + h.Token, "Content-Type": "text/csv"}, topupdtest.RawBody(file))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// num spells a JSON number as the admin API sent it.
func num(v any) string {
	if s, ok := v.(interface{ String() string }); ok {
		return s.String()
	}
	return fmt.Sprint(v)
}

// TestReconcileDayEdge, on SQLite and PostgreSQL, against a real topupd as
// the upstream: an order we placed at 23:59:59 that the upstream charged
// after midnight (its clock a second ahead of ours) is matched in both
// days' pulls, looked up on the other side beyond each period, never
// missing on either side.
func TestReconcileDayEdge(t *testing.T) {
	t.Parallel()
	b := topupdtest.New(t)
	b.LoadCatalog()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		now := time.Now().UTC()
		midnight := now.Truncate(24 * time.Hour)
		if now.Sub(midnight) < time.Minute {
			t.Skip("too close to midnight UTC for the upstream's clock to be past it while ours is before")
		}
		clock := topupdtest.NewClock() // each store's own: they run at once
		clock.SetTime(midnight.Add(-time.Second))
		h := topupdtest.New(t, append(db, topupdtest.WithClock(clock))...)
		h.LoadCatalog()
		h.Settings(map[string]any{"reconcileAt": nil})
		ours := b.NewAccount("20", nil)
		h.Logs.Secret(ours.Key, "our key at B")
		h.AdminOK(http.StatusOK, "PUT", "/admin/upstreams/b", map[string]any{"baseUrl": b.API.URL, "apiKey": ours.Key})
		h.PutPack("b-pubg", map[string]any{"slug": "pubg", "name": "60 UC from B", "priceUsd": 1.5, "costUsd": json.Number("0.89"),
			"status": "active", "provider": "upstream", "upstream": "b", "upstreamPid": topupdtest.PIDPubg})
		shop := h.NewAccount("50", nil)
		id := h.Place(shop, map[string]any{"pid": "b-pubg", "trxid": h.Trx(), "userId": "5123456"}).Str("orderId")
		if done := h.WaitOrder(shop, id); done.Str("status") != "completed" || !strings.HasPrefix(done.Str("createdAt"), midnight.Add(-time.Second).Format(time.DateOnly)) {
			t.Fatalf("the order before midnight: %s", done)
		}
		yesterday, today := midnight.Add(-time.Hour).Format(time.DateOnly), midnight.Format(time.DateOnly)
		before := h.AdminOK(http.StatusCreated, "POST", "/admin/upstreams/b/reconciliations", map[string]any{"from": yesterday, "to": yesterday})
		totals := before.Body["totals"].(map[string]any)
		if len(mismatchKinds(before.Body)) != 0 || num(before.Body["matched"]) != "1" || num(totals["ourOrders"]) != "1" || num(totals["theirOrders"]) != "0" {
			t.Errorf("the day we placed it: %s", before)
		}
		clock.SetTime(now)
		after := h.AdminOK(http.StatusCreated, "POST", "/admin/upstreams/b/reconciliations", map[string]any{"from": today, "to": today})
		totals = after.Body["totals"].(map[string]any)
		if len(mismatchKinds(after.Body)) != 0 || num(after.Body["matched"]) != "1" || num(totals["ourOrders"]) != "0" || num(totals["theirOrders"]) != "1" {
			t.Errorf("the day they charged it: %s", after)
		}
	})
}
