package topupd_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

func usd(s string) topupd.Money {
	m, err := topupd.ParseMoney(s)
	if err != nil {
		panic(err)
	}
	return m
}

func costOf(s string) *topupd.Money { m := usd(s); return &m }

// TestMatch: each kind of mismatch, of the first kind that applies, one
// a reference; what agrees is matched; lines from beyond the period match
// and count in no total.
func TestMatch(t *testing.T) {
	ref := func(id string) string { return "topupd-" + id }
	ours := []topupd.OurOrder{
		{ID: "ok", Status: topupd.StatusCompleted, Cost: costOf("1.25")},
		{ID: "twice", Status: topupd.StatusCompleted, Cost: costOf("1.25")},
		{ID: "refunded-here", Status: topupd.StatusCancelled},
		{ID: "lost-there", Status: topupd.StatusCompleted, Cost: costOf("1.25")},
		{ID: "still-here", Status: topupd.StatusProcessing},
		{ID: "undone-there", Status: topupd.StatusCompleted, Cost: costOf("1.25")},
		{ID: "priced", Status: topupd.StatusCompleted, Cost: costOf("1.25")},
		{ID: "both-cancelled", Status: topupd.StatusCancelled},
		{ID: "edge", Status: topupd.StatusCompleted, Cost: costOf("1.25"), Beyond: true},
		{ID: "not-sent", Status: topupd.StatusCancelled},
	}
	theirs := []topupd.TheirRow{
		{Reference: ref("ok"), Amount: usd("1.25"), Status: topupd.StatusCompleted, Order: "u1"},
		{Reference: ref("twice"), Amount: usd("1.25"), Order: "u2"},
		{Reference: ref("twice"), Amount: usd("1.25"), Order: "u3"},
		{Reference: ref("refunded-here"), Amount: usd("1.25"), Status: topupd.StatusCompleted},
		{Reference: ref("still-here"), Amount: usd("1.25"), Status: topupd.StatusCompleted},
		{Reference: ref("undone-there"), Amount: usd("1.25")},
		{Reference: ref("undone-there"), Amount: usd("-1.25"), Status: topupd.StatusCancelled},
		{Reference: ref("priced"), Amount: usd("1.30")},
		{Reference: ref("both-cancelled"), Amount: usd("1.25")},
		{Reference: ref("both-cancelled"), Amount: usd("-1.25")},
		{Reference: ref("edge"), Amount: usd("1.25")},
		{Reference: "topupd-unknown", Amount: usd("0.5")},
		{Reference: ref("beyond-only"), Amount: usd("9"), Beyond: true},
	}
	ms, matched, totals := topupd.Match(ours, theirs)
	var got []string
	for _, m := range ms {
		got = append(got, fmt.Sprintf("%d %s %s", m.ID, m.Reference, m.Kind))
	}
	want := []string{
		"1 topupd-lost-there missing_upstream",
		"2 topupd-priced cost_mismatch",
		"3 topupd-refunded-here missing_here",
		"4 topupd-still-here status_mismatch",
		"5 topupd-twice duplicate_upstream",
		"6 topupd-undone-there status_mismatch",
		"7 topupd-unknown missing_here",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("mismatches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if matched != 4 { // ok, both-cancelled, edge, not-sent
		t.Errorf("matched %d, want 4", matched)
	}
	want2 := topupd.ReconTotals{OurOrders: 9, TheirOrders: 9, OurCost: usd("6.25"), TheirCost: usd("9.30")}
	if totals != want2 {
		t.Errorf("totals %+v, want %+v", totals, want2)
	}
	for _, m := range ms {
		switch m.Kind {
		case topupd.MismatchCost:
			if *m.Ours != usd("1.25") || *m.Theirs != usd("1.30") || m.OrderID != "priced" {
				t.Errorf("cost mismatch: %+v", m)
			}
		case topupd.MismatchStatus:
			if m.Reference == "topupd-undone-there" && (m.TheirStatus != topupd.StatusCancelled || m.OurStatus != topupd.StatusCompleted || *m.Theirs != 0) {
				t.Errorf("status mismatch: %+v", m)
			}
		}
	}
}

// TestMatchStatuses: the supplier's status of a reference, from its lines.
func TestMatchStatuses(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines []topupd.TheirRow
		ours  topupd.OrderStatus
		kind  string
	}{
		{"charged while processing there", []topupd.TheirRow{{Amount: usd("1"), Status: topupd.StatusProcessing}}, topupd.StatusProcessing, ""},
		{"charged, processing there, completed here", []topupd.TheirRow{{Amount: usd("1"), Status: topupd.StatusProcessing}}, topupd.StatusCompleted, topupd.MismatchStatus},
		{"a refund line that says completed", []topupd.TheirRow{{Amount: usd("1"), Status: topupd.StatusCompleted}, {Amount: usd("-1"), Status: topupd.StatusCompleted}}, topupd.StatusCancelled, ""},
		{"said failed, nothing charged", []topupd.TheirRow{{Status: topupd.StatusCancelled}}, topupd.StatusCancelled, ""},
		{"said failed, our order completed", []topupd.TheirRow{{Status: topupd.StatusCancelled}}, topupd.StatusCompleted, topupd.MismatchStatus},
		{"charged twice, refunded once", []topupd.TheirRow{{Amount: usd("1")}, {Amount: usd("1")}, {Amount: usd("-1")}}, topupd.StatusCompleted, ""},
		{"charged three times, refunded once", []topupd.TheirRow{{Amount: usd("1")}, {Amount: usd("1")}, {Amount: usd("1")}, {Amount: usd("-1")}}, topupd.StatusCompleted, topupd.MismatchDuplicate},
	} {
		for i := range c.lines {
			c.lines[i].Reference = "topupd-x"
		}
		var cost *topupd.Money
		if c.ours == topupd.StatusCompleted {
			net := topupd.Money(0)
			for _, l := range c.lines {
				net += l.Amount
			}
			cost = &net
		}
		ms, _, _ := topupd.Match([]topupd.OurOrder{{ID: "x", Status: c.ours, Cost: cost}}, c.lines)
		kind := ""
		if len(ms) == 1 {
			kind = ms[0].Kind
		}
		if kind != c.kind || len(ms) > 1 {
			t.Errorf("%s: %q, want %q", c.name, kind, c.kind)
		}
	}
}

