package clienttest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// wantError checks that err is an *Error with this status, code and message.
func wantError(t *testing.T, err error, status int, code, msg string) *client.Error {
	t.Helper()
	e, ok := client.AsError(err)
	if !ok {
		t.Fatalf("error %v (%T) is not a *client.Error", err, err)
	}
	if e.StatusCode != status || e.Code != code || e.Message != msg {
		t.Errorf("error = %d %q %q, want %d %q %q", e.StatusCode, e.Code, e.Message, status, code, msg)
	}
	if !client.IsCode(err, code) || !client.IsCode(err, msg) || client.StatusCode(err) != status {
		t.Errorf("IsCode/StatusCode disagree with %#v", e)
	}
	return e
}

func TestInsufficientBalanceIsRejectedForm(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "0.5")
	c := newClient(t, s, a.Key)
	o, err := c.PlaceOrder(context.Background(), client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})
	if o != nil {
		t.Errorf("order %+v returned with the error", o)
	}
	e := wantError(t, err, http.StatusBadRequest, client.CodeInsufficientBalance, "INSUFFICIENT BALANCE")
	want := &client.Order{OrderCreated: false, Status: client.StatusCancelled, Game: "pubg", Error: "INSUFFICIENT BALANCE"}
	if diff := cmp.Diff(want, e.Order); diff != "" {
		t.Errorf("rejected form (-want +got):\n%s", diff)
	}
	if !e.Rejected() || e.Temporary() {
		t.Errorf("Rejected %v, Temporary %v", e.Rejected(), e.Temporary())
	}
	if got := err.Error(); got != "topupd: 400 INSUFFICIENT_BALANCE: INSUFFICIENT BALANCE" {
		t.Errorf("Error() = %q", got)
	}
	if bal, err := c.Balance(context.Background()); err != nil || bal != money(t, "0.5") {
		t.Errorf("balance %v, %v", bal, err)
	}
}

func TestErrorAnswers(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "100")
	other := mustAccount(t, s, "100")
	var attempts sync.Map // request URL path → count, to check nothing is retried
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		n, _ := attempts.LoadOrStore(r.Method+" "+r.URL.Path, new(int))
		*n.(*int)++
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := newClient(t, s, a.Key, client.WithHTTPClient(hc))
	ctx := context.Background()
	taken := mustOrder(t, newClient(t, s, other.Key), client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})
	mine := mustOrder(t, c, client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})

	place := func(req client.OrderRequest) error {
		_, err := c.PlaceOrder(ctx, req)
		return err
	}
	lookup := func(id string) error {
		_, err := c.Order(ctx, id)
		return err
	}
	tests := []struct {
		name   string
		err    error
		status int
		code   string
		msg    string
	}{
		{"unknown pid", place(client.OrderRequest{PID: "nope-1", TrxID: s.Trx(), UserID: "1"}), 400, client.CodeUnknownPID, "UNKNOWN PID"},
		{"missing user", place(client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx()}), 400, client.CodeInvalidRequest, "INVALID REQUEST"},
		{"bad pattern", place(client.OrderRequest{PID: topupdtest.PIDFF, TrxID: s.Trx(), UserID: "12"}), 400, client.CodeInvalidRequest, "INVALID REQUEST"},
		{"quantity on top-up", place(client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789", Quantity: 2}),
			400, client.CodeQuantityOnlyStock, "QUANTITY ONLY FOR GAMEKEY OR GIFTCARD"},
		{"quantity over max", place(client.OrderRequest{PID: topupdtest.PIDKey, TrxID: s.Trx(), Quantity: 501}), 400, client.CodeQuantityExceedsMax, "QUANTITY EXCEEDS MAX"},
		{"game disabled", place(client.OrderRequest{PID: "retired-1", TrxID: s.Trx(), UserID: "1"}), 400, client.CodeGameDisabled, "GAME DISABLED"},
		{"trxid of another account", place(client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: taken.TrxID, UserID: "5123456789"}), 403, client.CodeForbidden, "FORBIDDEN"},
		{"trxid reused", place(client.OrderRequest{PID: topupdtest.PIDFF, TrxID: mine.TrxID, UserID: "5123456789"}), 422, client.CodeIdempotencyKeyReused, "IDEMPOTENCY_KEY_REUSED"},
		{"order not found", lookup("ord_doesnotexist"), 404, client.CodeOrderNotFound, "ORDER NOT FOUND"},
		{"another account's order", lookup(taken.OrderID), 404, client.CodeOrderNotFound, "ORDER NOT FOUND"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := wantError(t, tc.err, tc.status, tc.code, tc.msg)
			if e.Order != nil {
				t.Errorf("order form %+v on a plain failure", e.Order)
			}
		})
	}
	attempts.Range(func(k, v any) bool {
		if k == "POST /orders" {
			return true // counted below
		}
		if n := *v.(*int); n != 1 {
			t.Errorf("%s sent %d times", k, n)
		}
		return true
	})
	if n, _ := attempts.Load("POST /orders"); *n.(*int) != 9 { // mine + 8 failures
		t.Errorf("POST /orders sent %d times, want 9 (no retries of 4xx)", *n.(*int))
	}
	if e, _ := client.AsError(tests[2].err); e.Detail == "" {
		t.Errorf("no detail on %v", tests[2].err)
	}
}

