package webhooks_test

import (
	"context"
	"database/sql"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestCatalogChanged, on SQLite and PostgreSQL: catalog.changed goes to
// the endpoints that ask for it, and is in GET /events of every account
// it concerns, for a price change, a pack going off sale, stock running
// out and refilled (not for the codes drawn before), and a line going off
// sale. A change rolled back sends nothing; an account's own price goes
// to that account alone; a pack no one can see sends nothing; an endpoint
// that lists no types is sent none. Each account's event has an id of its
// own, the same in the delivery and in GET /events.
func TestCatalogChanged(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		// An account made in the millisecond of a catalog change counts as
		// its reader (a change told twice is harmless, one missed is not):
		// the catalog's last change (its stock) is told apart from the
		// accounts by a clock that has moved on.
		time.Sleep(2 * time.Millisecond)
		a, b, c := h.NewAccount("20", nil), h.NewAccount("", nil), h.NewAccount("", nil)
		ra, rb, rc := newReceiver(t, nil), newReceiver(t, nil), newReceiver(t, nil)
		wants := map[string]any{"events": []string{"catalog.changed"}}
		endpoint(t, h, a.ID, ra.URL, wants)
		endpoint(t, h, b.ID, rb.URL, wants)
		endpoint(t, h, c.ID, rc.URL, nil) // every type but catalog.changed

		// step makes a change and waits for a's receiver to get n requests.
		n := 0
		step := func(what string, change func()) {
			t.Helper()
			change()
			n++
			ra.wait(t, n)
			if got := ra.all(); len(got) != n {
				var seen []string
				for _, r := range got {
					seen = append(seen, r.ID+" "+string(r.Body))
				}
				r := h.AdminDo("GET", "/admin/accounts/"+a.ID, nil)
				t.Fatalf("after %s: a's receiver got %d requests, want %d:\n%s\n(account a created %v)", what, len(got), n, strings.Join(seen, "\n"), r.Body["createdAt"])
			}
		}
		patch := func(path string, body map[string]any) func() {
			return func() { h.AdminOK(http.StatusOK, "PATCH", path, body) }
		}
		order := func(qty int) {
			r := h.Place(a, map[string]any{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": qty})
			if r.Body["status"] != "completed" {
				t.Fatalf("an order of %d keys: %v", qty, r)
			}
		}
		step("a price change", patch("/admin/products/"+topupdtest.PIDPubg, map[string]any{"priceUsd": topupdtest.USD("0.99")}))
		step("a pack off sale", patch("/admin/products/"+topupdtest.PIDFF, map[string]any{"status": "disabled"}))
		step("the stock running out", func() {
			order(topupdtest.KeyStock - 1) // codes drawn, still in stock: nothing to tell
			order(1)
		})
		step("the stock refilled", func() { h.AddStock(topupdtest.PIDKey, 2) })
		step("a line off sale", patch("/admin/services/valorant", map[string]any{"status": "disabled"}))
		rolledBack(t, h, `UPDATE packs SET price = price + 1 WHERE pid = '`+topupdtest.PIDPubgBig+`'`)
		h.AdminOK(http.StatusOK, "PUT", "/admin/accounts/"+b.ID+"/prices/"+topupdtest.PIDPubgBig, map[string]any{"priceUsd": topupdtest.USD("5")})
		h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDPubgOld, map[string]any{"priceUsd": topupdtest.USD("7")})
		step("the last price change", patch("/admin/products/"+topupdtest.PIDPubgBig, map[string]any{"priceUsd": topupdtest.USD("4.5")}))

		common := [][]string{{topupdtest.PIDPubg}, {topupdtest.PIDFF}, {topupdtest.PIDKey}, {topupdtest.PIDKey},
			{"valorant-475"}, {topupdtest.PIDPubgBig}}
		forB := append(append([][]string{}, common[:5]...), []string{topupdtest.PIDPubgBig}, common[5])
		pidsOf := catalogPIDs
		// GET /events lists the events in stream order, each once.
		pulled := map[string][]any{}
		for _, acct := range []topupdtest.Account{a, b, c} {
			want := common
			if acct.ID == b.ID {
				want = forB
			}
			waitFor(t, func() bool {
				r := h.Do("GET", "/events", acct.Key, nil)
				pulled[acct.ID], _ = r.Body["events"].([]any)
				return len(pidsOf(pulled[acct.ID])) >= len(want)
			}, "the catalog events of %s", acct.ID)
			if diff := cmp.Diff(want, pidsOf(pulled[acct.ID])); diff != "" {
				t.Errorf("GET /events of %s (-want +got):\n%s", acct.ID, diff)
			}
		}
		// Each delivery is an event GET /events lists, by id, the same.
		ids := map[string]string{}
		for acct, events := range pulled {
			for _, e := range events {
				ev := e.(map[string]any)
				id := ev["id"].(string)
				if other, dup := ids[id]; dup {
					t.Errorf("event %s is both %s's and %s's", id, other, acct)
				}
				ids[id] = acct
			}
		}
		rb.wait(t, len(forB))
		for who, rcv := range map[string]*receiver{a.ID: ra, b.ID: rb} {
			for _, got := range rcv.all() {
				if ids[got.ID] != who || got.Parsed["id"] != got.ID || got.Parsed["type"] != "catalog.changed" {
					t.Errorf("%s's receiver got %s: %s", who, got.ID, got.Body)
				}
			}
		}
		if got := rc.all(); len(got) != 0 {
			t.Errorf("an endpoint that lists no types got %d requests; first %s", len(got), got[0].Body)
		}
	}, topupdtest.WithWebhookReceivers(0))
}

