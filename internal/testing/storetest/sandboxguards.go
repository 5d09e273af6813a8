package storetest

import (
	"database/sql"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// SandboxGuards shows, on a plain connection to a store's database, that
// the schema keeps an account's sandbox apart from the live books whatever
// the code does: a sandbox order never holds a code (so never a live one),
// never moves live money, never becomes a live order or another account's,
// never enters the sales roll-up; a key is never a sandbox's own, and a
// sandbox is named after its live account and stays one. s is the store
// on db; accountID a live account with a balance; keyPID a pack that draws
// stock, with a code available; topupPID a top-up pack.
func SandboxGuards(t *testing.T, s topupd.Store, db *sql.DB, accountID, keyPID, topupPID string) {
	t.Helper()
	ctx := t.Context()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	sandbox := topupd.SandboxID(accountID)
	durations := func() map[string]int64 {
		t.Helper()
		rows, err := s.Durations(ctx, now.Add(-48*time.Hour), now.Add(48*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int64{}
		for _, r := range rows {
			m[r.Slug] = r.Orders
		}
		return m
	}
	liveDurations := durations()
	k := topupd.APIKey{ID: "key_sandbox_guards", AccountID: accountID, Prefix: "tpd_test", CreatedAt: now, Sandbox: true}
	if err := s.AddKey(ctx, nil, k, topupd.KeyHash{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	place := func(trxid, pid string) topupd.Order {
		t.Helper()
		o, _, err := s.PlaceOrder(ctx, topupd.PlaceOrder{AccountID: accountID, Sandbox: true, Request: topupd.OrderRequest{PID: pid, TrxID: trxid},
			Now: now, Deadline: time.Hour, LeaseOwner: "guards", LeaseUntil: now.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if !o.Sandbox || o.AccountID != sandbox {
			t.Fatalf("a sandbox order: %+v, want one of %s", o, sandbox)
		}
		return o
	}
	keyOrder := place("SANDBOX-KEY", keyPID)
	processing := place("SANDBOX-TOPUP", topupPID)
	var code int64
	if err := db.QueryRow(`SELECT MIN(id) FROM codes WHERE pid = $1 AND order_seq IS NULL`, keyPID).Scan(&code); err != nil {
		t.Fatalf("an available code of %s: %v", keyPID, err)
	}
	var liveSeq int64
	var liveBal topupd.Money
	if err := db.QueryRow(`SELECT seq, balance_after FROM ledger WHERE account_id = $1 ORDER BY seq DESC LIMIT 1`, accountID).Scan(&liveSeq, &liveBal); err != nil {
		t.Fatal(err)
	}
	entry := `INSERT INTO ledger (account_id, seq, kind, amount, balance_after, order_seq, reference, created_at) VALUES ($1, $2, $3, $4, $5, $6, NULL, 0)`
	const (
		noCode   = "a sandbox order is given no code"
		ownBooks = "an order entry must belong to the order's account"
		fixed    = "never changes account or books"
		named    = "named after the live account"
	)
	guards := []Guard{
		Refused("sandbox: a live code drawn by a sandbox order", `UPDATE codes SET order_seq = $1 WHERE id = $2`, []any{keyOrder.Seq, code}, noCode),
		Refused("sandbox: a code delivered to a sandbox order", `INSERT INTO codes (pid, fingerprint, code_fp, sealed, order_seq, added_at) VALUES ($1, $2, $3, $4, $5, 0)`,
			[]any{topupPID, []byte{9}, []byte{9}, []byte{9}, processing.Seq}, noCode),
		Refused("sandbox: a sandbox order charged to the live balance", entry,
			[]any{accountID, liveSeq + 1, "charge", -int64(processing.Amount), int64(liveBal - processing.Amount), processing.Seq}, ownBooks),
		Refused("sandbox: a sandbox order refunded to the live balance", entry,
			[]any{accountID, liveSeq + 1, "refund", int64(keyOrder.Amount), int64(liveBal + keyOrder.Amount), keyOrder.Seq}, ownBooks),
		Refused("sandbox: a sandbox order made live", `UPDATE orders SET sandbox = 0 WHERE seq = $1`, []any{processing.Seq}, fixed),
		Refused("sandbox: a sandbox order moved to the live account", `UPDATE orders SET account_id = $1 WHERE seq = $2`, []any{accountID, processing.Seq}, fixed),
		Refused("sandbox: a sales roll-up row of a sandbox", `INSERT INTO sales_daily (day, account_id, pid, slug, provider, orders, charged) VALUES (1, $1, $2, 's', 'sim', 1, 1)`,
			[]any{sandbox, topupPID}, "holds live orders alone"),
		Refused("sandbox: a key of the sandbox's own", `INSERT INTO api_keys (id, account_id, hash, created_at) VALUES ('key_guard', $1, $2, 0)`,
			[]any{sandbox, make([]byte, 32)}, "a key belongs to a live account"),
		Refused("sandbox: a sandbox key made live", `UPDATE api_keys SET sandbox = 0 WHERE id = $1`, []any{k.ID}, fixed),
		Refused("sandbox: a sandbox named after another account", `INSERT INTO accounts (id, name, created_at, sandbox_of) VALUES ('acc_other~sandbox', 'x', 0, $1)`,
			[]any{accountID}, named),
		Refused("sandbox: a live account named as a sandbox", `INSERT INTO accounts (id, name, created_at) VALUES ('acc_fake~sandbox', 'x', 0)`, nil, named),
		Refused("sandbox: a sandbox of a sandbox", `INSERT INTO accounts (id, name, created_at, sandbox_of) VALUES ($1, 'x', 0, $2)`,
			[]any{topupd.SandboxID(sandbox), sandbox}, named),
		Refused("sandbox: a sandbox made live", `UPDATE accounts SET sandbox_of = NULL WHERE id = $1`, []any{sandbox}, "never becomes"),
	}
	dump := []string{
		`SELECT id, pid, order_seq FROM codes ORDER BY id`,
		`SELECT account_id, seq, kind, amount, balance_after, order_seq FROM ledger ORDER BY account_id, seq`,
		`SELECT seq, account_id, sandbox, status FROM orders ORDER BY seq`,
		`SELECT day, account_id, pid, orders FROM sales_daily ORDER BY day, account_id, pid`,
		`SELECT id, account_id, sandbox FROM api_keys ORDER BY id`,
		`SELECT id, sandbox_of FROM accounts ORDER BY id`,
	}
	RunGuards(t, db, dump, guards, nil)

	// The store refuses codes for a sandbox order in its own words, before
	// the schema would.
	_, err := s.Settle(ctx, nil, processing.Seq, topupd.Settlement{Status: topupd.StatusCompleted, Codes: []string{"OPERATOR-CODE"}, Now: now})
	if topupd.CodeOf(err) != topupd.EInvalidBody || !strings.Contains(err.Error(), "sandbox order") {
		t.Errorf("completing a sandbox order with a code: %v, want INVALID_BODY naming the sandbox", err)
	}
	if o, err := s.Order(ctx, "", processing.ID); err != nil || o.Status != topupd.StatusProcessing {
		t.Errorf("the sandbox order after the refused completion: %+v, %v, want still processing", o, err)
	}

	// Sandbox orders are never in reports: neither the key order, final
	// when placed, nor the top-up settled now is counted in the roll-up of
	// time to final, and the audit's recount agrees.
	if _, err := s.Settle(ctx, nil, processing.Seq, topupd.Settlement{Status: topupd.StatusCompleted, Now: now.Add(time.Second)}); err != nil {
		t.Fatalf("completing the sandbox top-up: %v", err)
	}
	if got := durations(); !maps.Equal(got, liveDurations) {
		t.Errorf("orders per line in the duration roll-up: %v after the sandbox orders, %v before", got, liveDurations)
	}
	a, err := s.Audit(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range a.Checks {
		if c.Name == "duration-roll-ups-match-orders" && c.Violations != 0 {
			t.Errorf("audit %s: %d violation(s), e.g. %v", c.Name, c.Violations, c.Examples)
		}
	}
}
