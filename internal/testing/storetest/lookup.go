package storetest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/topupd/topupd"
)

var lookupTests = []test{
	{"OrderByIDAndSeq", testOrderLookup},
	{"HistoryPaging", testHistoryPaging},
	{"HistorySameInstant", testHistorySameInstant},
	{"ListCodes", testListCodes},
	{"OperatorOrders", testOperatorOrders},
	{"OrderPages", testOrderPages},
	{"StuckAlerts", testStuckAlerts},
}

func testOrderLookup(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(100))
	b := e.account("b", topupd.USD(100))
	e.stock(pidKey, 3)
	oa := e.place(a.ID, keys(pidKey, "T-A", 2), t0)
	ob := e.place(b.ID, topup("T-B"), t0)
	seqA := strconv.FormatInt(oa.Seq, 10)
	cases := []struct {
		name, account, id string
		want              *topupd.Order // nil: ORDER_NOT_FOUND
	}{
		{"own, by id", a.ID, oa.ID, &oa},
		{"own, by seq", a.ID, seqA, &oa},
		{"any account, by id", "", oa.ID, &oa},
		{"any account, by seq", "", seqA, &oa},
		{"other account's, by id", a.ID, ob.ID, nil},
		{"other account's, by seq", a.ID, strconv.FormatInt(ob.Seq, 10), nil},
		{"mine seen from the other account", b.ID, oa.ID, nil},
		{"unknown id", a.ID, "ord_doesnotexist", nil},
		{"unknown seq", "", strconv.FormatInt(oa.Seq+ob.Seq+1000, 10), nil},
		{"trxid is not an id", a.ID, "T-A", nil},
		{"empty id", "", "", nil},
	}
	for _, c := range cases {
		got, err := e.s.Order(e.ctx, c.account, c.id)
		if c.want == nil {
			codeIs(t, err, topupd.EOrderNotFound, c.name)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(*c.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	if len(oa.Codes) != 2 {
		t.Fatalf("the key order has %d codes, want 2", len(oa.Codes))
	}
	readers := []struct {
		name  string
		read  func(ctx context.Context, accountID, id string) (topupd.Order, error)
		codes bool
	}{{"ResellerOrder", e.s.ResellerOrder, true}, {"ResellerOrderWithoutCodes", e.s.ResellerOrderWithoutCodes, false}}
	for _, r := range readers {
		for _, c := range cases {
			got, err := r.read(e.ctx, c.account, c.id)
			if c.want == nil {
				codeIs(t, err, topupd.EOrderNotFound, r.name+": "+c.name)
				continue
			}
			if err != nil {
				t.Errorf("%s: %s: %v", r.name, c.name, err)
				continue
			}
			want := c.want.ResellerView()
			if !r.codes {
				want.Codes = nil
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s: %s (-want +got):\n%s", r.name, c.name, diff)
			}
		}
	}
}

func ids(orders []topupd.Order) []string {
	out := make([]string, len(orders))
	for i, o := range orders {
		out[i] = o.ID
	}
	return out
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

func testHistoryPaging(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(1000))
	other := e.account("other", topupd.USD(1000))
	empty := e.account("empty", 0)
	var placed []string
	for i := range 7 {
		placed = append(placed, e.place(a.ID, topup(e.uniq("T-A")), t0.Add(time.Duration(i)*time.Second)).ID)
		e.place(other.ID, topup(e.uniq("T-O")), t0.Add(time.Duration(i)*time.Second))
	}
	// One cancelled and refunded, one completed with codes: history must
	// carry every field a reseller sees of each.
	if _, err := e.s.Settle(e.ctx, nil, e.order(placed[1]).Seq, topupd.Settlement{Status: topupd.StatusCancelled, Error: "INVALID PLAYER", Refund: true, Now: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Settle(e.ctx, nil, e.order(placed[2]).Seq, topupd.Settlement{Status: topupd.StatusCompleted, Codes: []string{"C-1", "C-2"}, Now: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	newest := reversed(placed)
	cases := []struct {
		offset, limit int
		want          []string
	}{
		{0, 100, newest},
		{0, 3, newest[:3]},
		{3, 3, newest[3:6]},
		{6, 3, newest[6:]},
		{7, 3, nil},
		{50, 3, nil},
		{2, 1, newest[2:3]},
	}
	for _, c := range cases {
		got, total, err := e.s.History(e.ctx, a.ID, topupd.HistoryQuery{Offset: c.offset, Limit: c.limit})
		if err != nil {
			t.Fatalf("History(%d, %d): %v", c.offset, c.limit, err)
		}
		if total != 7 {
			t.Errorf("History(%d, %d): total %d, want 7", c.offset, c.limit, total)
		}
		if diff := cmp.Diff(c.want, ids(got), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("History(%d, %d) ids (-want +got):\n%s", c.offset, c.limit, diff)
		}
	}
	full, _ := e.history(a.ID)
	for i, o := range full {
		whole := e.order(o.ID)
		if diff := cmp.Diff(whole.ResellerView(), o, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("History entry %d differs from Order (-order +history):\n%s", i, diff)
		}
	}
	if got, total := e.history(empty.ID); len(got) != 0 || total != 0 {
		t.Errorf("History of an account without orders: %d orders, total %d", len(got), total)
	}
}

func testHistorySameInstant(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(1000))
	e.stock(pidKey, 20)
	var placed []string
	for i := range 12 {
		req := topup(e.uniq("T"))
		if i%3 == 1 {
			req = keys(pidKey, e.uniq("T"), 1) // completed ones mixed in
		}
		placed = append(placed, e.place(a.ID, req, t0).ID)
	}
	want := reversed(placed)
	for range 3 {
		got, _ := e.history(a.ID)
		if diff := cmp.Diff(want, ids(got)); diff != "" {
			t.Fatalf("History of orders placed at one instant, newest placed first (-want +got):\n%s", diff)
		}
	}
	var paged []string
	for off := 0; off < 12; off += 5 {
		got, _, err := e.s.History(e.ctx, a.ID, topupd.HistoryQuery{Offset: off, Limit: 5})
		if err != nil {
			t.Fatalf("History: %v", err)
		}
		paged = append(paged, ids(got)...)
	}
	if diff := cmp.Diff(want, paged); diff != "" {
		t.Errorf("pages of 5 put together (-want +got):\n%s", diff)
	}
}

func testOperatorOrders(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(1000))
	b := e.account("b", topupd.USD(1000))
	e.stock(pidKey, 5)
	p1 := e.place(a.ID, topup("T-1"), t0)                             // stays processing, overdue later
	k1 := e.place(b.ID, keys(pidKey, "T-2", 1), t0.Add(time.Second))  // completed
	p2 := e.place(b.ID, topup("T-3"), t0.Add(2*time.Second))          // cancelled
	p3 := e.place(a.ID, topup("T-4"), t0.Add(deadline+2*time.Second)) // processing, not overdue
	e.settle(p2, topupd.Settlement{Status: topupd.StatusCancelled, Error: "INVALID PLAYER", Refund: true, Now: t0.Add(3 * time.Second)})
	cases := []struct {
		name string
		q    topupd.OrdersQuery
		want []string
	}{
		{"all", topupd.OrdersQuery{Limit: 100}, []string{p3.ID, p2.ID, k1.ID, p1.ID}},
		{"limit", topupd.OrdersQuery{Limit: 2}, []string{p3.ID, p2.ID}},
		{"processing", topupd.OrdersQuery{Status: topupd.StatusProcessing, Limit: 100}, []string{p3.ID, p1.ID}},
		{"completed", topupd.OrdersQuery{Status: topupd.StatusCompleted, Limit: 100}, []string{k1.ID}},
		{"cancelled", topupd.OrdersQuery{Status: topupd.StatusCancelled, Limit: 100}, []string{p2.ID}},
		{"stuck: overdue", topupd.OrdersQuery{Stuck: true, Now: t0.Add(deadline + time.Second), Limit: 100}, []string{p1.ID}},
		{"stuck: nothing yet", topupd.OrdersQuery{Stuck: true, Now: t0, Limit: 100}, nil},
		{"account", topupd.OrdersQuery{AccountID: b.ID, Limit: 100}, []string{p2.ID, k1.ID}},
		{"trxid", topupd.OrdersQuery{TrxID: "T-3", Limit: 100}, []string{p2.ID}},
		{"trxid of nobody", topupd.OrdersQuery{TrxID: "T-9", Limit: 100}, nil},
		{"pid", topupd.OrdersQuery{PID: pidKey, Limit: 100}, []string{k1.ID}},
		{"slug", topupd.OrdersQuery{Slug: "freefire", Limit: 100}, []string{p3.ID, p2.ID, p1.ID}},
		{"provider", topupd.OrdersQuery{Provider: topupd.ProviderSim, Status: topupd.StatusProcessing, Limit: 100}, []string{p3.ID, p1.ID}},
		{"from", topupd.OrdersQuery{From: t0.Add(time.Second), Limit: 100}, []string{p3.ID, p2.ID, k1.ID}},
		{"to", topupd.OrdersQuery{To: t0.Add(time.Second), Limit: 100}, []string{p1.ID}},
		{"from and to", topupd.OrdersQuery{From: t0.Add(time.Second), To: t0.Add(2 * time.Second), Limit: 100}, []string{k1.ID}},
		{"account and status", topupd.OrdersQuery{AccountID: a.ID, Status: topupd.StatusCompleted, Limit: 100}, nil},
		{"page after p2", topupd.OrdersQuery{Before: &topupd.ListKey{At: p2.CreatedAt, Seq: p2.Seq}, Limit: 100}, []string{k1.ID, p1.ID}},
		{"page after p2, one", topupd.OrdersQuery{Before: &topupd.ListKey{At: p2.CreatedAt, Seq: p2.Seq}, Limit: 1}, []string{k1.ID}},
	}
	for _, c := range cases {
		got, err := e.s.Orders(e.ctx, c.q)
		if err != nil {
			t.Fatalf("%s: Orders: %v", c.name, err)
		}
		if diff := cmp.Diff(c.want, ids(got), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: Orders ids (-want +got):\n%s", c.name, diff)
		}
	}
	all, _ := e.s.Orders(e.ctx, topupd.OrdersQuery{Limit: 100})
	for _, o := range all {
		if diff := cmp.Diff(e.order(o.ID), o, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Orders entry %s differs from Order (-order +list):\n%s", o.ID, diff)
		}
	}
}

// testOrderPages: orders stored out of their creation order (a node's
// clock behind another's), several at one instant, page newest first by
// creation time, then by seq, under each filter and within a period: the
// pages, walked cursor by cursor, hold every selected order once, in order.
func testOrderPages(t *testing.T, e *env) {
	e.catalog()
	e.stock(pidKey, 20)
	a, b := e.account("a", topupd.USD(1000)), e.account("b", topupd.USD(1000))
	var placed []topupd.Order
	for i := range 24 {
		at := t0.Add(time.Duration((i*7)%10) * time.Second) // 0, 7, 4, 1, 8, …: out of order, with ties
		req := topup(fmt.Sprintf("PG-%d", i))
		if i%3 == 0 {
			req = keys(pidKey, fmt.Sprintf("PG-%d", i), 1)
		}
		placed = append(placed, e.place([]topupd.Account{a, b}[i%2].ID, req, at))
	}
	slices.SortFunc(placed, func(x, y topupd.Order) int {
		if c := y.CreatedAt.Compare(x.CreatedAt); c != 0 {
			return c
		}
		return int(y.Seq - x.Seq)
	})
	for _, q := range []topupd.OrdersQuery{{}, {AccountID: b.ID}, {PID: pidTopup}, {Status: topupd.StatusCompleted},
		{From: t0.Add(2 * time.Second), To: t0.Add(8 * time.Second)}, {AccountID: a.ID, From: t0.Add(3 * time.Second)}} {
		var want []string
		for _, o := range placed {
			if (q.AccountID == "" || o.AccountID == q.AccountID) && (q.PID == "" || o.PID == q.PID) && (q.Status == "" || o.Status == q.Status) &&
				!o.CreatedAt.Before(q.From) && (q.To.IsZero() || o.CreatedAt.Before(q.To)) {
				want = append(want, o.ID)
			}
		}
		var got []string
		q.Limit = 3
		for range 20 {
			page, err := e.s.Orders(e.ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ids(page)...)
			if len(page) < q.Limit {
				break
			}
			last := page[len(page)-1]
			q.Before = &topupd.ListKey{At: last.CreatedAt, Seq: last.Seq}
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("pages of %+v (-want +got):\n%s", q, diff)
		}
	}
}

// testStuckAlerts: a processing order with an alert is stuck before its
// deadline too, and an operator's retry clears the alert.
func testStuckAlerts(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(100))
	o := e.place(a.ID, topup("T-1"), t0)
	st := topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: t0.Add(time.Minute), Now: t0, Alert: topupd.AlertCodeUsed}
	got, err := e.s.Settle(e.ctx, nil, o.Seq, st)
	if err != nil {
		t.Fatalf("Settle: %v", err)
	}
	if got.Alert != topupd.AlertCodeUsed || e.order(o.ID).Alert != topupd.AlertCodeUsed {
		t.Errorf("alert %q, stored %q; want %q", got.Alert, e.order(o.ID).Alert, topupd.AlertCodeUsed)
	}
	stuck, err := e.s.Orders(e.ctx, topupd.OrdersQuery{Stuck: true, Now: t0, Limit: 10})
	if err != nil || len(stuck) != 1 || stuck[0].ID != o.ID {
		t.Errorf("stuck orders %v, %v; want %s", ids(stuck), err, o.ID)
	}
	if got, err = e.s.RetryOrder(e.ctx, nil, o.Seq, t0, t0.Add(deadline)); err != nil || got.Alert != "" {
		t.Errorf("RetryOrder: alert %q, %v; want cleared", got.Alert, err)
	}
	if stuck, _ := e.s.Orders(e.ctx, topupd.OrdersQuery{Stuck: true, Now: t0, Limit: 10}); len(stuck) != 0 {
		t.Errorf("stuck after the retry: %v", ids(stuck))
	}
}

// testListCodes reads the codes of a list's orders, which the store reads
// a page of orders at a time: more orders with codes than one such page,
// supplier codes and codes drawn from stock, each order with its own codes
// in their order, beside orders that hold none, and a sandbox order's
// TEST- codes, which no table holds.
func testListCodes(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(1000))
	// 6 for the key orders; a sandbox order draws none, but asks for stock in hand.
	e.stock(pidKey, 8)
	want := map[string][]string{} // order id: its codes
	for i := range 70 {
		o := e.place(a.ID, topup(e.uniq("T")), t0.Add(time.Duration(i)*time.Second))
		switch {
		case i%10 == 3: // left processing
			continue
		case i%10 == 7:
			if _, err := e.s.Settle(e.ctx, nil, o.Seq, topupd.Settlement{Status: topupd.StatusCancelled, Error: "INVALID PLAYER", Refund: true, Now: t0.Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		codes := make([]string, i%3+1)
		for j := range codes {
			codes[j] = e.uniq(fmt.Sprintf("CODE-%d", i))
		}
		if _, err := e.s.Settle(e.ctx, nil, o.Seq, topupd.Settlement{Status: topupd.StatusCompleted, Codes: codes, Now: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		want[o.ID] = codes
	}
	for i := range 3 {
		o := e.place(a.ID, keys(pidKey, e.uniq("K"), 2), t0.Add(time.Duration(100+i)*time.Second))
		if len(o.Codes) != 2 {
			t.Fatalf("key order %d drew %d codes, want 2", i, len(o.Codes))
		}
		want[o.ID] = o.Codes
	}
	// A sandbox key order: TEST- codes, from no stock and not the codes table.
	if err := e.s.AddKey(e.ctx, nil, topupd.APIKey{ID: "key_list_codes", AccountID: a.ID, Prefix: "tpd_test", CreatedAt: t0, Sandbox: true}, topupd.KeyHash{7}); err != nil {
		t.Fatal(err)
	}
	sandboxOrder, _, err := e.s.PlaceOrder(e.ctx, topupd.PlaceOrder{AccountID: a.ID, Sandbox: true, Request: keys(pidKey, e.uniq("S"), 2),
		Now: t0, Deadline: time.Hour, LeaseOwner: "list", LeaseUntil: t0.Add(time.Hour)})
	if err != nil || !sandboxOrder.Sandbox {
		t.Fatalf("a sandbox key order: %+v %v", sandboxOrder, err)
	}
	sandboxWant := topupd.TestCodes(sandboxOrder.ID, 2)
	sandboxHistory, _ := e.history(sandboxOrder.AccountID)
	if len(sandboxHistory) != 1 || !slices.Equal(sandboxHistory[0].Codes, sandboxWant) {
		t.Errorf("sandbox history: %+v, want the one order with codes %v", sandboxHistory, sandboxWant)
	}
	history, _ := e.history(a.ID)
	if len(history) != 73 {
		t.Fatalf("history holds %d orders, want 73", len(history))
	}
	withCodes := 0
	for _, o := range history {
		if len(o.Codes) > 0 {
			withCodes++
		}
		if diff := cmp.Diff(want[o.ID], o.Codes, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("history: order %s codes (-want +got):\n%s", o.ID, diff)
		}
	}
	if withCodes != len(want) || withCodes <= 50 {
		t.Errorf("history: %d orders with codes, want %d (more than one page of 50)", withCodes, len(want))
	}
	for _, o := range e.allOrders() {
		if diff := cmp.Diff(want[o.ID], o.Codes, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("order list: order %s codes (-want +got):\n%s", o.ID, diff)
		}
	}
}