// rolledBack runs stmt on the server's database in a transaction of its
// own, and rolls it back.
func rolledBack(t *testing.T, h *topupdtest.T, stmt string) {
	t.Helper()
	driver, dsn := "sqlite", "file:"+h.DB+"?_pragma=busy_timeout(10000)"
	if strings.HasPrefix(h.DB, "postgres") {
		driver, dsn = "pgx", h.DB
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := tx.ExecContext(ctx, stmt); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%s changed %d rows", stmt, n)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
}

// TestCatalogChangedTiers, on SQLite and PostgreSQL: prices that are some
// accounts' alone are told to them alone. Joining a tier and a change of
// the tier's markup name every pack on sale; a tier's price of a pack goes
// to the accounts on the tier without a price of their own for it; a base
// price goes to everyone.
func TestCatalogChangedTiers(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		tier := func(body map[string]any) {
			body["allowBelowCost"] = true
			h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/gold", body)
		}
		tier(map[string]any{"prices": map[string]any{topupdtest.PIDPubg: topupdtest.USD("0.85")}}) // no one on it: nothing
		a, b := h.NewAccount("", nil), h.NewAccount("", nil)
		var onSale []string
		for pid := range h.Products(a) {
			onSale = append(onSale, pid)
		}
		slices.Sort(onSale)
		h.PatchAccount(a, map[string]any{"tier": "gold"})
		tier(map[string]any{"prices": map[string]any{topupdtest.PIDPubg: topupdtest.USD("0.8")}})
		h.AdminOK(http.StatusOK, "PUT", "/admin/accounts/"+a.ID+"/prices/"+topupdtest.PIDPubg, map[string]any{"priceUsd": topupdtest.USD("0.7")})
		tier(map[string]any{"prices": map[string]any{topupdtest.PIDPubg: topupdtest.USD("0.75")}}) // under a's own price: nothing
		tier(map[string]any{"prices": map[string]any{topupdtest.PIDPubg: topupdtest.USD("0.75")}, "markupPercent": 10})
		h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDPubgBig, map[string]any{"priceUsd": topupdtest.USD("4.5")})

		for _, tc := range []struct {
			who  topupdtest.Account
			want [][]string
		}{
			{a, [][]string{onSale, {topupdtest.PIDPubg}, {topupdtest.PIDPubg}, onSale, {topupdtest.PIDPubgBig}}},
			{b, [][]string{{topupdtest.PIDPubgBig}}},
		} {
			var got [][]string
			waitFor(t, func() bool {
				got = catalogPIDs(h.Do("GET", "/events", tc.who.Key, nil).Body["events"].([]any))
				return len(got) >= len(tc.want)
			}, "the catalog events of %s", tc.who.ID)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("GET /events of %s (-want +got):\n%s", tc.who.ID, diff)
			}
		}
	})
}

// catalogPIDs are the pids of the catalog.changed events listed, in order.
func catalogPIDs(events []any) [][]string {
	out := [][]string{}
	for _, e := range events {
		ev := e.(map[string]any)
		if ev["type"] != "catalog.changed" {
			continue
		}
		var pids []string
		for _, p := range ev["data"].(map[string]any)["pids"].([]any) {
			pids = append(pids, p.(string))
		}
		out = append(out, pids)
	}
	return out
}
