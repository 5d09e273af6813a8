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

// TestReconcileAtSetting: reconcileAt is "03:00" by default, takes "HH:MM"
// in UTC or null (never), and refuses anything else, changing nothing.
func TestReconcileAtSetting(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	if r := h.AdminOK(http.StatusOK, "GET", "/admin/settings", nil); r.Str("reconcileAt") != "03:00" {
		t.Errorf("the default: %s", r)
	}
	if r := h.AdminOK(http.StatusOK, "PATCH", "/admin/settings", map[string]any{"reconcileAt": "04:30"}); r.Str("reconcileAt") != "04:30" {
		t.Errorf("04:30: %s", r)
	}
	for _, bad := range []any{"24:00", "4:30", "", 430} {
		if r := h.AdminDo("PATCH", "/admin/settings", map[string]any{"reconcileAt": bad}); r.Status != 400 || r.Str("code") != "INVALID_BODY" {
			t.Errorf("%v: %s", bad, r)
		}
	}
	if r := h.AdminOK(http.StatusOK, "PATCH", "/admin/settings", map[string]any{"reconcileAt": nil}); r.Body["reconcileAt"] != nil {
		t.Errorf("null: %s", r)
	}
	if r := h.AdminOK(http.StatusOK, "GET", "/admin/settings", nil); r.Body["reconcileAt"] != nil {
		t.Errorf("after null: %s", r)
	}
}
