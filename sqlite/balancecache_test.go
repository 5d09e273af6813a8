package sqlite_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// TestBalanceReadAfterWrite: SQLite answers Balance from memory (one
// server writes the file), yet a balance read after a credit or debit has
// returned is that write's balance, whatever reads ran around it. Two
// writers credit and debit their accounts in turn and read each balance
// back at once, while readers hammer Balance on both accounts to fill the
// cache with the balance of the moment. A cache that kept a balance a
// commit had made old fails here.
func TestBalanceReadAfterWrite(t *testing.T) {
	t.Parallel()
	s := freshStore(t)
	ctx := t.Context()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	accounts := []string{"acc_cache_a", "acc_cache_b"}
	for _, id := range accounts {
		if _, err := s.CreateAccount(ctx, nil, topupd.Account{ID: id, Name: id, CreatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	var stop atomic.Bool
	var readers sync.WaitGroup
	for i := range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for !stop.Load() {
				if _, err := s.Balance(ctx, accounts[i%2]); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	var writers sync.WaitGroup
	for _, id := range accounts {
		writers.Add(1)
		go func() {
			defer writers.Done()
			want := topupd.Money(0)
			for n := range 300 {
				amount := topupd.Money(n%7 + 1)
				if n%3 == 2 {
					amount = -1
				}
				if _, _, err := s.Credit(ctx, nil, id, amount, fmt.Sprintf("%s-%d", id, n), now); err != nil {
					t.Error(err)
					return
				}
				want += amount
				if got, err := s.Balance(ctx, id); err != nil || got != want {
					t.Errorf("%s: after write %d the balance reads %v (%v), want %v", id, n, got, err, want)
					return
				}
			}
		}()
	}
	writers.Wait()
	stop.Store(true)
	readers.Wait()
}
