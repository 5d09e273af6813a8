package httpapi_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// historyTrx returns the trxids of a history answer, in answer order.
func historyTrx(r topupdtest.Reply) []string {
	var out []string
	arr, _ := r.Body["orders"].([]any)
	for _, o := range arr {
		m := o.(map[string]any)
		s, _ := m["trxid"].(string)
		out = append(out, s)
	}
	return out
}

// TestHistory: simple mode (default 30, limit clamped to 1..200) and paged
// mode (page from 1, pageSize default 20 and at most 50, total, hasMore),
// newest first, only the caller's orders.
func TestHistory(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("1000", nil)
	other := h.NewAccount("10", nil)
	h.Place(other, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "1"})

	if r := h.Do("GET", "/history", a.Key, nil); r.Status != 200 || r.Num("count") != "0" || len(historyTrx(r)) != 0 {
		t.Fatalf("empty history: %v", r)
	}

	// 35 orders one after another: newest first is the reverse.
	var placed []string
	for i := 0; i < 35; i++ {
		trx := fmt.Sprintf("hist-%02d-%s", i, h.Trx())
		pid := topupdtest.PIDPubg
		if i%5 == 4 {
			pid = topupdtest.PIDKey // a mix of kinds
		}
		body := order{"pid": pid, "trxid": trx}
		if pid == topupdtest.PIDPubg {
			body["userId"] = "5123"
		}
		h.Place(a, body)
		placed = append(placed, trx)
	}
	newest := make([]string, len(placed))
	for i, trx := range placed {
		newest[len(placed)-1-i] = trx
	}

	simple := []struct {
		query string
		want  []string
	}{
		{"", newest[:30]},
		{"?limit=5", newest[:5]},
		{"?limit=1", newest[:1]},
		{"?limit=0", newest[:1]},
		{"?limit=-7", newest[:1]},
		{"?limit=35", newest},
		{"?limit=200", newest},
		{"?limit=100000", newest},
	}
	for _, tc := range simple {
		r := h.Do("GET", "/history"+tc.query, a.Key, nil)
		if r.Status != 200 || r.Body["success"] != true {
			t.Errorf("GET /history%s: %v", tc.query, r)
			continue
		}
		if diff := cmp.Diff(tc.want, historyTrx(r)); diff != "" {
			t.Errorf("GET /history%s (-want +got):\n%s", tc.query, diff)
		}
		if r.Num("count") != fmt.Sprint(len(tc.want)) {
			t.Errorf("GET /history%s: count %s, want %d", tc.query, r.Num("count"), len(tc.want))
		}
		if r.Has("total") || r.Has("hasMore") {
			t.Errorf("GET /history%s: simple mode carries paging fields: %s", tc.query, r.Raw)
		}
	}

	// Each entry is an order of the caller, in the order shape.
	r := h.Do("GET", "/history?limit=1", a.Key, nil)
	first := r.Body["orders"].([]any)[0].(map[string]any)
	for _, f := range []string{"orderCreated", "orderId", "status", "game", "packName", "amountUsd", "durationSec"} {
		if _, ok := first[f]; !ok {
			t.Errorf("history entry lacks %s: %v", f, first)
		}
	}
	if first["status"] != "completed" || first["game"] != "gamekey" {
		t.Errorf("newest entry: %v", first)
	}

	type page struct {
		Trx              []string
		Total, Count     string
		HasMore          any
		PageNo, PageSize string
	}
	paged := []struct {
		query string
		want  page
	}{
		{"?page=1", page{newest[:20], "35", "20", true, "1", "20"}},
		{"?page=2", page{newest[20:], "35", "15", false, "2", "20"}},
		{"?page=3", page{nil, "35", "0", false, "3", "20"}},
		{"?page=1&pageSize=7", page{newest[:7], "35", "7", true, "1", "7"}},
		{"?page=5&pageSize=7", page{newest[28:], "35", "7", false, "5", "7"}},
		{"?page=4&pageSize=10", page{newest[30:], "35", "5", false, "4", "10"}},
		{"?page=1&pageSize=100", page{newest, "35", "35", false, "1", "50"}},
		{"?page=1&pageSize=0", page{newest[:1], "35", "1", true, "1", "1"}},
		{"?page=35&pageSize=1", page{newest[34:], "35", "1", false, "35", "1"}},
		{"?page=2&limit=3", page{newest[20:], "35", "15", false, "2", "20"}},
	}
	for _, tc := range paged {
		r := h.Do("GET", "/history"+tc.query, a.Key, nil)
		if r.Status != 200 {
			t.Errorf("GET /history%s: %v", tc.query, r)
			continue
		}
		got := page{historyTrx(r), r.Num("total"), r.Num("count"), r.Body["hasMore"], r.Num("page"), r.Num("pageSize")}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("GET /history%s (-want +got):\n%s", tc.query, diff)
		}
	}

	// Walking every page gives the whole history once, newest first.
	var walked []string
	for p := 1; ; p++ {
		r := h.Do("GET", fmt.Sprintf("/history?page=%d&pageSize=8", p), a.Key, nil)
		walked = append(walked, historyTrx(r)...)
		if r.Body["hasMore"] != true {
			break
		}
	}
	if diff := cmp.Diff(newest, walked); diff != "" {
		t.Errorf("pages walked (-want +got):\n%s", diff)
	}

	for _, q := range []string{"?limit=abc", "?page=0", "?page=-1", "?page=x", "?page=1&pageSize=x",
		"?page=", "?limit=", "?page=1&pageSize=", "?limit=&page=1", "?trxid=", "?trxid=" + strings.Repeat("t", 129)} {
		wantFailure(t, h.Do("GET", "/history"+q, a.Key, nil), 400, "INVALID_REQUEST", "INVALID REQUEST")
	}

	// The other account sees only its own order.
	if r := h.Do("GET", "/history", other.Key, nil); r.Num("count") != "1" {
		t.Errorf("other account's history: %s", r.Raw)
	}

	// Over 200 orders: the limit is clamped to 200.
	var wg sync.WaitGroup
	errs := make(chan error, 170)
	for i := 0; i < 170; i++ {
		wg.Go(func() {
			r, err := h.Call(h.API.URL, "POST", "/orders", topupdtest.Headers{"X-API-Key": a.Key}, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"})
			if err == nil && r.Status != 200 {
				err = fmt.Errorf("POST /orders: %v", r)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, q := range []string{"?limit=200", "?limit=201", "?limit=5000"} {
		r := h.Do("GET", "/history"+q, a.Key, nil)
		if r.Num("count") != "200" || len(historyTrx(r)) != 200 {
			t.Errorf("GET /history%s: count %s, %d orders; want 200", q, r.Num("count"), len(historyTrx(r)))
		}
		// The oldest 5 of the first 35 fall off the end.
		if got := historyTrx(r)[199]; got != placed[5] {
			t.Errorf("GET /history%s: last entry %s, want %s", q, got, placed[5])
		}
	}
	if r := h.Do("GET", "/history?page=1&pageSize=50", a.Key, nil); r.Num("total") != "205" || r.Body["hasMore"] != true {
		t.Errorf("paged total: %s", r.Raw)
	}
	if r := h.Do("GET", "/history?page=5&pageSize=50", a.Key, nil); r.Num("count") != "5" || r.Body["hasMore"] != false {
		t.Errorf("last page: count %s hasMore %v", r.Num("count"), r.Body["hasMore"])
	}
}
