package loadgen

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// mustAdmin is an admin client of base that retries nothing.
func mustAdmin(t *testing.T, base, token string) *client.Admin {
	t.Helper()
	a, err := client.NewAdmin(base, token, client.WithRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// fakeBooks is an admin API over books the test writes by hand, so that the
// checker can be fed books that break an invariant.
type fakeBooks struct {
	mu       sync.Mutex
	balances map[string]client.Money
	ledgers  map[string][]client.LedgerEntry // oldest first here; served newest first
	orders   map[string]*client.AdminOrder
	audit    *client.Audit // nil: GET /admin/audit is 404
	seq      int
}

func money(t *testing.T, s string) client.Money {
	t.Helper()
	m, err := client.ParseMoney(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func newFakeBooks() *fakeBooks {
	return &fakeBooks{balances: map[string]client.Money{}, ledgers: map[string][]client.LedgerEntry{}, orders: map[string]*client.AdminOrder{}}
}

// entry appends a ledger entry with a correct balance after, and moves the balance.
func (f *fakeBooks) entry(acct, kind string, amount client.Money, order string) {
	f.seq++
	bal := f.balances[acct] + amount
	f.ledgers[acct] = append(f.ledgers[acct], client.LedgerEntry{ID: "led_" + itoa(f.seq), Kind: kind, AmountUSD: amount, BalanceAfterUSD: bal, OrderID: order})
	f.balances[acct] = bal
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// order records an order and its charge (and refund when refunded).
// adminOrder is o as the admin API shows it, of account.
func adminOrder(account string, o client.Order) client.AdminOrder {
	return client.AdminOrder{Order: o, OrderAdmin: client.OrderAdmin{AccountID: account}}
}

func (f *fakeBooks) order(o client.AdminOrder) {
	f.orders[o.OrderID] = &o
	f.entry(o.AccountID, "charge", -o.AmountUSD, o.OrderID)
	if o.Refunded {
		f.entry(o.AccountID, "refund", o.AmountUSD, o.OrderID)
	}
}

func (f *fakeBooks) handler() http.Handler {
	mux := http.NewServeMux()
	write := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	notFound := func(w http.ResponseWriter) {
		write(w, 404, map[string]any{"success": false, "code": "NOT_FOUND", "error": "NOT FOUND"})
	}
	mux.HandleFunc("GET /admin/accounts/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		id := r.PathValue("id")
		bal, ok := f.balances[id]
		if !ok {
			notFound(w)
			return
		}
		write(w, 200, client.AdminAccount{ID: id, BalanceUSD: bal})
	})
	mux.HandleFunc("GET /admin/accounts/{id}/ledger", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		l := f.ledgers[r.PathValue("id")]
		out := make([]client.LedgerEntry, len(l))
		for i := range l {
			out[i] = l[len(l)-1-i]
		}
		write(w, 200, map[string]any{"success": true, "entries": out})
	})
	mux.HandleFunc("GET /admin/orders", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		out := []client.AdminOrder{}
		for _, o := range f.orders {
			if s := r.URL.Query().Get("status"); s == "" || s == string(o.Status) {
				out = append(out, *o)
			}
		}
		write(w, 200, map[string]any{"success": true, "orders": out})
	})
	mux.HandleFunc("GET /admin/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		o, ok := f.orders[r.PathValue("id")]
		if !ok {
			notFound(w)
			return
		}
		masked := *o // as the admin API shows an order: its codes masked
		masked.Codes = topupd.MaskCodes(o.Codes)
		write(w, 200, masked)
	})
	mux.HandleFunc("GET /admin/orders/{id}/codes", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		o, ok := f.orders[r.PathValue("id")]
		if !ok {
			notFound(w)
			return
		}
		write(w, 200, map[string]any{"success": true, "orderId": o.OrderID, "codes": o.Codes})
	})
	mux.HandleFunc("GET /admin/services", func(w http.ResponseWriter, r *http.Request) {
		write(w, 200, map[string]any{"services": []client.Line{{Slug: "topup", Kind: "topup"}, {Slug: "keys", Kind: "gamekey"}}})
	})
	mux.HandleFunc("GET /admin/products", func(w http.ResponseWriter, r *http.Request) {
		write(w, 200, map[string]any{"products": []client.Pack{{PID: "uc60", Slug: "topup"}, {PID: "key60", Slug: "keys"}}})
	})
	mux.HandleFunc("GET /admin/audit", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.audit == nil {
			notFound(w)
			return
		}
		write(w, 200, f.audit)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			write(w, 401, map[string]any{"success": false, "code": "UNAUTHORIZED"})
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// healthyBooks are two accounts with credits, top-ups, a refunded
// cancellation and key orders, all in order.
func healthyBooks(t *testing.T) *fakeBooks {
	f := newFakeBooks()
	for _, a := range []string{"acc_a", "acc_b"} {
		f.balances[a] = 0
		f.entry(a, "credit", money(t, "100"), "")
	}
	f.order(adminOrder("acc_a", client.Order{OrderID: "ord_1", TrxID: "t1", Status: "completed", PID: "uc60", Quantity: 1, AmountUSD: money(t, "0.89")}))
	f.order(adminOrder("acc_a", client.Order{OrderID: "ord_2", TrxID: "t2", Status: "completed", PID: "key60", Quantity: 2, AmountUSD: money(t, "1.8"), Codes: []string{"K-1", "K-2"}}))
	f.order(adminOrder("acc_a", client.Order{OrderID: "ord_3", TrxID: "t3", Status: "cancelled", PID: "uc60", Quantity: 1, AmountUSD: money(t, "0.89"), Error: "INVALID PLAYER", Refunded: true}))
	f.order(adminOrder("acc_b", client.Order{OrderID: "ord_4", TrxID: "t4", Status: "completed", PID: "key60", Quantity: 1, AmountUSD: money(t, "0.9"), Codes: []string{"K-3"}}))
	f.order(adminOrder("acc_b", client.Order{OrderID: "ord_5", TrxID: "t5", Status: "cancelled", PID: "uc60", Quantity: 1, AmountUSD: money(t, "0.89"), Error: "CANCELLED BY OPERATOR", Refunded: false}))
	return f
}

func runChecker(t *testing.T, f *fakeBooks, known ...KnownOrder) *CheckReport {
	t.Helper()
	srv := httptest.NewServer(f.handler())
	t.Cleanup(srv.Close)
	c := &Checker{Admin: mustAdmin(t, srv.URL, "tok"), Accounts: []string{"acc_a", "acc_b"}, Known: known, WaitFinal: 300 * time.Millisecond}
	rep, err := c.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func findCheck(rep *CheckReport, name string) *Check {
	for i := range rep.Checks {
		if rep.Checks[i].Name == name {
			return &rep.Checks[i]
		}
	}
	return nil
}

// wantOnlyFailure asserts that the report failed exactly the named check.
func wantOnlyFailure(t *testing.T, rep *CheckReport, name, example string) {
	t.Helper()
	if rep.OK {
		t.Fatalf("the checker passed broken books: %+v", rep.Checks)
	}
	for _, c := range rep.Checks {
		if c.Name == name {
			if c.OK || c.Violations == 0 {
				t.Errorf("%s passed, want it to fail", name)
			}
			if example != "" && !strings.Contains(strings.Join(c.Examples, "|"), example) {
				t.Errorf("%s examples %q do not mention %q", name, c.Examples, example)
			}
		} else if !c.OK && !c.Skipped {
			t.Errorf("%s failed too: %v", c.Name, c.Examples)
		}
	}
	if findCheck(rep, name) == nil {
		t.Errorf("no check %s in %+v", name, rep.Checks)
	}
}

func TestCheckerPassesHealthyBooks(t *testing.T) {
	f := healthyBooks(t)
	rep := runChecker(t, f, KnownOrder{OrderID: "ord_2", AccountID: "acc_a", TrxID: "t2", Status: "completed", Codes: []string{"K-2", "K-1"}})
	if !rep.OK {
		t.Fatalf("healthy books failed: %v", rep.Failed())
	}
	if rep.Orders != 5 || rep.Codes != 3 || rep.Accounts != 2 || rep.LedgerEntries != 8 {
		t.Errorf("counted %d orders, %d codes, %d accounts, %d entries; want 5, 3, 2, 8", rep.Orders, rep.Codes, rep.Accounts, rep.LedgerEntries)
	}
	if rep.AuditRan || findCheck(rep, "audit:*") == nil || !findCheck(rep, "audit:*").Skipped {
		t.Errorf("a 404 audit should be skipped with a note: %+v", rep.Checks)
	}
	if len(rep.Notes) == 0 || !strings.Contains(strings.Join(rep.Notes, " "), "404") {
		t.Errorf("no note about the missing audit: %q", rep.Notes)
	}
	for _, name := range checkNames {
		if findCheck(rep, name) == nil {
			t.Errorf("check %s not reported", name)
		}
	}
}

func TestCheckerFailsBrokenBooks(t *testing.T) {
	cases := []struct {
		name, check, example string
		known                []KnownOrder
		breakIt              func(t *testing.T, f *fakeBooks)
	}{
		{"ledger not summing to the balance", CheckLedgerSums, "acc_a", nil, func(t *testing.T, f *fakeBooks) {
			f.balances["acc_a"] += money(t, "0.01")
		}},
		{"broken chain", CheckLedgerSums, "led_", nil, func(t *testing.T, f *fakeBooks) {
			// The newest entry still ends on the balance, but an older one lies.
			f.ledgers["acc_b"][1].BalanceAfterUSD += money(t, "5")
		}},
		{"negative balance", CheckNoNegative, "acc_b", nil, func(t *testing.T, f *fakeBooks) {
			f.entry("acc_b", "credit", money(t, "-200"), "")
		}},
		{"code delivered twice", CheckCodeOnce, "K-1", nil, func(t *testing.T, f *fakeBooks) {
			f.order(adminOrder("acc_b", client.Order{OrderID: "ord_9", TrxID: "t9", Status: "completed", PID: "key60", Quantity: 1,
				AmountUSD: money(t, "0.9"), Codes: []string{"K-1"}}))
		}},
		{"order charged twice", CheckOneCharge, "ord_1", nil, func(t *testing.T, f *fakeBooks) {
			f.entry("acc_a", "charge", money(t, "-0.89"), "ord_1")
		}},
		{"known order with no charge", CheckOneCharge, "ord_7", []KnownOrder{{OrderID: "ord_7", AccountID: "acc_a", TrxID: "t7", Status: "completed"}},
			func(t *testing.T, f *fakeBooks) {
				o := adminOrder("acc_a", client.Order{OrderID: "ord_7", TrxID: "t7", Status: "completed", PID: "uc60", Quantity: 1, AmountUSD: money(t, "0.89")})
				f.orders["ord_7"] = &o
			}},
		{"refunded without a refund entry", CheckRefundedOnce, "ord_5", nil, func(t *testing.T, f *fakeBooks) {
			f.orders["ord_5"].Refunded = true
		}},
		{"refunded twice", CheckRefundedOnce, "ord_3", nil, func(t *testing.T, f *fakeBooks) {
			f.entry("acc_a", "refund", money(t, "0.89"), "ord_3")
		}},
		{"refund of a completed order", CheckRefundCancel, "ord_1", nil, func(t *testing.T, f *fakeBooks) {
			f.entry("acc_a", "refund", money(t, "0.89"), "ord_1")
			f.orders["ord_1"].Refunded = true
		}},
		{"key order short of codes", CheckKeyCodes, "ord_2", nil, func(t *testing.T, f *fakeBooks) {
			f.orders["ord_2"].Codes = []string{"K-1"}
		}},
		{"order still processing", CheckOrdersFinal, "ord_6", nil, func(t *testing.T, f *fakeBooks) {
			f.order(adminOrder("acc_b", client.Order{OrderID: "ord_6", TrxID: "t6", Status: "processing", PID: "uc60", Quantity: 1, AmountUSD: money(t, "0.89")}))
		}},
		{"confirmed order lost", CheckConfirmedKept, "ord_8", []KnownOrder{{OrderID: "ord_8", AccountID: "acc_a", TrxID: "t8", Status: "completed"}}, nil},
		{"codes the client got differ", CheckConfirmedKept, "ord_4", []KnownOrder{{OrderID: "ord_4", AccountID: "acc_b", TrxID: "t4", Status: "completed", Codes: []string{"K-X"}}}, nil},
		{"final status changed", CheckConfirmedKept, "ord_1", []KnownOrder{{OrderID: "ord_1", AccountID: "acc_a", TrxID: "t1", Status: "cancelled"}}, nil},
		{"server audit fails", CheckAuditPrefix + "orders-final", "ord_x", nil, func(t *testing.T, f *fakeBooks) {
			f.audit = &client.Audit{Success: false, Checks: []client.AuditCheck{{Name: "ledger-sums-to-balance", OK: true, Examples: []string{}},
				{Name: "orders-final", OK: false, Violations: 1, Examples: []string{"ord_x"}}}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := healthyBooks(t)
			if tc.breakIt != nil {
				tc.breakIt(t, f)
			}
			rep := runChecker(t, f, tc.known...)
			wantOnlyFailure(t, rep, tc.check, tc.example)
			if len(rep.Failed()) == 0 {
				t.Error("Failed() lists nothing")
			}
		})
	}
}

func TestCheckerRunsTheServerAudit(t *testing.T) {
	f := healthyBooks(t)
	f.audit = &client.Audit{Success: true, Checks: []client.AuditCheck{{Name: "ledger-sums-to-balance", OK: true}, {Name: "code-delivered-once", OK: true}}}
	rep := runChecker(t, f)
	if !rep.OK || !rep.AuditRan {
		t.Fatalf("ok %v, audit ran %v: %v", rep.OK, rep.AuditRan, rep.Failed())
	}
	if c := findCheck(rep, "audit:code-delivered-once"); c == nil || !c.OK {
		t.Errorf("audit checks not reported: %+v", rep.Checks)
	}
}

func TestCheckerWaitsForProcessingOrders(t *testing.T) {
	f := healthyBooks(t)
	f.order(adminOrder("acc_b", client.Order{OrderID: "ord_6", TrxID: "t6", Status: "processing", PID: "uc60", Quantity: 1, AmountUSD: money(t, "0.89")}))
	go func() {
		time.Sleep(400 * time.Millisecond)
		f.mu.Lock()
		f.orders["ord_6"].Status = "completed"
		f.mu.Unlock()
	}()
	srv := httptest.NewServer(f.handler())
	defer srv.Close()
	c := &Checker{Admin: mustAdmin(t, srv.URL, "tok"), Accounts: []string{"acc_a", "acc_b"}, WaitFinal: 10 * time.Second}
	rep, err := c.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK {
		t.Fatalf("failed: %v", rep.Failed())
	}
	if !strings.Contains(strings.Join(rep.Notes, " "), "waited") {
		t.Errorf("no note about the wait: %q", rep.Notes)
	}
}

func TestCheckerNeedsTheAdminAPI(t *testing.T) {
	srv := httptest.NewServer(healthyBooks(t).handler())
	defer srv.Close()
	c := &Checker{Admin: mustAdmin(t, srv.URL, "wrong"), Accounts: []string{"acc_a"}}
	if _, err := c.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("a refused token should be an error, got %v", err)
	}
}
