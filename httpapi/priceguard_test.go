package httpapi_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// priceRejection is what a PRICE_ABOVE_MAX answer shows.
type priceRejection struct {
	Status       int
	OrderCreated any
	OrderStatus  string
	Game         string
	Error        string
	Code         string
	AmountUsd    string
}

func priceRejectionOf(r topupdtest.Reply) priceRejection {
	return priceRejection{r.Status, r.Body["orderCreated"], r.Str("status"), r.Str("game"), r.Str("error"), r.Str("code"), r.Num("amountUsd")}
}

// TestMaxPrice, on SQLite and PostgreSQL: an order that would cost more
// than maxPriceUsd is rejected at submit, saying what it would cost, with
// nothing charged; one that costs exactly that, or less, is placed; the
// quantity counts; a replay answers the earlier order whatever maxPriceUsd
// it carries; and maxPriceUsd is read as strictly as every amount.
func TestMaxPrice(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		a := h.NewAccount("100", nil)

		t.Run("above", func(t *testing.T) {
			before := h.Snapshot(a)
			trx := h.Trx()
			r := h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5123", "maxPriceUsd": 0.88})
			want := priceRejection{400, false, "cancelled", "pubg", "PRICE ABOVE MAX", "PRICE_ABOVE_MAX", "0.89"}
			if diff := cmp.Diff(want, priceRejectionOf(r)); diff != "" {
				t.Errorf("answer (-want +got):\n%s\nbody: %s", diff, r.Raw)
			}
			wantRetryable(t, r)
			if r.Has("orderId") {
				t.Errorf("a rejected order carries an orderId: %s", r.Raw)
			}
			if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
				t.Errorf("the rejected order moved something (-before +after):\n%s", diff)
			}
			// No order holds the trxid: the same trxid at the price is placed.
			h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5123", "maxPriceUsd": 0.89})
		})
		t.Run("quantity counts", func(t *testing.T) {
			before := h.Snapshot(a)
			r := h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 3, "maxPriceUsd": 3.5999})
			want := priceRejection{400, false, "cancelled", "gamekey", "PRICE ABOVE MAX", "PRICE_ABOVE_MAX", "3.6"}
			if diff := cmp.Diff(want, priceRejectionOf(r)); diff != "" {
				t.Errorf("answer (-want +got):\n%s\nbody: %s", diff, r.Raw)
			}
			if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
				t.Errorf("the rejected order moved something (-before +after):\n%s", diff)
			}
			if got := h.Place(a, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 3, "maxPriceUsd": topupdtest.USD("3.6")}); got.Num("amountUsd") != "3.6" {
				t.Errorf("placed at the maximum: %s", got)
			}
		})
		t.Run("below, null or absent", func(t *testing.T) {
			for _, max := range []any{100, nil, topupdtest.USD("0.8900")} {
				if r := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123", "maxPriceUsd": max}); r.Num("amountUsd") != "0.89" {
					t.Errorf("maxPriceUsd %v: %s", max, r)
				}
			}
		})
		t.Run("a replay ignores it", func(t *testing.T) {
			trx := h.Trx()
			first := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5123", "maxPriceUsd": 5})
			id := first.Str("orderId")
			h.WaitOrder(a, id)
			for _, max := range []any{0, 0.01, nil, 1000} {
				body := order{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5123"}
				if max != nil {
					body["maxPriceUsd"] = max
				}
				r := h.Do("POST", "/orders", a.Key, body)
				if r.Status != 200 || r.Str("orderId") != id || r.Body["idempotentReplay"] != true {
					t.Errorf("replay with maxPriceUsd %v: %s", max, r)
				}
			}
			keyed := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "idempotencyKey": "guard-" + trx, "userId": "5123"})
			r := h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "idempotencyKey": "guard-" + trx, "userId": "5123",
				"maxPriceUsd": 0.01})
			if r.Status != 200 || r.Str("orderId") != keyed.Str("orderId") || r.Body["idempotentReplay"] != true {
				t.Errorf("replay by idempotency key with a lower maxPriceUsd: %s", r)
			}
		})
		t.Run("strict", func(t *testing.T) {
			for _, raw := range []string{`"1"`, `"0.89"`, `true`, `{}`, `[]`, `-0.01`, `-1`, `0.00001`, `1e400`, `0.890001`} {
				before := h.Snapshot(a)
				body := `{"pid":"` + topupdtest.PIDPubg + `","trxid":"` + h.Trx() + `","userId":"5123","maxPriceUsd":` + raw + `}`
				r := h.Do("POST", "/orders", a.Key, topupdtest.RawBody(body))
				wantFailure(t, r, 400, "INVALID_BODY", "INVALID BODY")
				if !strings.Contains(r.Str("detail"), "maxPriceUsd") {
					t.Errorf("maxPriceUsd %s: the detail does not name the field: %s", raw, r)
				}
				if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
					t.Errorf("maxPriceUsd %s moved something (-before +after):\n%s", raw, diff)
				}
			}
		})
	})
}

// racingStore signals when the reseller API hands an order to the store.
type racingStore struct {
	topupd.Store
	trxid   string
	entered chan struct{}
}

