package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestDurationsReport: on a clock the test moves, inside one UTC day, sim
// orders completed or refused within POST, key orders completed from
// stock, a manual order completed after 3 minutes, one after 50 hours and
// one left processing. GET /admin/reports/durations of any span inside
// that day reads the whole day: per line, the final orders and upper
// bounds of their median and 95th percentile (null past the last edge),
// through the client too; a day without orders has no lines; bad
// parameters are 400 naming the parameter.
func TestDurationsReport(t *testing.T) {
	t.Parallel()
	clock := topupdtest.NewClock()
	h := topupdtest.New(t, topupdtest.WithClock(clock))
	h.LoadCatalog()
	h.AddStock(topupdtest.PIDKey, 4)
	a := h.NewAccount("100", nil)
	day := clock.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	clock.SetTime(day.Add(time.Hour)) // far from midnight: every order is of this day
	manual := func() string {
		return h.Place(a, order{"pid": topupdtest.PIDPubgManual, "trxid": h.Trx(), "userId": "5123"}).Str("orderId")
	}
	fast, slow := manual(), manual()
	manual() // left processing: not counted
	// Sim completes within POST; it refuses the last player and refunds.
	for _, user := range []string{"5123", "5124", "5125", "99990001"} {
		h.WaitOrder(a, h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": user}).Str("orderId"))
	}
	h.Place(a, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1})
	h.Place(a, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 2})
	clock.Advance(3 * time.Minute)
	h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+fast+"/complete", nil)
	clock.Advance(50 * time.Hour)
	h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+slow+"/complete", nil)

	// pubg: 4 at once, 1 in (2 min, 5 min], 1 past 48 h: the median is in
	// the first bucket, the 95th percentile (rank 6 of 6) past the last.
	want := []any{
		map[string]any{"slug": "gamekey", "orders": json.Number("2"), "p50Ms": json.Number("100"), "p95Ms": json.Number("100")},
		map[string]any{"slug": "pubg", "orders": json.Number("6"), "p50Ms": json.Number("100"), "p95Ms": nil},
	}
	for _, span := range [][2]time.Time{
		{day, day.Add(24 * time.Hour)},
		{day.Add(5 * time.Hour), day.Add(6 * time.Hour)},
		{day.Add(23 * time.Hour), day.Add(24*time.Hour + time.Millisecond)}, // and the next day, without orders
	} {
		q := url.Values{"from": {span[0].Format(time.RFC3339Nano)}, "to": {span[1].Format(time.RFC3339Nano)}}
		r := h.AdminOK(http.StatusOK, "GET", "/admin/reports/durations?"+q.Encode(), nil)
		if diff := cmp.Diff(want, r.Body["lines"]); diff != "" {
			t.Errorf("[%v, %v) (-want +got):\n%s", span[0], span[1], diff)
		}
		end := day.Add(24 * time.Hour)
		if span[1].After(end) {
			end = end.Add(24 * time.Hour)
		}
		if r.Str("from") != day.Format(time.RFC3339Nano) || r.Str("to") != end.Format(time.RFC3339Nano) {
			t.Errorf("[%v, %v): the days read are [%s, %s), want [%v, %v)", span[0], span[1], r.Str("from"), r.Str("to"), day, end)
		}
	}
	got, err := h.AdminClient.Durations(t.Context(), day.Add(time.Hour), day.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	wantReport := client.DurationReport{From: day, To: day.Add(24 * time.Hour), Lines: []client.DurationLine{
		{Slug: "gamekey", Orders: 2, P50: 100 * time.Millisecond, P95: 100 * time.Millisecond},
		{Slug: "pubg", Orders: 6, P50: 100 * time.Millisecond, P95: client.DurationOverflow},
	}}
	if diff := cmp.Diff(wantReport, got); diff != "" {
		t.Errorf("client.Durations (-want +got):\n%s", diff)
	}
	r := h.AdminOK(http.StatusOK, "GET", "/admin/reports/durations?from="+day.Add(-48*time.Hour).Format(time.RFC3339)+
		"&to="+day.Add(-24*time.Hour).Format(time.RFC3339), nil)
	if lines, ok := r.Body["lines"].([]any); !ok || len(lines) != 0 {
		t.Errorf("a day without orders: %s", r.Raw)
	}
	for q, param := range map[string]string{
		"": "from", "?from=2026-01-01T00:00:00Z": "from", "?from=x&to=2026-01-01T00:00:00Z": "from",
		"?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z":              "from",
		"?from=2025-01-01T00:00:00Z&to=2026-02-01T00:00:00Z":              "to",
		"?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z&groupBy=line": "groupBy",
	} {
		r := h.AdminDo("GET", "/admin/reports/durations"+q, nil)
		if r.Status != 400 || r.Str("code") != "INVALID_REQUEST" || !strings.Contains(r.Str("detail"), param) {
			t.Errorf("report%s: %v, want 400 naming %s", q, r, param)
		}
	}
}
