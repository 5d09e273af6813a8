package client_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd/client"
)

func TestOrderJSONRoundTrip(t *testing.T) {
	// Ids may come as numbers, amounts as numeric strings; unknown fields are ignored.
	const in = `{"orderCreated":true,"orderId":"ord_1","trxid":123,"status":"cancelled","game":"pubg","pid":"pubg-60",` +
		`"packName":"60 UC","quantity":1,"amountUsd":"0.8900","durationSec":12.7,"userId":5123456789,"zoneId":null,` +
		`"error":"INVALID PLAYER","refunded":true,"createdAt":"2025-03-01T12:00:00.5Z","extra":{"x":1}}`
	var o client.Order
	if err := o.UnmarshalJSON([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if o.TrxID != "123" || o.UserID != "5123456789" || o.AmountUSD != 8_900 || o.DurationSec != 12 ||
		!o.Refunded || !o.Final() || o.CreatedAt.Nanosecond() != 5e8 {
		t.Errorf("decoded %+v", o)
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var back client.Order
	if err := back.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(o, back) {
		t.Errorf("round trip through %s:\nwant %+v\n got %+v", b, o, back)
	}
	if !strings.Contains(string(b), `"amountUsd":0.89`) {
		t.Errorf("marshalled %s", b)
	}
}

// TestStandInRetry: a placement answered 503 and then 429
// DUPLICATE_IN_FLIGHT is sent again until it lands, and buys once.
func TestStandInRetry(t *testing.T) {
	api := newStandIn("10")
	defer api.Close()
	api.Fail = []string{
		`503 {"success":false,"code":"MAINTENANCE","error":"MAINTENANCE"}`,
		`429 {"success":false,"code":"DUPLICATE_IN_FLIGHT","error":"DUPLICATE_IN_FLIGHT"}`,
	}
	var calls atomic.Int64
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
	c, err := client.New(api.URL, standInKey, client.WithHTTPClient(hc),
		client.WithSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() }))
	if err != nil {
		t.Fatal(err)
	}
	o, err := c.PlaceOrder(context.Background(), client.OrderRequest{PID: "pubg-60", TrxID: "t-1", UserID: "5123456789"})
	if err != nil || o.IdempotentReplay || o.AmountUSD != 8_900 {
		t.Fatalf("PlaceOrder: %+v, %v", o, err)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d attempts, want 3", n)
	}
	if bal, err := c.Balance(context.Background()); err != nil || bal.String() != "9.11" {
		t.Errorf("balance %v, %v; want 9.11", bal, err)
	}
}

// TestStandInRefusals: a wrong key is 401, never retried; an order with
// no trxid is refused before it is sent.
func TestStandInRefusals(t *testing.T) {
	api := newStandIn("10")
	defer api.Close()
	c, err := client.New(api.URL, "tpd_live_wrong")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Balance(context.Background())
	if e, ok := client.AsError(err); !ok || e.StatusCode != 401 || e.Code != client.CodeInvalidAPIKey || e.Temporary() {
		t.Errorf("wrong key: %v", err)
	}
	if _, err := c.PlaceOrder(context.Background(), client.OrderRequest{PID: "pubg-60"}); err != client.ErrNoTrxID {
		t.Errorf("no trxid: %v, want ErrNoTrxID", err)
	}
}

// roundTripFunc is an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
