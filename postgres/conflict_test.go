package postgres_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/storetest"
)

// holder is a transaction of another session that holds rows or locks,
// uncommitted, while the store works.
type holder struct {
	t   *testing.T
	db  *sql.DB
	tx  *sql.Tx
	pid int
}

// hold begins a transaction on db and runs the statements in it.
func hold(t *testing.T, db *sql.DB, stmts ...string) *holder {
	t.Helper()
	tx, err := db.BeginTx(t.Context(), nil)
	must(t, err)
	t.Cleanup(func() { tx.Rollback() })
	h := &holder{t: t, db: db, tx: tx}
	must(t, tx.QueryRow(`SELECT pg_backend_pid()`).Scan(&h.pid))
	for _, s := range stmts {
		if _, err := tx.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return h
}

// waitBlocking waits until another session waits for the holder's locks.
func (h *holder) waitBlocking() {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		must(h.t, h.db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, h.pid).Scan(&n))
		if n > 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.t.Fatalf("nobody waited for the holder's transaction")
}

// TestPlaceOrderWaitsOutAnUncommittedTwin has another session hold,
// uncommitted, an order with the request's trxid or key, so that the look-ups
// cannot see it and the store's insert must wait on the unique index. Once
// that session commits, the store runs its transaction again and answers
// what the request is (a replay, FORBIDDEN, IDEMPOTENCY_KEY_REUSED), never a
// 500 and never a second order; once it rolls back, the order is placed.
func TestPlaceOrderWaitsOutAnUncommittedTwin(t *testing.T) {
	req := topupd.OrderRequest{PID: pidTopup, TrxID: "T-1", IdempotencyKey: "K"}
	cases := []struct {
		name          string
		holderAccount string
		trxid, key    string
		fingerprint   string
		commit        bool
		want          topupd.ErrorCode // "" when the request succeeds
		replay        bool
	}{
		{"the same request", "acc_a", "T-1", "K", req.Fingerprint(), true, "", true},
		{"another request under the trxid", "acc_a", "T-1", "K", "other", true, topupd.EIdempotencyReused, false},
		{"the key under another trxid", "acc_a", "T-0", "K", "other", true, topupd.EIdempotencyReused, false},
		{"the trxid of another account", "acc_b", "T-1", "T-1", "other", true, topupd.EForbidden, false},
		{"the trxid of another account, rolled back", "acc_b", "T-1", "T-1", "other", false, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dbURL := newDB(t)
			s := openStore(t, dbURL, storetest.NewVault(t))
			catalog(t, s)
			a := account(t, s, "acc_a", topupd.USD(10))
			account(t, s, "acc_b", topupd.USD(10))
			db := rawDB(t, dbURL)
			h := hold(t, db, `INSERT INTO orders (id, account_id, account_seq, trxid, idem_key, fingerprint, pid, slug, game, kind, pack_name,
				provider, quantity, amount, status, created_at, deadline_at, next_attempt_at)
				VALUES ('ord_twin', '`+c.holderAccount+`', 1000, '`+c.trxid+`', '`+c.key+`', '`+c.fingerprint+`', 'ff-1', 'ff', 'ff', 'topup', 'FF 1',
				'sim', 1, 12500, 'processing', 0, 0, 0)`)
			type result struct {
				o      topupd.Order
				replay bool
				err    error
			}
			done := make(chan result, 1)
			go func() {
				o, replay, err := place(s, context.Background(), a, req)
				done <- result{o, replay, err}
			}()
			h.waitBlocking()
			if c.commit {
				must(t, h.tx.Commit())
			} else {
				must(t, h.tx.Rollback())
			}
			r := <-done
			switch {
			case c.want != "":
				if topupd.CodeOf(r.err) != c.want {
					t.Errorf("PlaceOrder: %v, want %s", r.err, c.want)
				}
			case r.err != nil:
				t.Errorf("PlaceOrder: %v", r.err)
			case r.replay != c.replay || (c.replay && r.o.ID != "ord_twin") || (!c.replay && r.o.ID == "ord_twin"):
				t.Errorf("PlaceOrder: order %s, replay %v; want replay %v", r.o.ID, r.replay, c.replay)
			}
			charged := r.err == nil && !r.replay
			want := topupd.USD(10)
			if charged {
				want -= price
			}
			if b, err := s.Balance(t.Context(), a); err != nil || b != want {
				t.Errorf("balance %v, %v; want %v", b, err, want)
			}
			var orders int
			must(t, db.QueryRow(`SELECT count(*) FROM orders WHERE account_id = $1 AND id <> 'ord_twin'`, a).Scan(&orders))
			if orders != map[bool]int{true: 1, false: 0}[charged] {
				t.Errorf("%d orders of %s besides the twin", orders, a)
			}
		})
	}
}

