package storetest

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testBotAlerts: an alert started is a change once (of racing callers,
// exactly one sees it), and clearing it once; the started ones are listed
// with their messages.
func testBotAlerts(t *testing.T, e *env) {
	set := func(key string, on bool) bool {
		t.Helper()
		changed, err := e.s.SetBotAlert(e.ctx, key, "message of "+key, on, t0)
		if err != nil {
			t.Fatalf("SetBotAlert %s %v: %v", key, on, err)
		}
		return changed
	}
	var seen atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if changed, err := e.s.SetBotAlert(e.ctx, "stuck", "message of stuck", true, t0); err == nil && changed {
				seen.Add(1)
			}
		})
	}
	wg.Wait()
	if seen.Load() != 1 {
		t.Errorf("8 racing starts of one alert: %d saw a change", seen.Load())
	}
	if !set("low-stock:p", true) || set("low-stock:p", true) {
		t.Error("starting an alert: a change the first time only")
	}
	got, err := e.s.BotAlerts(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"stuck": "message of stuck", "low-stock:p": "message of low-stock:p"}, got); diff != "" {
		t.Errorf("BotAlerts (-want +got):\n%s", diff)
	}
	if !set("stuck", false) || set("stuck", false) || set("never", false) {
		t.Error("clearing an alert: a change the first time only, and none for one never started")
	}
	if got, _ := e.s.BotAlerts(e.ctx); len(got) != 1 {
		t.Errorf("after clearing: %v", got)
	}
}
