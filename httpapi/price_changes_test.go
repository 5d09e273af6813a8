package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// priceRow is one pack's catalog row for an account: its price, and its
// next price and time ("" when absent).
func priceRow(t *testing.T, h *topupdtest.T, a topupdtest.Account, pid string) (price, next, at string) {
	t.Helper()
	row, ok := h.Products(a)[pid]
	if !ok {
		t.Fatalf("no %s in the catalog", pid)
	}
	if n, ok := row["nextPriceUsd"].(json.Number); ok {
		next = string(n)
	}
	at, _ = row["nextPriceAt"].(string)
	return string(row["price"].(json.Number)), next, at
}

// catalogTold counts the catalog.changed events of an account that name pid.
func catalogTold(h *topupdtest.T, a topupdtest.Account, pid string) int {
	n := 0
	for _, e := range h.Do("GET", "/events?limit=100", a.Key, nil).Body["events"].([]any) {
		e := e.(map[string]any)
		if e["type"] != "catalog.changed" {
			continue
		}
		for _, p := range e["data"].(map[string]any)["pids"].([]any) {
			if p == pid {
				n++
			}
		}
	}
	return n
}

// storedPrice is a pack's priceUsd as GET /admin/products lists it: the
// price written into the pack.
func storedPrice(t *testing.T, h *topupdtest.T, pid string) string {
	t.Helper()
	for _, p := range h.AdminOK(http.StatusOK, "GET", "/admin/products", nil).Body["products"].([]any) {
		if p := p.(map[string]any); p["pid"] == pid {
			return string(p["priceUsd"].(json.Number))
		}
	}
	t.Fatalf("no pack %s", pid)
	return ""
}

// waitTold waits up to 10 s until each account has want catalog.changed
// events naming pid, and fails with what they have.
func waitTold(t *testing.T, h *topupdtest.T, pid, what string, want map[string]int, accounts map[string]topupdtest.Account) {
	t.Helper()
	got := map[string]int{}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		for name, a := range accounts {
			got[name] = catalogTold(h, a, pid)
		}
		if fmt.Sprint(got) == fmt.Sprint(want) || time.Now().After(end) {
			break
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: catalog.changed naming %s by account %v, want %v", what, pid, got, want)
	}
}

