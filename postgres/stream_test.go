package postgres_test

import (
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/storetest"
)

// TestStreamWaitsForOpenTransactions: an event's sequence number is taken
// when it is written, but transactions commit in any order. A reader must
// never read past an event whose transaction is still open, or it would
// move its cursor beyond it and miss it once it commits. Here one
// transaction writes an event and stays open while a later one commits
// its own: the later event stays unread until the first commits, and then
// both come, the first one first.
func TestStreamWaitsForOpenTransactions(t *testing.T) {
	t.Parallel()
	dbURL := newDB(t)
	s := openStore(t, dbURL, storetest.NewVault(t))
	ctx := t.Context()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	a, err := s.CreateAccount(ctx, nil, topupd.Account{ID: "acc_early", Name: "early", APIEnabled: true, CreatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	start, _, err := s.TakeConsumer(ctx, "probe", "test", now, now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	raw := rawDB(t, dbURL)
	early, err := raw.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Rollback()
	if _, err := early.ExecContext(ctx, `INSERT INTO events (id, at, type, account_id, data) VALUES ('evt_early', 0, 'balance.credited', $1, '{}')`, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Credit(ctx, nil, a.ID, topupd.USD(1), "later", now); err != nil {
		t.Fatal(err)
	}
	evs, err := s.Events(ctx, start, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 0 {
		t.Fatalf("read %d events while an older transaction that wrote one is open: %+v", len(evs), evs)
	}
	if err := early.Commit(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if evs, err = s.Events(ctx, start, 10); err != nil {
			t.Fatal(err)
		}
		if len(evs) == 2 || time.Now().After(deadline) {
			break // other tests' transactions, open meanwhile, hold the stream back too
		}
	}
	if len(evs) != 2 || evs[0].ID != "evt_early" || creditRef(evs[1]) != "later" {
		t.Errorf("after the commit: %+v; want evt_early, then the later credit", evs)
	}
}

// creditRef is a balance.credited event's reference ("" for another event).
func creditRef(e topupd.Event) string {
	if d, ok := e.Data.(*topupd.BalanceCreditedData); ok {
		return d.Reference
	}
	return ""
}