// TestPlaceOrderQueuesOnTheAccount has another session lock the account row
// and credit it, uncommitted: the store's order waits for it, then sees the
// credit and spends it. Reading the balance without the lock would have
// refused the order, or, against a debit, lost an update.
func TestPlaceOrderQueuesOnTheAccount(t *testing.T) {
	t.Parallel()
	dbURL := newDB(t)
	s := openStore(t, dbURL, storetest.NewVault(t))
	catalog(t, s)
	a := account(t, s, "acc_a", 0)
	h := hold(t, rawDB(t, dbURL),
		`SELECT 1 FROM accounts WHERE id = 'acc_a' FOR NO KEY UPDATE`,
		`INSERT INTO ledger (account_id, seq, kind, amount, balance_after, reference, created_at) VALUES ('acc_a', 1, 'credit', 12500, 12500, 'wire', 0)`)
	done := make(chan error, 1)
	go func() {
		_, _, err := place(s, context.Background(), a, topupd.OrderRequest{PID: pidTopup, TrxID: "T-1"})
		done <- err
	}()
	h.waitBlocking()
	must(t, h.tx.Commit())
	if err := <-done; err != nil {
		t.Fatalf("PlaceOrder after the credit committed: %v", err)
	}
	if b, err := s.Balance(t.Context(), a); err != nil || b != 0 {
		t.Errorf("balance %v, %v; want 0", b, err)
	}
}

// TestClaimDuePassesOverLockedOrders has another session lock one due
// order: ClaimDue takes the others at once, without waiting, and the locked
// one once it is free.
func TestClaimDuePassesOverLockedOrders(t *testing.T) {
	t.Parallel()
	dbURL := newDB(t)
	s := openStore(t, dbURL, storetest.NewVault(t))
	catalog(t, s)
	a := account(t, s, "acc_a", topupd.USD(10))
	var locked topupd.Order
	for i, trxid := range []string{"T-1", "T-2", "T-3"} {
		o, _, err := place(s, t.Context(), a, topupd.OrderRequest{PID: pidTopup, TrxID: trxid})
		must(t, err)
		if i == 0 {
			locked = o
		}
	}
	h := hold(t, rawDB(t, dbURL), `SELECT 1 FROM orders WHERE trxid = 'T-1' FOR UPDATE`)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	got, err := s.ClaimDue(ctx, "w1", t0, t0.Add(time.Minute), 10)
	if err != nil {
		t.Fatalf("ClaimDue while an order is locked: %v", err)
	}
	if len(got) != 2 || got[0].ID == locked.ID || got[1].ID == locked.ID {
		t.Errorf("ClaimDue while %s is locked: %d orders %v; want the 2 others", locked.ID, len(got), got)
	}
	must(t, h.tx.Commit())
	got, err = s.ClaimDue(t.Context(), "w2", t0, t0.Add(time.Minute), 10)
	if err != nil || len(got) != 1 || got[0].ID != locked.ID {
		t.Errorf("ClaimDue once free: %v, %v; want %s", got, err, locked.ID)
	}
}
