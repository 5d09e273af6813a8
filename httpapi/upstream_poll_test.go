package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestUpstreamPoll, on SQLite and PostgreSQL, against a real topupd as the
// upstream: the balance is read by the clock every
// upstreamBalancePollMinutes, not before; 0 polls never.
func TestUpstreamPoll(t *testing.T) {
	t.Parallel()
	b := topupdtest.New(t)
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		clock := topupdtest.NewClock() // each store's own: they run at once
		h := topupdtest.New(t, append(db, topupdtest.WithClock(clock), topupdtest.WithWatchEvery(20*time.Millisecond))...)
		ours := b.NewAccount("20", nil)
		h.Logs.Secret(ours.Key, "our key at B")
		h.AdminOK(http.StatusOK, "PUT", "/admin/upstreams/b", map[string]any{"baseUrl": b.API.URL, "apiKey": ours.Key})
		balance := func() any {
			for _, u := range h.AdminOK(http.StatusOK, "GET", "/admin/upstreams", nil).Body["upstreams"].([]any) {
				if m := u.(map[string]any); m["name"] == "b" {
					return m["balanceUsd"]
				}
			}
			return nil
		}
		waitBalance := func(want string, within time.Duration) bool {
			for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
				if v, ok := balance().(interface{ String() string }); ok && v.String() == want {
					return true
				}
			}
			return false
		}
		b.AdminOK(http.StatusOK, "POST", "/admin/accounts/"+ours.ID+"/credits", map[string]any{"amountUsd": 5, "reference": h.Trx()})
		clock.Advance(4 * time.Minute)
		if waitBalance("25", 300*time.Millisecond) {
			t.Errorf("polled 4 minutes after the checked save")
		}
		clock.Advance(time.Minute)
		if !waitBalance("25", 5*time.Second) {
			t.Errorf("not polled 5 minutes after the checked save: %v", balance())
		}
		h.Settings(map[string]any{"upstreamBalancePollMinutes": 0})
		b.AdminOK(http.StatusOK, "POST", "/admin/accounts/"+ours.ID+"/credits", map[string]any{"amountUsd": 5, "reference": h.Trx()})
		clock.Advance(time.Hour)
		if waitBalance("30", 300*time.Millisecond) {
			t.Errorf("polled with upstreamBalancePollMinutes 0")
		}
		h.Settings(map[string]any{"upstreamBalancePollMinutes": 1})
		clock.Advance(time.Minute)
		if !waitBalance("30", 5*time.Second) {
			t.Errorf("not polled a minute on with upstreamBalancePollMinutes 1: %v", balance())
		}
	})
}