func (s *racingStore) PlaceOrder(ctx context.Context, p topupd.PlaceOrder) (topupd.Order, bool, error) {
	if p.Request.TrxID == s.trxid {
		close(s.entered)
	}
	return s.Store.PlaceOrder(ctx, p)
}

// TestMaxPriceRace, on SQLite and PostgreSQL: a price change that commits
// after the order reached the store, yet before the order's transaction
// could lock the account, is the price compared and the price charged. The
// test holds the lock the order's transaction needs (the account's row on
// PostgreSQL, the write lock on SQLite), lets the order in (on PostgreSQL,
// until its statement waits for the lock), changes the price under that
// lock and commits: a price read anywhere before the order's own
// transaction would be the old one, and so would one kept in memory at
// the terms version the waiting statement's own snapshot reads. Raised past the maximum,
// the order is rejected for the new price; lowered under it, the order is
// placed and charged the new price.
func TestMaxPriceRace(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		store := &racingStore{}
		h := topupdtest.New(t, append(db, topupdtest.WithClock(topupdtest.NewClock()),
			topupdtest.WithStore(func(s topupd.Store) topupd.Store { store.Store = s; return store }))...)
		h.LoadCatalog()
		a := h.NewAccount("100", nil)
		h.Balance(a) // the key's use is recorded: the order's call writes nothing before the store
		pg := strings.HasPrefix(h.DB, "postgres")
		driver, dsn := "sqlite", "file:"+h.DB+"?_pragma=busy_timeout(10000)"
		if pg {
			driver, dsn = "pgx", h.DB
		}
		side, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer side.Close()

		for _, tc := range []struct {
			name          string
			newPrice, max string
			want          string // the amount placed, or "" for PRICE_ABOVE_MAX
		}{
			{"raised past the maximum", "1.5", "1", ""},
			{"lowered under the maximum", "0.4", "0.5", "0.4"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				// An order first, so that what orders read of the catalog
				// is kept at today's prices: the racing order must not
				// take them from there.
				if r := h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"}); r.Status != 200 {
					t.Fatalf("the first order: %s", r)
				}
				ctx := context.Background()
				conn, err := side.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				lock := "BEGIN IMMEDIATE"
				if pg {
					lock = "BEGIN"
				}
				if _, err := conn.ExecContext(ctx, lock); err != nil {
					t.Fatal(err)
				}
				defer conn.ExecContext(ctx, "ROLLBACK")
				if pg {
					if _, err := conn.ExecContext(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, a.ID); err != nil {
						t.Fatal(err)
					}
				}
				store.trxid, store.entered = h.Trx(), make(chan struct{})
				answer := make(chan topupdtest.Reply, 1)
				go func() {
					r, err := h.Call(h.API.URL, "POST", "/orders", topupdtest.Headers{"X-API-Key": a.Key},
						order{"pid": topupdtest.PIDPubg, "trxid": store.trxid, "userId": "5123", "maxPriceUsd": topupdtest.USD(tc.max)})
					if err != nil {
						t.Error(err)
					}
					answer <- r
				}()
				select {
				case <-store.entered:
				case r := <-answer:
					t.Fatalf("answered before the order reached the store: %s", r)
				}
				if pg { // the order's statement waits for the lock: it began before the price changed
					waitForLockWaiter(t, conn)
				}
				// The change as the store writes it (PutPack): the price, and
				// the terms version that what orders keep in memory keys on.
				price := topupdtest.ParseUSD(t, tc.newPrice)
				if _, err := conn.ExecContext(ctx, `UPDATE packs SET price = $1 WHERE pid = $2`, int64(price), topupdtest.PIDPubg); err != nil {
					t.Fatal(err)
				}
				if _, err := conn.ExecContext(ctx, `UPDATE terms_version SET version = version + 1`); err != nil {
					t.Fatal(err)
				}
				if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
					t.Fatal(err)
				}
				r := <-answer
				if tc.want == "" {
					want := priceRejection{400, false, "cancelled", "pubg", "PRICE ABOVE MAX", "PRICE_ABOVE_MAX", tc.newPrice}
					if diff := cmp.Diff(want, priceRejectionOf(r)); diff != "" {
						t.Errorf("answer (-want +got):\n%s\nbody: %s", diff, r.Raw)
					}
					return
				}
				if r.Status != 200 || r.Num("amountUsd") != tc.want {
					t.Errorf("got %s, want an order charged %s", r, tc.want)
				}
				if e := h.Ledger(a)[0]; e.Kind != "charge" || e.AmountUsd != "-"+tc.want || e.OrderID != r.Str("orderId") {
					t.Errorf("newest ledger entry %+v, want the order's charge of %s", e, tc.want)
				}
			})
		}
	})
}

// waitForLockWaiter waits until a statement of the test's own database
// waits for a lock (the order's, for the account's row), failing the test
// after 30 s.
func waitForLockWaiter(t *testing.T, conn *sql.Conn) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var n int
		err := conn.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the order's transaction never waited for the account's lock")
		}
	}
}
