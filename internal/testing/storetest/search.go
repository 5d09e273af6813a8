package storetest

import (
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// testOrderSearch: the operator's order list finds the orders for one
// player (newest first), and those whose trxid starts with a prefix
// whatever its case (in trxid order), and no other.
func testOrderSearch(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(100))
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	player := func(trxid, user string) topupd.OrderRequest {
		r := topup(trxid)
		r.Fields.UserID = user
		return r
	}
	o1 := e.place(a.ID, player("Shop-AB-2", "77777"), at(1))
	o2 := e.place(a.ID, player("shop-ab-1", "88888"), at(2))
	o3 := e.place(a.ID, player("SHOP-AC-3", "77777"), at(3))
	e.place(a.ID, player("other-ab", "777770"), at(4))
	ids := func(q topupd.OrdersQuery) []string {
		t.Helper()
		q.Limit = 10
		got, err := e.s.Orders(e.ctx, q)
		if err != nil {
			t.Fatalf("Orders(%+v): %v", q, err)
		}
		out := []string{}
		for _, o := range got {
			out = append(out, o.ID)
		}
		return out
	}
	same := func(what string, got []string, want ...string) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", what, got, want)
			return
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: %v, want %v", what, got, want)
				return
			}
		}
	}
	same("player 77777", ids(topupd.OrdersQuery{PlayerID: "77777"}), o3.ID, o1.ID)
	same("trxid prefix sHoP-a", ids(topupd.OrdersQuery{TrxIDPrefix: "sHoP-a"}), o2.ID, o1.ID, o3.ID)
	same("trxid prefix SHOP-AB", ids(topupd.OrdersQuery{TrxIDPrefix: "SHOP-AB"}), o2.ID, o1.ID)
	same("trxid prefix shop-ab-2 of player 88888", ids(topupd.OrdersQuery{TrxIDPrefix: "shop-ab-2", PlayerID: "88888"}))
	same("trxid prefix on the sandbox books", ids(topupd.OrdersQuery{TrxIDPrefix: "shop", Sandbox: true}))
}
