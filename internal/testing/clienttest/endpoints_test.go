package clienttest_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

func TestServices(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "")
	svcs, err := newClient(t, s, a.Key).Services(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	bySlug := map[string]client.Service{}
	for _, sv := range svcs {
		bySlug[sv.Slug] = sv
	}
	if _, ok := bySlug["retired"]; ok {
		t.Error("a disabled line is listed")
	}
	want := client.Service{
		ProductName: "Wuthering Waves Lunite", Slug: "wutheringwaves", GameName: "Wuthering Waves",
		Game: "wutheringwaves", Kind: "topup", Status: "active",
		Required:        []client.RequiredField{{Field: "userId", Label: "UID"}, {Field: "serverId", Label: "Server"}},
		ServerIDOptions: []client.Choice{{Value: "america", Label: "America"}, {Value: "europe", Label: "Europe"}},
	}
	if diff := cmp.Diff(want, bySlug["wutheringwaves"]); diff != "" {
		t.Errorf("wutheringwaves (-want +got):\n%s", diff)
	}
	if got := bySlug["ffmena"].Required; len(got) != 1 || got[0].Pattern != "^[0-9]{5,20}$" {
		t.Errorf("ffmena required = %+v", got)
	}
	if len(svcs) != topupdtest.ActiveLines {
		t.Errorf("%d services, want %d", len(svcs), topupdtest.ActiveLines)
	}
}

func TestProductsAndCatalog(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "")
	c := newClient(t, s, a.Key)
	ctx := context.Background()
	products, err := c.Products(ctx)
	if err != nil {
		t.Fatal(err)
	}
	catalog, err := c.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(products, catalog); diff != "" {
		t.Errorf("Products and Catalog differ (-products +catalog):\n%s", diff)
	}
	byID := map[string]client.Product{}
	for _, p := range products {
		byID[p.ID] = p
	}
	if len(byID) != topupdtest.ActivePacks {
		t.Errorf("%d products, want %d (disabled packs, and the retired line's pack, hidden)", len(byID), topupdtest.ActivePacks)
	}
	pubg := byID[topupdtest.PIDPubg]
	if pubg.Price != money(t, "0.89") || pubg.Price.String() != "0.89" || pubg.Quantity != nil || pubg.InStock != nil {
		t.Errorf("pubg row = %+v", pubg)
	}
	ten, one, yes := topupdtest.KeyStock, 1, true
	wantKey := client.Product{ID: topupdtest.PIDKey, Slug: "gamekey", GameName: "Game keys", ServiceName: "Steam random key",
		Category: "Cat gamekey", Price: money(t, topupdtest.PriceKey), Status: "active", Game: "gamekey", Kind: "gamekey",
		Quantity: &ten, InStock: &yes, QuantityMin: &one, QuantityMax: &ten}
	if diff := cmp.Diff(wantKey, byID[topupdtest.PIDKey]); diff != "" {
		t.Errorf("key row (-want +got):\n%s", diff)
	}
}

func TestMyIPAndBalance(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "0.89")
	c := newClient(t, s, a.Key)
	ctx := context.Background()
	ip, err := c.MyIP(ctx)
	if err != nil || ip != "127.0.0.1" {
		t.Errorf("MyIP = %q, %v; want 127.0.0.1", ip, err)
	}
	bal, err := c.Balance(ctx)
	if err != nil || bal != money(t, "0.89") || bal.String() != "0.89" {
		t.Fatalf("Balance = %v, %v; want 0.89", bal, err)
	}
	mustOrder(t, c, client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})
	if bal, err := c.Balance(ctx); err != nil || bal != 0 || bal.String() != "0" {
		t.Errorf("Balance after buying = %v, %v; want 0", bal, err)
	}
}

func TestPlaceOrderAndLookup(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "100")
	c := newClient(t, s, a.Key)
	ctx := context.Background()
	start := time.Now().Add(-time.Second)
	trx := s.Trx()
	o := mustOrder(t, c, client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: trx, UserID: "5123456789"})
	want := client.Order{OrderCreated: true, OrderID: o.OrderID, TrxID: trx, Status: client.StatusCompleted, Game: "pubg",
		PID: topupdtest.PIDPubg, PackName: "60 UC", Quantity: 1, AmountUSD: money(t, topupdtest.PricePubg), UserID: "5123456789"}
	ignore := cmpopts.IgnoreFields(client.Order{}, "CreatedAt", "DurationSec")
	if diff := cmp.Diff(want, *o, ignore); diff != "" {
		t.Errorf("placed order (-want +got):\n%s", diff)
	}
	if o.CreatedAt.Before(start) || o.CreatedAt.After(time.Now()) || !o.Final() {
		t.Errorf("createdAt %v, final %v", o.CreatedAt, o.Final())
	}
	got, err := c.Order(ctx, o.OrderID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, *got, ignore); diff != "" {
		t.Errorf("looked-up order (-want +got):\n%s", diff)
	}
	if !got.CreatedAt.Equal(o.CreatedAt) {
		t.Errorf("createdAt %v, then %v", o.CreatedAt, got.CreatedAt)
	}

	// The other order shapes echo their fields; keys return codes.
	mlbb := mustOrder(t, c, client.OrderRequest{PID: topupdtest.PIDMLBB, TrxID: s.Trx(), UserID: "12345678", ZoneID: "2001"})
	if mlbb.ZoneID != "2001" || mlbb.UserID != "12345678" {
		t.Errorf("mlbb order = %+v", mlbb)
	}
	ww := mustOrder(t, c, client.OrderRequest{PID: topupdtest.PIDWW, TrxID: s.Trx(), UserID: "800123", ServerID: "Europe"})
	if ww.ServerID != "europe" {
		t.Errorf("ww serverId = %q, want the option's spelling europe", ww.ServerID)
	}
	keys := mustOrder(t, c, client.OrderRequest{PID: topupdtest.PIDKey, TrxID: s.Trx(), Quantity: 3})
	if keys.Status != client.StatusCompleted || len(keys.Codes) != 3 || keys.Quantity != 3 || keys.AmountUSD != money(t, "3.6") {
		t.Errorf("key order = %+v", keys)
	}
	bal, err := c.Balance(ctx)
	if want := money(t, "100") - money(t, "0.89") - money(t, "1.45") - money(t, "0.95") - money(t, "3.6"); err != nil || bal != want {
		t.Errorf("balance %v, %v; want %v", bal, err, want)
	}
}