// TestParseReconPeriod: both days included, at most 31 days, not after today.
func TestParseReconPeriod(t *testing.T) {
	now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	p, err := topupd.ParseReconPeriod("2026-11-06", "2026-12-06", now, topupd.EInvalidBody)
	if err != nil || !p.End().Equal(time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)) || !p.Holds(time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("31 days to today: %+v, %v", p, err)
	}
	for _, c := range [][2]string{{"2026-11-05", "2026-12-06"}, {"2026-12-06", "2026-12-07"}, {"2026-12-05", "2026-12-04"}, {"2026-12-1", "2026-12-02"}, {"", ""}} {
		if _, err := topupd.ParseReconPeriod(c[0], c[1], now, topupd.EInvalidRequest); topupd.CodeOf(err) != topupd.EInvalidRequest {
			t.Errorf("%v: %v, want INVALID_REQUEST", c, err)
		}
	}
}

// TestParseSupplierCSV: named columns in any case, statuses and times in
// their spellings, rows outside the period left out; a column the header
// lacks, a bad row or too many rows are refused, naming the line.
func TestParseSupplierCSV(t *testing.T) {
	p := topupd.ReconPeriod{From: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	cols := topupd.CSVColumns{Reference: "Ref", Amount: "charged", Status: "STATE", Time: "when"}
	file := "ref,Charged,State,When,other\n" +
		"topupd-a,1.25,Success,2026-12-01 10:00:00,x\n" +
		"topupd-b,-1.2345,refunded,2026-12-01T23:59:59Z,\n" +
		"topupd-c,2,,2026-12-02 00:00:00,\n" + // the next day: left out
		"topupd-d,0,PENDING,2026-12-01T05:00:00+05:00,\n" // 00:00 UTC
	rows, err := topupd.ParseSupplierCSV(strings.NewReader(file), cols, p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s %s %s %s", r.Reference, r.Amount, r.Status, r.At.Format(time.RFC3339)))
	}
	want := "topupd-a 1.25 completed 2026-12-01T10:00:00Z|topupd-b -1.2345 cancelled 2026-12-01T23:59:59Z|topupd-d 0 processing 2026-12-01T00:00:00Z"
	if strings.Join(got, "|") != want {
		t.Errorf("rows %s\nwant %s", strings.Join(got, "|"), want)
	}
	noTime, err := topupd.ParseSupplierCSV(strings.NewReader("reference,amount\ntopupd-a,1\n"), topupd.CSVColumns{Reference: "reference", Amount: "amount"}, p)
	if err != nil || len(noTime) != 1 || noTime[0].Status != topupd.StatusCompleted {
		t.Errorf("without status and time: %+v, %v", noTime, err)
	}
	for _, c := range []struct {
		name, file string
		cols       topupd.CSVColumns
		code       topupd.ErrorCode
		says       string
	}{
		{"a column not in the header", "ref,charged\n", topupd.CSVColumns{Reference: "ref", Amount: "amount"}, topupd.EInvalidRequest, `"amount"`},
		{"no reference column named", "ref,charged\n", topupd.CSVColumns{Amount: "charged"}, topupd.EInvalidRequest, "reference"},
		{"a bad amount", "ref,charged\ntopupd-a,1\ntopupd-b,1.23456\n", topupd.CSVColumns{Reference: "ref", Amount: "charged"}, topupd.EInvalidBody, "line 3"},
		{"a bad status", "ref,charged,s\ntopupd-a,1,lost\n", topupd.CSVColumns{Reference: "ref", Amount: "charged", Status: "s"}, topupd.EInvalidBody, "line 2"},
		{"a bad time", "ref,charged,t\ntopupd-a,1,yesterday\n", topupd.CSVColumns{Reference: "ref", Amount: "charged", Time: "t"}, topupd.EInvalidBody, "line 2"},
		{"an empty reference", "ref,charged\n,1\n", topupd.CSVColumns{Reference: "ref", Amount: "charged"}, topupd.EInvalidBody, "line 2"},
		{"a short row", "ref,x,charged\ntopupd-a\n", topupd.CSVColumns{Reference: "ref", Amount: "charged"}, topupd.EInvalidBody, "line 2"},
		{"a broken quote", "ref,charged\n\"topupd-a,1\n", topupd.CSVColumns{Reference: "ref", Amount: "charged"}, topupd.EInvalidBody, "line"},
		{"empty", "", topupd.CSVColumns{Reference: "ref", Amount: "charged"}, topupd.EInvalidBody, "header"},
		{"100,001 rows", "ref,charged\n" + strings.Repeat("topupd-a,1\n", topupd.MaxCSVRows+1), topupd.CSVColumns{Reference: "ref", Amount: "charged"},
			topupd.EInvalidBody, "line 100002"},
	} {
		_, err := topupd.ParseSupplierCSV(strings.NewReader(c.file), c.cols, p)
		if topupd.CodeOf(err) != c.code || err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v; want %s saying %q", c.name, err, c.code, c.says)
		}
	}
	if rows, err := topupd.ParseSupplierCSV(strings.NewReader("ref,charged\n"+strings.Repeat("topupd-a,1\n", topupd.MaxCSVRows)),
		topupd.CSVColumns{Reference: "ref", Amount: "charged"}, p); err != nil || len(rows) != topupd.MaxCSVRows {
		t.Errorf("100,000 rows: %d, %v", len(rows), err)
	}
}
