package clienttest_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestCatalogSync: SyncProducts and SyncCatalog answer the whole catalog
// with an ETag and a serverTime; the ETag sent back is NotModified until
// something the account sees changes; from the serverTime they list only
// what changed, a pack taken off sale as a Gone row. SyncServices does the
// same for the lines.
func TestCatalogSync(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	a := mustAccount(t, s, "")
	c := newClient(t, s, a.Key)
	ctx := ctxT(t, time.Minute)
	onSale := topupdtest.ActivePacks // each subtest takes one off sale
	for _, sync := range []struct {
		name string
		call func(client.CatalogQuery) (*client.CatalogSync, error)
		pid  string
	}{
		{"products", func(q client.CatalogQuery) (*client.CatalogSync, error) { return c.SyncProducts(ctx, q) }, topupdtest.PIDPubg},
		{"catalog", func(q client.CatalogQuery) (*client.CatalogSync, error) { return c.SyncCatalog(ctx, q) }, topupdtest.PIDPubgBig},
	} {
		t.Run(sync.name, func(t *testing.T) {
			all, err := sync.call(client.CatalogQuery{})
			if err != nil {
				t.Fatal(err)
			}
			if all.NotModified || len(all.Products) != onSale || all.ETag == "" || all.ServerTime.IsZero() {
				t.Fatalf("the whole catalog: %d rows, ETag %q, serverTime %v, notModified %v", len(all.Products), all.ETag, all.ServerTime, all.NotModified)
			}
			same, err := sync.call(client.CatalogQuery{ETag: all.ETag})
			if err != nil || !same.NotModified || same.ETag != all.ETag || same.Products != nil {
				t.Fatalf("the same ETag: %+v, %v", same, err)
			}
			s.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+sync.pid, map[string]any{"priceUsd": topupdtest.USD("3.33")})
			changed, err := sync.call(client.CatalogQuery{ETag: all.ETag})
			if err != nil || changed.NotModified || changed.ETag == all.ETag || len(changed.Products) != onSale {
				t.Fatalf("after a price change: %+v, %v", changed, err)
			}
			since, err := sync.call(client.CatalogQuery{UpdatedSince: all.ServerTime})
			if err != nil {
				t.Fatal(err)
			}
			if len(since.Products) != 1 || since.Products[0].ID != sync.pid || since.Products[0].Price != money(t, "3.33") ||
				since.Products[0].Gone() || !since.ServerTime.After(all.ServerTime) && !since.ServerTime.Equal(all.ServerTime) {
				t.Fatalf("changed since %v: %+v", all.ServerTime, since)
			}
			s.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+sync.pid, map[string]any{"status": "disabled"})
			onSale--
			gone, err := sync.call(client.CatalogQuery{UpdatedSince: since.ServerTime})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]client.Product{{ID: sync.pid, Status: "disabled"}}, gone.Products); diff != "" || !gone.Products[0].Gone() {
				t.Errorf("a pack taken off sale (-want +got):\n%s", diff)
			}
		})
	}

	lines, err := c.SyncServices(ctx, "")
	if err != nil || lines.NotModified || len(lines.Services) != topupdtest.ActiveLines || lines.ETag == "" {
		t.Fatalf("the services: %+v, %v", lines, err)
	}
	if same, err := c.SyncServices(ctx, lines.ETag); err != nil || !same.NotModified || same.Services != nil || same.ETag != lines.ETag {
		t.Fatalf("the services' own ETag: %+v, %v", same, err)
	}
	s.AdminOK(http.StatusOK, "PATCH", "/admin/services/valorant", map[string]any{"status": "disabled"})
	if after, err := c.SyncServices(ctx, lines.ETag); err != nil || after.NotModified || len(after.Services) != topupdtest.ActiveLines-1 {
		t.Fatalf("after a line went off sale: %+v, %v", after, err)
	}
}

// TestMaxPrice: an order above MaxPriceUSD is rejected with
// PRICE_ABOVE_MAX and what it would cost, charging nothing; at or above
// the price it is placed.
func TestMaxPrice(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	a := mustAccount(t, s, "5")
	c := newClient(t, s, a.Key)
	ctx := ctxT(t, time.Minute)
	lowest, price := money(t, "0.88"), money(t, topupdtest.PricePubg)
	_, err := c.PlaceOrder(ctx, client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789", MaxPriceUSD: &lowest})
	e, ok := client.AsError(err)
	if !ok || e.Code != client.CodePriceAboveMax || e.StatusCode != 400 || !e.Rejected() || e.Order.AmountUSD != price {
		t.Fatalf("above the maximum: %v (%+v)", err, e)
	}
	if got := s.Balance(a); got != "5" {
		t.Errorf("balance after a rejection: %s", got)
	}
	o, err := c.PlaceOrder(ctx, client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789", MaxPriceUSD: &price})
	if err != nil || o.AmountUSD != price {
		t.Fatalf("at the maximum: %+v, %v", o, err)
	}
}

// TestStatement: the account's statement lists its credit, charge and
// closing balance; the CSV is the same; a lookup by trxid finds the
// order; a period over 31 days is INVALID_REQUEST.
func TestStatement(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	a := mustAccount(t, s, "5")
	c := newClient(t, s, a.Key)
	ctx := ctxT(t, time.Minute)
	trx := s.Trx()
	o, err := c.PlaceOrder(ctx, client.OrderRequest{PID: topupdtest.PIDKey, TrxID: trx, Quantity: 1})
	if err != nil {
		t.Fatal(err)
	}
	from, to := s.Now().Add(-time.Hour), s.Now().Add(time.Hour)
	st, err := c.Statement(ctx, from, to)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Kind           string
		Amount, After  client.Money
		OrderID, TrxID string
	}
	var got []row
	for _, e := range st.Entries {
		got = append(got, row{e.Kind, e.AmountUSD, e.BalanceAfterUSD, e.OrderID, e.TrxID})
	}
	want := []row{{"credit", money(t, "5"), money(t, "5"), "", ""},
		{"charge", -money(t, topupdtest.PriceKey), money(t, "3.8"), o.OrderID, trx}}
	if diff := cmp.Diff(want, got); diff != "" || st.OpeningBalanceUSD != 0 || st.ClosingBalanceUSD != money(t, "3.8") || st.AccountID != "" {
		t.Errorf("the statement (-want +got):\n%s\nopening %v closing %v account %q", diff, st.OpeningBalanceUSD, st.ClosingBalanceUSD, st.AccountID)
	}
	csv, err := c.StatementCSV(ctx, from, to)
	if err != nil || !bytes.HasPrefix(csv, []byte("at,kind,amountUsd,balanceAfterUsd")) || !bytes.Contains(csv, []byte(o.OrderID)) {
		t.Errorf("the CSV: %q, %v", csv, err)
	}
	found, err := c.History(ctx, client.HistoryQuery{TrxID: trx})
	if err != nil || len(found) != 1 || found[0].OrderID != o.OrderID {
		t.Errorf("the order of trxid %s: %+v, %v", trx, found, err)
	}
	if none, err := c.History(ctx, client.HistoryQuery{TrxID: "no-such-trx"}); err != nil || len(none) != 0 {
		t.Errorf("no order of a trxid: %+v, %v", none, err)
	}
	if _, err := c.Statement(ctx, from, from.Add(32*24*time.Hour)); !client.IsCode(err, client.CodeInvalidRequest) {
		t.Errorf("32 days: %v", err)
	}
}