func TestHistory(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "100")
	c := newClient(t, s, a.Key)
	ctx := context.Background()
	var trx []string
	for range 5 {
		o := mustOrder(t, c, client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})
		trx = append(trx, o.TrxID)
	}
	slices.Reverse(trx) // newest first
	trxOf := func(orders []client.Order) []string {
		var out []string
		for _, o := range orders {
			out = append(out, o.TrxID)
		}
		return out
	}
	all, err := c.History(ctx, client.HistoryQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(trx, trxOf(all)); diff != "" {
		t.Errorf("History (-want +got):\n%s", diff)
	}
	two, err := c.History(ctx, client.HistoryQuery{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(trx[:2], trxOf(two)); diff != "" {
		t.Errorf("History limit 2 (-want +got):\n%s", diff)
	}
	if two[0].AmountUSD != money(t, topupdtest.PricePubg) || two[0].Status != client.StatusCompleted {
		t.Errorf("history entry = %+v", two[0])
	}
	p, err := c.HistoryPage(ctx, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if p.Total != 5 || !p.HasMore || p.Page != 2 || p.PageSize != 2 || p.Count != 2 {
		t.Errorf("page 2 = %+v", p)
	}
	if diff := cmp.Diff(trx[2:4], trxOf(p.Orders)); diff != "" {
		t.Errorf("page 2 (-want +got):\n%s", diff)
	}
	p, err = c.HistoryPage(ctx, 3, 2)
	if err != nil || p.HasMore || len(p.Orders) != 1 {
		t.Errorf("page 3 = %+v, %v", p, err)
	}
	if _, err := c.HistoryPage(ctx, 0, 2); err == nil {
		t.Error("page 0 accepted")
	}
}

func TestAllOrders(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "1000")
	c := newClient(t, s, a.Key)
	const n = 45
	var want []string
	for range n {
		o := mustOrder(t, c, client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})
		want = append(want, o.OrderID)
	}
	slices.Reverse(want)

	var pages atomic.Int64
	counting := newClient(t, s, a.Key, client.WithHTTPClient(countingHTTP(&pages)))
	var got []string
	for o, err := range counting.AllOrders(context.Background(), 20) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, o.OrderID)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AllOrders (-want +got):\n%s", diff)
	}
	if pages.Load() != 3 {
		t.Errorf("%d requests, want 3 pages", pages.Load())
	}

	// Stopping early fetches no more pages.
	pages.Store(0)
	got = got[:0]
	for o, err := range counting.AllOrders(context.Background(), 20) {
		if err != nil {
			t.Fatal(err)
		}
		if got = append(got, o.OrderID); len(got) == 5 {
			break
		}
	}
	if pages.Load() != 1 || !slices.Equal(got, want[:5]) {
		t.Errorf("after break: %d pages, %v", pages.Load(), got)
	}

	// Orders placed during the iteration shift the pages; none is yielded twice.
	seen := map[string]int{}
	i := 0
	for o, err := range c.AllOrders(context.Background(), 20) {
		if err != nil {
			t.Fatal(err)
		}
		seen[o.OrderID]++
		if i++; i%10 == 0 {
			mustOrder(t, c, client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})
		}
	}
	for _, id := range want {
		if seen[id] != 1 {
			t.Errorf("order %s yielded %d times", id, seen[id])
		}
	}
	for id, k := range seen {
		if k != 1 {
			t.Errorf("order %s yielded %d times", id, k)
		}
	}
}

func TestAllOrdersError(t *testing.T) {
	s := newTestServer(t)
	c := newClient(t, s, "tpd_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	n := 0
	for o, err := range c.AllOrders(context.Background(), 0) {
		n++
		if o != nil || !client.IsCode(err, client.CodeInvalidAPIKey) {
			t.Errorf("got %v, %v", o, err)
		}
	}
	if n != 1 {
		t.Errorf("%d values, want 1", n)
	}
}
