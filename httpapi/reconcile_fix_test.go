package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestResolveMismatches, on SQLite and PostgreSQL, against a real topupd
// as the upstream (B), makes the mismatches happen for real: a cost we
// recorded wrong; an order B completed while ours still waits to ask
// again; an order our operator completed that B's operator then
// cancelled; an order our operator cancelled that B's then completed.
// Each is previewed (nothing changes), then fixed once: record-cost fixes
// the cost and the next pull agrees; complete-order completes ours at
// B's charge; refund-reseller refunds once, with the order and the
// reference on the reseller's statement, and never again from another
// reconciliation; accept records the note. A closed reconciliation takes
// no fix; the audit holds.
func TestResolveMismatches(t *testing.T) {
	t.Parallel()
	b := topupdtest.New(t)
	b.LoadCatalog()
	b.Settings(map[string]any{"simDelayMs": 3_600_000}) // B's orders wait for its operator
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		clock := topupdtest.NewClock() // each store's own: they run at once
		h := topupdtest.New(t, append(db, topupdtest.WithClock(clock))...)
		h.LoadCatalog()
		h.Settings(map[string]any{"reconcileAt": nil})
		ours := b.NewAccount("50", nil)
		h.Logs.Secret(ours.Key, "our key at B")
		h.AdminOK(http.StatusOK, "PUT", "/admin/upstreams/b", map[string]any{"baseUrl": b.API.URL, "apiKey": ours.Key})
		h.PutPack("b-pubg", map[string]any{"slug": "pubg", "name": "60 UC from B", "priceUsd": 1.5, "costUsd": json.Number("0.80"),
			"status": "active", "provider": "upstream", "upstream": "b", "upstreamPid": topupdtest.PIDPubg})
		shop := h.NewAccount("50", nil)
		atB := func(id string) string { // B's order id of ours
			t.Helper()
			found, err := b.Client(ours.Key).History(context.Background(), client.HistoryQuery{TrxID: "topupd-" + id})
			if err != nil || len(found) != 1 {
				t.Fatalf("order %s at B: %v %v", id, found, err)
			}
			return found[0].OrderID
		}
		place := func() string {
			t.Helper()
			id := h.Place(shop, map[string]any{"pid": "b-pubg", "trxid": h.Trx(), "userId": "5123456"}).Str("orderId")
			for end := time.Now().Add(5 * time.Second); h.AdminOrder(id).SupplierRef == ""; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatalf("order %s never reached B", id)
				}
			}
			return id
		}
		// o1: B completes it and we ask again: completed, at our wrong cost.
		o1 := place()
		b.AdminOK(http.StatusOK, "POST", "/admin/orders/"+atB(o1)+"/complete", map[string]any{})
		clock.Advance(time.Minute)
		h.WaitOrder(shop, o1)
		// o2: B completes it; our clock stands, so we have not asked again.
		o2 := place()
		b.AdminOK(http.StatusOK, "POST", "/admin/orders/"+atB(o2)+"/complete", map[string]any{})
		// o3: our operator completes it, then B's cancels it.
		o3 := place()
		h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+o3+"/complete", map[string]any{})
		b.AdminOK(http.StatusOK, "POST", "/admin/orders/"+atB(o3)+"/cancel", map[string]any{"refund": true})
		// o4: our operator cancels it, refunding; then B's completes it.
		o4 := place()
		h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+o4+"/cancel", map[string]any{"refund": true})
		b.AdminOK(http.StatusOK, "POST", "/admin/orders/"+atB(o4)+"/complete", map[string]any{})

		today := clock.Now().UTC().Format(time.DateOnly)
		rec := h.AdminOK(http.StatusCreated, "POST", "/admin/upstreams/b/reconciliations", map[string]any{"from": today, "to": today})
		want := map[string]string{"topupd-" + o1: "cost_mismatch", "topupd-" + o2: "status_mismatch", "topupd-" + o3: "status_mismatch",
			"topupd-" + o4: "missing_here"}
		if got := mismatchKinds(rec.Body); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("mismatches %v, want %v", got, want)
		}
		mid := mismatchIDs(rec.Body)
		resolve := func(ref, action string, preview bool) topupdtest.Reply {
			return h.AdminDo("POST", fmt.Sprintf("/admin/reconciliations/%s/mismatches/%d/resolve", rec.Str("id"), mid["topupd-"+ref]),
				map[string]any{"action": action, "note": "checked with B's support", "preview": preview})
		}
		refused := func(r topupdtest.Reply, status int, code, what string) {
			t.Helper()
			if r.Status != status || r.Str("code") != code {
				t.Errorf("%s: %s; want %d %s", what, r, status, code)
			}
		}

		// The refusals change nothing.
		viewer := h.NewOperator("vic", "viewer")
		path := fmt.Sprintf("/admin/reconciliations/%s/mismatches/%d/resolve", rec.Str("id"), mid["topupd-"+o1])
		refused(h.AdminAs(viewer, "POST", path, map[string]any{"action": "accept", "note": "x"}), 403, "ROLE_FORBIDDEN", "a viewer")
		refused(h.AdminDo("POST", path, map[string]any{"action": "accept"}), 400, "INVALID_BODY", "no note")
		refused(h.AdminDo("POST", path, map[string]any{"action": "accept", "note": strings.Repeat("n", 1001)}), 400, "INVALID_BODY", "a long note")
		refused(h.AdminDo("POST", path, map[string]any{"action": "write-off", "note": "x"}), 400, "INVALID_BODY", "an unknown action")
		refused(h.AdminDo("POST", path, map[string]any{"action": "accept", "note": "x", "force": true}), 400, "INVALID_BODY", "an unknown field")
		refused(h.AdminDo("POST", "/admin/reconciliations/"+rec.Str("id")+"/mismatches/99/resolve", map[string]any{"action": "accept", "note": "x"}),
			404, "NOT_FOUND", "an unknown mismatch")
		refused(h.AdminDo("POST", "/admin/reconciliations/rec_nosuch/mismatches/1/resolve", map[string]any{"action": "accept", "note": "x"}),
			404, "NOT_FOUND", "an unknown reconciliation")
		refused(resolve(o1, "refund-reseller", false), 409, "ACTION_NOT_APPLICABLE", "refund-reseller of a cost mismatch")
		refused(resolve(o2, "record-cost", false), 409, "ACTION_NOT_APPLICABLE", "record-cost of a status mismatch")
		refused(resolve(o3, "complete-order", false), 409, "ACTION_NOT_APPLICABLE", "complete-order of a completed order")
		refused(resolve(o4, "refund-reseller", false), 409, "ACTION_NOT_APPLICABLE", "refund-reseller of a cancelled order")
		refused(resolve(o4, "complete-order", false), 409, "ACTION_NOT_APPLICABLE", "complete-order of a cancelled order")

		// record-cost: previewed, then fixed once; the next pull agrees.
		if r := resolve(o1, "record-cost", true); r.Status != 200 || r.Body["preview"] != true || num(effect(r)["costUsd"]) != "0.89" ||
			mismatchOf(r)["state"] != "open" || num(h.AdminOrder(o1).CostUSD) != "0.8" {
			t.Errorf("record-cost preview: %s (cost %v)", r, num(h.AdminOrder(o1).CostUSD))
		}
		if r := resolve(o1, "record-cost", false); r.Status != 200 || r.Body["preview"] != false || mismatchOf(r)["state"] != "resolved" ||
			resolution(r)["action"] != "record-cost" || resolution(r)["operator"] == "" || num(h.AdminOrder(o1).CostUSD) != "0.89" {
			t.Errorf("record-cost: %s (cost %v)", r, num(h.AdminOrder(o1).CostUSD))
		}
		refused(resolve(o1, "record-cost", false), 409, "MISMATCH_RESOLVED", "record-cost twice")

		// complete-order: read from B, previewed, then completed at B's charge.
		if r := resolve(o2, "complete-order", true); r.Status != 200 || effect(r)["orderStatus"] != "completed" || num(effect(r)["costUsd"]) != "0.89" ||
			h.AdminOrder(o2).Status != "processing" {
			t.Errorf("complete-order preview: %s", r)
		}
		if r := resolve(o2, "complete-order", false); r.Status != 200 || mismatchOf(r)["state"] != "resolved" {
			t.Errorf("complete-order: %s", r)
		}
		if o := h.AdminOrder(o2); o.Status != "completed" || num(o.CostUSD) != "0.89" {
			t.Errorf("order %s after complete-order: %s, cost %v", o2, o.Status, num(o.CostUSD))
		}
		if r := h.Do("GET", "/orders/"+o2, shop.Key, nil); r.Str("status") != "completed" {
			t.Errorf("the reseller sees %s", r)
		}

		// refund-reseller: previewed, then one refund, on the statement.
		before := h.Balance(shop)
		if r := resolve(o3, "refund-reseller", true); r.Status != 200 || num(effect(r)["refundUsd"]) != "1.5" ||
			effect(r)["orderStatus"] != "completed" || h.Balance(shop) != before {
			t.Errorf("refund-reseller preview: %s (balance %s, was %s)", r, h.Balance(shop), before)
		} else if bal, after := json.Number(before), num(effect(r)["balanceAfterUsd"]); !sameUSD(bal, "1.5", after) {
			t.Errorf("refund-reseller preview: balance after %s, from %s", after, before)
		}
		fixed := resolve(o3, "refund-reseller", false)
		if fixed.Status != 200 || resolution(fixed)["entryId"] == nil || !sameUSD(json.Number(before), "1.5", h.Balance(shop)) {
			t.Fatalf("refund-reseller: %s (balance %s, was %s)", fixed, h.Balance(shop), before)
		}
		if o := h.AdminOrder(o3); o.Status != "completed" {
			t.Errorf("order %s after its refund: %s", o3, o.Status)
		}
		from := clock.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
		to := clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		st := h.Do("GET", "/statement?from="+from+"&to="+to, shop.Key, nil)
		var refunds []string
		for _, e := range st.Body["entries"].([]any) {
			if e := e.(map[string]any); e["kind"] == "refund" {
				refunds = append(refunds, fmt.Sprintf("%v %v %v", e["orderId"], e["reference"], num(e["amountUsd"])))
			}
		}
		wantRefunds := []string{o4 + " <nil> 1.5", fmt.Sprintf("%s %s/%d 1.5", o3, rec.Str("id"), mid["topupd-"+o3])}
		if fmt.Sprint(refunds) != fmt.Sprint(wantRefunds) {
			t.Errorf("the statement's refunds %v, want %v", refunds, wantRefunds)
		}
		refused(resolve(o3, "refund-reseller", false), 409, "MISMATCH_RESOLVED", "refund-reseller twice")

		// accept; then close, after which nothing is fixed.
		if r := resolve(o4, "accept", false); r.Status != 200 || resolution(r)["note"] != "checked with B's support" {
			t.Errorf("accept: %s", r)
		}
		h.AdminOK(http.StatusOK, "POST", "/admin/reconciliations/"+rec.Str("id")+"/close", nil)
		refused(resolve(o4, "accept", false), 409, "RECONCILIATION_CLOSED", "a fix after closing")

		// The next pull agrees on o1 and o2; o3's refund is not made again.
		again := h.AdminOK(http.StatusCreated, "POST", "/admin/upstreams/b/reconciliations", map[string]any{"from": today, "to": today})
		want = map[string]string{"topupd-" + o3: "status_mismatch", "topupd-" + o4: "missing_here"}
		if got := mismatchKinds(again.Body); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("the next pull's mismatches %v, want %v", got, want)
		}
		path = fmt.Sprintf("/admin/reconciliations/%s/mismatches/%d/resolve", again.Str("id"), mismatchIDs(again.Body)["topupd-"+o3])
		refused(h.AdminDo("POST", path, map[string]any{"action": "refund-reseller", "note": "again"}), 409, "ACTION_NOT_APPLICABLE", "a second refund")
		if !sameUSD(json.Number(before), "1.5", h.Balance(shop)) {
			t.Errorf("balance %s, want %s + 1.5", h.Balance(shop), before)
		}
		log := h.AdminOK(http.StatusOK, "GET", "/admin/actions?action=reconciliation.resolve", nil)
		if n := len(log.Body["actions"].([]any)); n != 4 {
			t.Errorf("%d reconciliation.resolve entries in the action log, want 4", n)
		}
		h.AuditClean()
	})
}

// mismatchIDs are a reconciliation's mismatches' ids by reference.
func mismatchIDs(body map[string]any) map[string]int {
	out := map[string]int{}
	list, _ := body["mismatches"].([]any)
	for _, m := range list {
		m := m.(map[string]any)
		var id int
		fmt.Sscan(num(m["id"]), &id)
		out[m["reference"].(string)] = id
	}
	return out
}

// effect, mismatchOf and resolution read a resolve's answer.
func effect(r topupdtest.Reply) map[string]any { m, _ := r.Body["effect"].(map[string]any); return m }

func mismatchOf(r topupdtest.Reply) map[string]any {
	m, _ := r.Body["mismatch"].(map[string]any)
	return m
}

func resolution(r topupdtest.Reply) map[string]any {
	m, _ := mismatchOf(r)["resolution"].(map[string]any)
	return m
}

// sameUSD tells whether after is before plus add, exactly.
func sameUSD(before json.Number, add string, after string) bool {
	b, err1 := topupd.ParseMoney(string(before))
	d, err2 := topupd.ParseMoney(add)
	a, err3 := topupd.ParseMoney(after)
	return err1 == nil && err2 == nil && err3 == nil && b+d == a
}
