package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/topupd/topupd"
)

// durationTests check the roll-ups of how long orders take to a final state.
var durationTests = []test{
	{"Durations", testDurations},
}

// testDurations: orders of three lines over three days, completed from
// stock at once, settled after times across the buckets (the overflow
// too), cancelled, and still processing; the report of whole days, of
// spans inside and across days (read as the whole days they touch), and of
// days without orders counts the final orders exactly as their own times
// say, and the audit finds the roll-ups equal to the orders.
func testDurations(t *testing.T, e *env) {
	e.catalog()
	e.stock(pidKey, 20)
	a := e.account("a", topupd.USD(1000))
	day0 := t0.Truncate(24 * time.Hour)
	took := []time.Duration{0, 80 * time.Millisecond, 100 * time.Millisecond, 101 * time.Millisecond, 900 * time.Millisecond,
		3 * time.Second, 45 * time.Second, 4 * time.Minute, 11 * time.Minute, 3 * time.Hour, 30 * time.Hour, 50 * time.Hour, -1}
	var orders []topupd.Order
	for i := range 60 {
		placed := day0.Add(time.Duration(i) * (71*time.Minute + 13*time.Second + 7*time.Millisecond)) // about 3 days
		var o topupd.Order
		switch i % 4 {
		case 0:
			o = e.place(a.ID, keys(pidKey, fmt.Sprintf("DU-%d", i), 1), placed) // completed at once
		case 1:
			o = e.place(a.ID, topupd.OrderRequest{PID: pidZone, TrxID: fmt.Sprintf("DU-%d", i),
				Fields: topupd.AccountFields{UserID: userID, ZoneID: "1"}}, placed)
		default:
			o = e.place(a.ID, topup(fmt.Sprintf("DU-%d", i)), placed)
		}
		if o.Status == topupd.StatusProcessing {
			d := took[i%len(took)]
			if d >= 0 {
				st := topupd.Settlement{Status: topupd.StatusCompleted, Now: placed.Add(d)}
				if i%3 == 0 {
					st.Status, st.Error, st.Refund = topupd.StatusCancelled, "x", true
				}
				o = e.settle(o, st)
			}
		}
		orders = append(orders, o)
	}
	h := func(hours float64) time.Time { return day0.Add(time.Duration(hours * float64(time.Hour))) }
	for _, span := range [][2]time.Time{
		{h(0), h(24 * 4)},        // every order
		{h(24), h(48)},           // one whole day
		{h(30), h(31)},           // inside one day: the whole day
		{h(13.5), h(24 + 0.25)},  // partial, across one midnight: two days
		{h(-48), h(-24)},         // before every order
		{h(24 * 10), h(24 * 11)}, // after every order
	} {
		got, err := e.s.Durations(e.ctx, span[0], span[1])
		if err != nil {
			t.Fatalf("Durations %v: %v", span, err)
		}
		if diff := cmp.Diff(countDurations(orders, span[0], span[1]), got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Durations of [%v, %v) (-counted +reported):\n%s", span[0], span[1], diff)
		}
	}
	all, err := e.s.Durations(e.ctx, h(0), h(24*4))
	if err != nil || len(all) != 3 {
		t.Fatalf("Durations of every order: %d lines, %v; want 3", len(all), err)
	}
	for _, r := range all {
		if r.Slug == "gamekeypubg" && (r.P95 != topupd.DurationBuckets[0] || r.Orders != 15) {
			t.Errorf("orders completed from stock: %+v, want 15 orders within the first bucket", r)
		}
	}
	au, err := e.s.Audit(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range au.Checks {
		if c.Name != "orders-final" && c.Violations != 0 {
			t.Errorf("check %s: %d violations %v", c.Name, c.Violations, c.Examples)
		}
	}
}

// countDurations is the report by brute force: the final orders created on
// the whole UTC days [from, to) touches, one at a time, bucketed by their
// own times.
func countDurations(orders []topupd.Order, from, to time.Time) []topupd.DurationRow {
	first := from.UTC().Truncate(24 * time.Hour)
	end := to.UTC().Truncate(24 * time.Hour)
	if end.Before(to) {
		end = end.Add(24 * time.Hour)
	}
	counts := map[string][]int64{}
	var slugs []string
	for _, o := range orders {
		if !o.Status.Final() || o.CreatedAt.Before(first) || !o.CreatedAt.Before(end) {
			continue
		}
		if counts[o.Slug] == nil {
			counts[o.Slug] = make([]int64, len(topupd.DurationBuckets)+1)
			slugs = append(slugs, o.Slug)
		}
		counts[o.Slug][topupd.DurationBucket(o.FinishedAt.Sub(o.CreatedAt))]++
	}
	var out []topupd.DurationRow
	for _, s := range sorted(slugs...) {
		out = append(out, topupd.NewDurationRow(s, counts[s]))
	}
	return out
}
