package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/topupd/topupd"
)

// reportTests check the sales report: its roll-ups and its edges.
var reportTests = []test{
	{"SalesReport", testSalesReport},
}

// testSalesReport: five days of orders of three accounts over four packs,
// completed, cancelled with and without a refund, and still processing,
// with a known cost (keys, and half the gift cards: their batch's) and
// without (top-ups, the other gift cards); the report of every grouping,
// over whole days, over ranges that start and end in the middle of a day,
// inside one day and outside the orders, sums exactly what a plain count
// of the orders does, its revenue without cost too.
func testSalesReport(t *testing.T, e *env) {
	e.catalog()
	if _, err := e.s.UpdatePack(e.ctx, nil, pidKey, func(p *topupd.Pack) error { p.Cost = 7_000; return nil }); err != nil {
		t.Fatal(err)
	}
	e.stock(pidKey, 30)
	cards := make([]string, 20)
	for i := range cards {
		cards[i] = e.uniq("SR-CARD")
	}
	e.upload(pidCard, cards[:5], topupd.StockUpload{Cost: money(60_000)})
	e.upload(pidCard, cards[5:], topupd.StockUpload{})
	day0 := t0.Truncate(24 * time.Hour)
	accounts := []string{e.account("a", topupd.USD(1000)).ID, e.account("b", topupd.USD(1000)).ID, e.account("c", topupd.USD(1000)).ID}
	var orders []topupd.Order
	for i := range 40 {
		at := day0.Add(time.Duration(i) * (3*time.Hour + 7*time.Minute + 11*time.Second)) // about 5 days
		var req topupd.OrderRequest
		switch i % 4 {
		case 0, 1:
			req = topup(fmt.Sprintf("SR-%d", i))
		case 2:
			req = keys(pidKey, fmt.Sprintf("SR-%d", i), 1+i%3)
		case 3:
			req = keys(pidCard, fmt.Sprintf("SR-%d", i), 1)
		}
		o := e.place(accounts[i%3], req, at)
		if o.Status == topupd.StatusProcessing {
			st := topupd.Settlement{Now: at.Add(time.Minute)}
			switch i % 5 {
			case 0:
				st.Status = topupd.StatusCompleted
			case 1:
				st.Status, st.Error, st.Refund = topupd.StatusCancelled, "x", true
			case 2:
				st.Status, st.Error = topupd.StatusCancelled, "x"
			}
			if st.Status != "" {
				o = e.settle(o, st)
			}
		}
		orders = append(orders, o)
	}
	h := func(hours float64) time.Time { return day0.Add(time.Duration(hours * float64(time.Hour))) }
	spans := [][2]time.Time{
		{h(0), h(24 * 6)},         // whole days around every order
		{h(24), h(72)},            // whole days
		{h(13.5), h(24*3 + 5.25)}, // partial days at both ends
		{h(30), h(40)},            // inside one day
		{h(7.1), h(24 + 0.2)},     // partial, crossing one midnight
		{h(-48), h(-24)},          // before every order
		{h(24 * 10), h(24 * 11)},  // after every order
	}
	var known, unknown int
	for _, o := range orders {
		if o.Status == topupd.StatusCompleted && o.Cost != nil {
			known++
		} else if o.Status == topupd.StatusCompleted {
			unknown++
		}
	}
	if known == 0 || unknown == 0 {
		t.Fatalf("%d completed orders with a known cost, %d without: want some of each", known, unknown)
	}
	for _, span := range spans {
		for _, by := range topupd.SalesGroups {
			got, err := e.s.SalesReport(e.ctx, span[0], span[1], by)
			if err != nil {
				t.Fatalf("report by %s of %v: %v", by, span, err)
			}
			if diff := cmp.Diff(countSales(orders, span[0], span[1], by), got); diff != "" {
				t.Errorf("report by %s of [%v, %v) (-counted +reported):\n%s", by, span[0], span[1], diff)
			}
		}
	}
	e.auditClean()
}

// countSales is the sales report by brute force: every order created in
// [from, to), one at a time.
func countSales(orders []topupd.Order, from, to time.Time, by topupd.SalesGroup) []topupd.SalesRow {
	rows := map[string]*topupd.SalesRow{}
	var keys []string
	for _, o := range orders {
		if o.CreatedAt.Before(from) || !o.CreatedAt.Before(to) {
			continue
		}
		key := map[topupd.SalesGroup]string{topupd.ByDay: topupd.Day(o.CreatedAt), topupd.ByLine: o.Slug, topupd.ByPack: o.PID,
			topupd.ByAccount: o.AccountID, topupd.ByProvider: o.Provider}[by]
		r := rows[key]
		if r == nil {
			r = &topupd.SalesRow{Key: key}
			rows[key] = r
			keys = append(keys, key)
		}
		r.CountOrder(&o)
		r.CountCost(&o)
	}
	slices.Sort(keys)
	out := []topupd.SalesRow{}
	for _, k := range keys {
		out = append(out, *rows[k])
	}
	return out
}

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
	e.auditClean()
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