// TestScheduledPrices, on SQLite and PostgreSQL, under a fake clock and a
// watch that does not look by itself (it runs when the test says): the
// refusals of POST /admin/price-changes, who may schedule, list and delete
// them, each caller's catalog row (nextPriceUsd and nextPriceAt: a plain
// account's, none for an account's own price, a discount tier's own), the
// catalog.changed each change tells, and the change taking effect at its
// time, before the server writes it into the pack: the orders, the
// catalog, updatedSince and the ETag move at effectiveAt; then the watch
// writes it (the pack's price, applied, price-change.apply by system, the
// metric), and DELETE is 409 PRICE_CHANGE_APPLIED all along.
func TestScheduledPrices(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		clock := topupdtest.NewClock()
		h := topupdtest.New(t, append(db, topupdtest.WithClock(clock), topupdtest.WithWatchEvery(time.Hour))...)
		h.LoadCatalog()
		// The catalog's changes are told to the accounts made by their
		// time: the accounts come a second after it, and the changes
		// below a second after them.
		clock.Advance(time.Second)
		pid, pack := topupdtest.PIDPubg, "/admin/products/"+topupdtest.PIDPubg
		plain, own, off := h.NewAccount("100", nil), h.NewAccount("100", nil), h.NewAccount("100", nil)
		clock.Advance(time.Second)
		h.AdminOK(http.StatusOK, "PATCH", pack, map[string]any{"costUsd": usd("0.5"), "pricePinned": true})
		h.AdminOK(http.StatusOK, "PUT", "/admin/accounts/"+own.ID+"/prices/"+pid, map[string]any{"priceUsd": usd("0.8")})
		h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/tenoff", map[string]any{"percentOffList": usd("10")})
		h.AdminOK(http.StatusOK, "PATCH", "/admin/accounts/"+off.ID, map[string]any{"tier": "tenoff"})
		fin, support := h.NewOperator("fin", "finance"), h.NewOperator("help", "support")
		accounts := map[string]topupdtest.Account{"plain": plain, "own": own, "off": off}
		// The cost told everyone; the own price its account; the tier its.
		waitTold(t, h, pid, "before any change", map[string]int{"plain": 1, "own": 2, "off": 2}, accounts)

		start := clock.Now()
		at := func(d time.Duration) string { return start.Add(d).UTC().Format(time.RFC3339) }
		change := func(pid, price string, d time.Duration) map[string]any {
			return map[string]any{"pid": pid, "priceUsd": usd(price), "effectiveAt": at(d)}
		}
		for what, body := range map[string]map[string]any{
			"59 minutes ahead":   change(pid, "1.2", 59*time.Minute),
			"in the past":        change(pid, "1.2", -time.Hour),
			"three decimals":     change(pid, "1.234", 2*time.Hour),
			"a price of 0":       change(pid, "0", 2*time.Hour),
			"no effectiveAt":     {"pid": pid, "priceUsd": usd("1.2")},
			"no price":           {"pid": pid, "effectiveAt": at(2 * time.Hour)},
			"not a time":         {"pid": pid, "priceUsd": usd("1.2"), "effectiveAt": "tomorrow"},
			"an unknown field":   {"pid": pid, "priceUsd": usd("1.2"), "effectiveAt": at(2 * time.Hour), "note": "x"},
			"a price as a text":  {"pid": pid, "priceUsd": "1.2", "effectiveAt": at(2 * time.Hour)},
			"allowBelowCost 1":   {"pid": pid, "priceUsd": usd("1.2"), "effectiveAt": at(2 * time.Hour), "allowBelowCost": 1},
			"an empty pid":       change("", "1.2", 2*time.Hour),
			"five decimals, too": change(pid, "1.20001", 2*time.Hour),
		} {
			wantCode(t, h.AdminDo("POST", "/admin/price-changes", body), 400, "INVALID_BODY", what)
		}
		if r := h.AdminDo("POST", "/admin/price-changes", change(pid, "1.234", 2*time.Hour)); !strings.Contains(r.Str("detail"), "priceUsd") {
			t.Errorf("three decimals: %s, want the detail to name priceUsd", r)
		}
		wantCode(t, h.AdminDo("POST", "/admin/price-changes", change("no-such-pack", "1.2", 2*time.Hour)), 404, "NOT_FOUND", "an unknown pack")
		wantCode(t, h.AdminDo("POST", "/admin/price-changes", change(pid, "0.49", 2*time.Hour)), 400, "BELOW_COST", "below the cost")
		wantCode(t, h.AdminAs(support, "POST", "/admin/price-changes", change(pid, "1.2", 2*time.Hour)), 403, "ROLE_FORBIDDEN", "support")

		// Finance schedules the pinned pack's change, at exactly 1 hour 30 from now.
		effective := start.Add(90 * time.Minute)
		r := h.AdminAs(fin, "POST", "/admin/price-changes", change(pid, "1.2", 90*time.Minute))
		if r.Status != 201 || r.Body["success"] != true || !strings.HasPrefix(r.Str("id"), "pch_") || r.Str("pid") != pid ||
			r.Num("priceUsd") != "1.2" || r.Str("state") != "scheduled" || r.Str("operator") != "fin" {
			t.Fatalf("scheduling: %s", r)
		}
		if got, _ := time.Parse(time.RFC3339Nano, r.Str("effectiveAt")); !got.Equal(effective) {
			t.Errorf("effectiveAt %s, want %s", r.Str("effectiveAt"), effective)
		}
		if got, _ := time.Parse(time.RFC3339Nano, r.Str("createdAt")); !got.Equal(start) {
			t.Errorf("createdAt %s, want %s", r.Str("createdAt"), start)
		}
		id := r.Str("id")
		wantCode(t, h.AdminDo("POST", "/admin/price-changes", change(pid, "1.3", 3*time.Hour)), 409, "CONFLICT", "a second change of the pack")
		h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDPubgBig, map[string]any{"costUsd": usd("3")})
		wantCode(t, h.AdminDo("POST", "/admin/price-changes", change(topupdtest.PIDPubgBig, "2.99", 2*time.Hour)), 400, "BELOW_COST",
			"below another pack's cost")
		low := h.AdminOK(201, "POST", "/admin/price-changes", map[string]any{"pid": topupdtest.PIDPubgBig, "priceUsd": usd("2.5"),
			"effectiveAt": at(3 * time.Hour), "allowBelowCost": true}).Str("id")
		late := h.AdminOK(201, "POST", "/admin/price-changes", change(topupdtest.PIDFF, "1.1", 4*time.Hour)).Str("id")
		r = h.AdminDo("PATCH", "/admin/products/"+topupdtest.PIDPubgBig, map[string]any{"costUsd": usd("4")})
		wantCode(t, r, 409, "BELOW_COST", "a cost raised above a scheduled price")
		if !strings.Contains(string(r.Raw), `{"kind":"scheduled","priceUsd":2.5}`) {
			t.Errorf("the cost raised above a scheduled price: %s, want the scheduled price in undercut", r)
		}

		// Each caller's row.
		nextAt := effective.UTC().Format("2006-01-02T15:04:05.000Z07:00")
		for name, want := range map[string][3]string{"plain": {"0.89", "1.2", nextAt}, "own": {"0.8", "", ""}, "off": {"0.81", "1.08", nextAt}} {
			if p, n, a := priceRow(t, h, accounts[name], pid); [3]string{p, n, a} != want {
				t.Errorf("%s's row: price %s, next %s at %s; want %v", name, p, n, a, want)
			}
		}
		if _, n, _ := priceRow(t, h, plain, topupdtest.PIDPubgBig); n != "2.5" {
			t.Errorf("the dear pack's next price %q, want 2.5", n)
		}
		waitTold(t, h, pid, "scheduled", map[string]int{"plain": 2, "own": 2, "off": 3}, accounts)

		// The list, by effectiveAt, paged and filtered; deleting.
		list := func(query string) ([]string, string) {
			t.Helper()
			r := h.AdminOK(http.StatusOK, "GET", "/admin/price-changes"+query, nil)
			var ids []string
			for _, c := range r.Body["priceChanges"].([]any) {
				c := c.(map[string]any)
				ids = append(ids, fmt.Sprint(c["id"], " ", c["state"]))
			}
			next, _ := r.Body["nextCursor"].(string)
			return ids, next
		}
		if ids, next := list("?limit=2"); !slices.Equal(ids, []string{id + " scheduled", low + " scheduled"}) || next == "" {
			t.Errorf("page 1: %v %q", ids, next)
		} else if ids, next := list("?limit=2&cursor=" + url.QueryEscape(next)); !slices.Equal(ids, []string{late + " scheduled"}) || next != "" {
			t.Errorf("page 2: %v %q", ids, next)
		}
		if ids, _ := list("?pid=" + topupdtest.PIDFF); !slices.Equal(ids, []string{late + " scheduled"}) {
			t.Errorf("pid=%s: %v", topupdtest.PIDFF, ids)
		}
		if ids, _ := list("?state=applied"); len(ids) != 0 {
			t.Errorf("state=applied before any took effect: %v", ids)
		}
		for _, q := range []string{"?state=done", "?limit=0", "?cursor=x:1", "?when=now"} {
			wantCode(t, h.AdminDo("GET", "/admin/price-changes"+q, nil), 400, "INVALID_REQUEST", q)
		}
		wantCode(t, h.AdminAs(support, "DELETE", "/admin/price-changes/"+low, nil), 403, "ROLE_FORBIDDEN", "support deleting")
		wantCode(t, h.AdminDo("DELETE", "/admin/price-changes/pch_nope", nil), 404, "NOT_FOUND", "deleting an unknown change")
		h.AdminOK(http.StatusOK, "DELETE", "/admin/price-changes/"+low, nil)
		wantCode(t, h.AdminDo("DELETE", "/admin/price-changes/"+low, nil), 404, "NOT_FOUND", "deleting it again")
		if _, n, _ := priceRow(t, h, plain, topupdtest.PIDPubgBig); n != "" {
			t.Errorf("the dear pack's next price %q once deleted, want none", n)
		}
		if ids, _ := list("?state=scheduled"); !slices.Equal(ids, []string{id + " scheduled", late + " scheduled"}) {
			t.Errorf("state=scheduled after the delete: %v", ids)
		}

		// A millisecond before the change, the old prices; at it, the new,
		// though the pack is not written yet.
		sync := h.Do("GET", "/products", plain.Key, nil)
		since, tag := sync.Str("serverTime"), sync.Header.Get("ETag")
		clock.SetTime(effective.Add(-time.Millisecond))
		order := func(a topupdtest.Account) string {
			return h.Place(a, map[string]any{"pid": pid, "trxid": h.Trx(), "userId": "51234567"}).Num("amountUsd")
		}
		if got := [3]string{order(plain), order(own), order(off)}; got != [3]string{"0.89", "0.8", "0.81"} {
			t.Errorf("orders just before the change paid %v, want 0.89 0.8 0.81", got)
		}
		clock.SetTime(effective)
		if got := [3]string{order(plain), order(own), order(off)}; got != [3]string{"1.2", "0.8", "1.08"} {
			t.Errorf("orders at the change paid %v, want 1.2 0.8 1.08", got)
		}
		if p := storedPrice(t, h, pid); p != "0.89" {
			t.Fatalf("the pack was written before the watch ran: %s", p)
		}
		for name, want := range map[string][3]string{"plain": {"1.2", "", ""}, "own": {"0.8", "", ""}, "off": {"1.08", "", ""}} {
			if p, n, a := priceRow(t, h, accounts[name], pid); [3]string{p, n, a} != want {
				t.Errorf("%s's row at the change: price %s, next %s at %s; want %v", name, p, n, a, want)
			}
		}
		if r := h.DoH("GET", "/products?updatedSince="+url.QueryEscape(since), topupdtest.Headers{"X-API-Key": plain.Key}, nil); !strings.Contains(string(r.Raw), `"id":"`+pid+`"`) {
			t.Errorf("updatedSince %s at the change: %s, want %s listed", since, r, pid)
		}
		if r := h.DoH("GET", "/products", topupdtest.Headers{"X-API-Key": plain.Key, "If-None-Match": tag}, nil); r.Status != http.StatusOK {
			t.Errorf("the old ETag at the change: %d, want 200 with the new prices", r.Status)
		}
		if ids, _ := list("?state=applied"); !slices.Equal(ids, []string{id + " applied"}) {
			t.Errorf("state=applied at the change: %v", ids)
		}
		wantCode(t, h.AdminDo("DELETE", "/admin/price-changes/"+id, nil), 409, "PRICE_CHANGE_APPLIED", "deleting it at its time, unwritten")
		if _, text := h.AdminText("/metrics", h.MetricsToken); !strings.Contains(text, "topupd_price_changes_scheduled 2") {
			t.Errorf("the metric before the watch: want topupd_price_changes_scheduled 2")
		}

		// The watch writes it.
		h.App.Watch.Look(t.Context())
		if p := storedPrice(t, h, pid); p != "1.2" {
			t.Errorf("the pack after the watch: %s, want priceUsd 1.2", p)
		}
		r = h.AdminOK(http.StatusOK, "GET", "/admin/price-changes?pid="+pid, nil)
		if c := r.Body["priceChanges"].([]any)[0].(map[string]any); c["state"] != "applied" || fmt.Sprint(c["oldPriceUsd"]) != "0.89" || c["appliedAt"] == nil {
			t.Errorf("the change once written: %v", c)
		}
		wantCode(t, h.AdminDo("DELETE", "/admin/price-changes/"+id, nil), 409, "PRICE_CHANGE_APPLIED", "deleting it once written")
		if got := [3]string{order(plain), order(own), order(off)}; got != [3]string{"1.2", "0.8", "1.08"} {
			t.Errorf("orders after the watch paid %v, want 1.2 0.8 1.08", got)
		}
		if _, text := h.AdminText("/metrics", h.MetricsToken); !strings.Contains(text, "topupd_price_changes_scheduled 1") {
			t.Errorf("the metric after the watch: want topupd_price_changes_scheduled 1 (the later change)")
		}
		waitTold(t, h, pid, "applied", map[string]int{"plain": 3, "own": 2, "off": 4}, accounts)
		// A price set by hand after a change's time, before the watch writes
		// it, stands: the pack's write writes the change first.
		clock.SetTime(start.Add(4 * time.Hour))
		h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDFF, map[string]any{"priceUsd": usd("1")})
		h.App.Watch.Look(t.Context())
		if p := storedPrice(t, h, topupdtest.PIDFF); p != "1" {
			t.Errorf("a price set by hand after its change's time: %s, want 1", p)
		}
		ff := h.Place(plain, map[string]any{"pid": topupdtest.PIDFF, "trxid": h.Trx(), "userId": "51234567"}).Num("amountUsd")
		r = h.AdminOK(http.StatusOK, "GET", "/admin/price-changes?pid="+topupdtest.PIDFF, nil)
		if c := r.Body["priceChanges"].([]any)[0].(map[string]any); c["state"] != "applied" || fmt.Sprint(c["oldPriceUsd"]) != "0.95" || ff != "1" {
			t.Errorf("the change before a price set by hand: %v; an order paid %s, want 1", c, ff)
		}
		logged := map[string]string{}
		for _, a := range actionsOf(t, h, "?limit=500") {
			if act := fmt.Sprint(a["action"]); strings.HasPrefix(act, "price-change.") {
				logged[act+" "+fmt.Sprint(a["target"])] = fmt.Sprint(a["operator"])
			}
		}
		for entry, by := range map[string]string{"price-change.create " + id: "fin", "price-change.create " + low: "root",
			"price-change.delete " + low: "root", "price-change.apply " + id: "system", "price-change.apply " + late: "system"} {
			if logged[entry] != by {
				t.Errorf("action log %q by %q, want by %q (all: %v)", entry, logged[entry], by, logged)
			}
		}
		h.AuditClean()
	})
}