func TestAuthErrors(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	for _, tc := range []struct {
		key, code string
		bearer    bool
	}{
		{"tpd_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", client.CodeInvalidAPIKey, false},
		{"tpd_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", client.CodeInvalidAPIKey, true},
		{"not-a-key", client.CodeInvalidAPIKeyFormat, false},
	} {
		var opts []client.Option
		if tc.bearer {
			opts = append(opts, client.WithBearer())
		}
		_, err := newClient(t, s, tc.key, opts...).Balance(ctx)
		wantError(t, err, http.StatusUnauthorized, tc.code, tc.code)
	}
	if _, err := client.New(s.API.URL, " "); err == nil {
		t.Error("an empty key is accepted")
	}
	for _, u := range []string{"", "ftp://x", "http://", "://x", "http://h/?q=1"} {
		if _, err := client.New(u, "k"); err == nil {
			t.Errorf("base URL %q accepted", u)
		}
	}
}

func TestBothAuthHeaders(t *testing.T) {
	var mu sync.Mutex
	var seen []http.Header
	s := newTestServer(t, topupdtest.WithWrap(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Header.Clone())
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	}))
	a := mustAccount(t, s, "1")
	ctx := context.Background()
	for _, bearer := range []bool{false, true} {
		opts := []client.Option{client.WithUserAgent("shop-bot/2")}
		if bearer {
			opts = append(opts, client.WithBearer())
		}
		if bal, err := newClient(t, s, a.Key, opts...).Balance(ctx); err != nil || bal != money(t, "1") {
			t.Errorf("bearer %v: %v, %v", bearer, bal, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	type auth struct{ XAPIKey, Authorization, UserAgent string }
	var got []auth
	for _, h := range seen {
		got = append(got, auth{h.Get("X-API-Key"), h.Get("Authorization"), h.Get("User-Agent")})
	}
	want := []auth{{a.Key, "", "shop-bot/2"}, {"", "Bearer " + a.Key, "shop-bot/2"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
}

func TestMaintenanceNotRetriedWhenDisabled(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "10")
	mustSettings(t, s, map[string]any{"maintenance": true})
	var n atomic64
	c := newClient(t, s, a.Key, client.WithRetries(0), client.WithHTTPClient(n.client()))
	_, err := c.PlaceOrder(context.Background(), client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})
	e := wantError(t, err, http.StatusServiceUnavailable, client.CodeMaintenance, "MAINTENANCE")
	if !e.Temporary() || n.Load() != 1 {
		t.Errorf("Temporary %v, %d attempts", e.Temporary(), n.Load())
	}
	// GETs still work in maintenance.
	if _, err := c.Balance(context.Background()); err != nil {
		t.Error(err)
	}
}

func TestPlaceOrderNeedsTrxID(t *testing.T) {
	c, err := client.New("http://127.0.0.1:1", "k")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PlaceOrder(context.Background(), client.OrderRequest{PID: topupdtest.PIDPubg}); !errors.Is(err, client.ErrNoTrxID) {
		t.Errorf("got %v, want ErrNoTrxID", err)
	}
	if _, err := c.Order(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "order id") {
		t.Errorf("empty order id: %v", err)
	}
}
