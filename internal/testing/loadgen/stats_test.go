package loadgen

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func durs(ns ...int) []time.Duration {
	out := make([]time.Duration, len(ns))
	for i, n := range ns {
		out[i] = time.Duration(n)
	}
	return out
}

func TestPercentileNearestRank(t *testing.T) {
	one100 := make([]time.Duration, 100)
	for i := range one100 {
		one100[i] = time.Duration(i + 1)
	}
	ten := durs(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	cases := []struct {
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{one100, 50, 50}, {one100, 90, 90}, {one100, 99, 99}, {one100, 100, 100}, {one100, 1, 1},
		{one100, 99.9, 100}, {one100, 0.5, 1},
		{ten, 50, 5}, {ten, 90, 9}, {ten, 99, 10}, {ten, 91, 10}, {ten, 10, 1}, {ten, 11, 2},
		{durs(7), 50, 7}, {durs(7), 99, 7},
		{durs(3, 9), 50, 3}, {durs(3, 9), 51, 9},
		{nil, 50, 0},
	}
	for _, c := range cases {
		if got := Percentile(c.sorted, c.p); got != c.want {
			t.Errorf("Percentile(n=%d, p%v) = %v, want %v", len(c.sorted), c.p, got, c.want)
		}
	}
}

// TestPercentileDefinition checks the nearest-rank definition on random
// data: pN is a recorded value, at least N% of the values are at or below
// it, and fewer than N% are strictly below it.
func TestPercentileDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := 1 + r.IntN(500)
		s := make([]time.Duration, n)
		for i := range s {
			s[i] = time.Duration(r.IntN(1000))
		}
		slices.Sort(s)
		for _, p := range []float64{50, 90, 99, 99.9} {
			v := Percentile(s, p)
			if !slices.Contains(s, v) {
				t.Fatalf("p%v = %v is not a recorded value", p, v)
			}
			atOrBelow, below := 0, 0
			for _, x := range s {
				if x <= v {
					atOrBelow++
				}
				if x < v {
					below++
				}
			}
			if float64(atOrBelow) < p/100*float64(n) || float64(below) >= p/100*float64(n) {
				t.Fatalf("n=%d p%v=%v: %d at or below, %d below", n, p, v, atOrBelow, below)
			}
		}
	}
}

func TestSummarizeDoesNotReorderItsInput(t *testing.T) {
	in := durs(5, 1, 4, 2, 3)
	s := Summarize(in)
	if s.Count != 5 || s.Min != 1 || s.Max != 5 || s.P50 != 3 || s.Mean != 3 || s.P90 != 5 || s.P99 != 5 {
		t.Errorf("Summarize = %+v", s)
	}
	if !slices.Equal(in, durs(5, 1, 4, 2, 3)) {
		t.Errorf("input reordered: %v", in)
	}
	if (Summarize(nil) != Summary{}) {
		t.Error("empty summary not zero")
	}
}

func TestRouteOf(t *testing.T) {
	cases := []struct{ method, base, path, want string }{
		{"GET", "", "/orders/ord_123", "GET /orders/{id}"},
		{"POST", "", "/orders", "POST /orders"},
		{"GET", "/api/", "/api/orders/7", "GET /orders/{id}"},
		{"GET", "/api", "/api/history", "GET /history"},
		{"GET", "", "/products", "GET /products"},
	}
	for _, c := range cases {
		if got := RouteOf(c.method, c.base, c.path); got != c.want {
			t.Errorf("RouteOf(%s %s%s) = %q, want %q", c.method, c.base, c.path, got, c.want)
		}
	}
}

func TestRecorderStats(t *testing.T) {
	r := NewRecorder()
	for i := 1; i <= 100; i++ {
		r.Record(RoutePlace, OutcomeOK, time.Duration(i)*time.Millisecond, 300)
	}
	r.Record(RoutePlace, OutcomeRateLimited, time.Millisecond, 50)
	r.Record(RoutePlace, OutcomeNetError, time.Second, 0)
	r.Record(RoutePlace, OutcomeAborted, time.Second, 0)
	r.Record(RouteBalance, OutcomeOK, 2*time.Millisecond, 60)
	r.Record("GET /unknown", OutcomeClientError, 3*time.Millisecond, 10)
	rows, total := r.Stats(2 * time.Second)
	if len(rows) != 3 || rows[0].Route != RouteBalance || rows[1].Route != RoutePlace || rows[2].Route != "GET /unknown" {
		t.Fatalf("rows %+v", rows)
	}
	p := rows[1]
	if p.Requests != 102 || p.OK != 100 || p.RateLimited != 1 || p.NetErrors != 1 || p.Aborted != 1 {
		t.Errorf("counts %+v", p)
	}
	if p.PerSecond != 51 || p.MeanBytes != 300 {
		t.Errorf("rate %v, bytes %v", p.PerSecond, p.MeanBytes)
	}
	// 101 answered durations: 1..100 ms and one 1 ms 429.
	if p.P50Ms != 50 || p.P90Ms != 90 || p.P99Ms != 99 || p.MaxMs != 100 {
		t.Errorf("percentiles %v %v %v %v", p.P50Ms, p.P90Ms, p.P99Ms, p.MaxMs)
	}
	if total.Requests != 104 || total.OK != 101 || total.ClientErrors != 1 {
		t.Errorf("total %+v", total)
	}
	if r.Requests() != 104 || r.Failed() != 1 || r.RateLimited() != 1 {
		t.Errorf("live counters %d %d %d", r.Requests(), r.Failed(), r.RateLimited())
	}
	if got := r.MeanOKBytes(); got != (100*300+60)/101 {
		t.Errorf("MeanOKBytes %d", got)
	}
}

func TestParseMix(t *testing.T) {
	m, err := ParseMix("order=50, poll=0")
	if err != nil || m[ActOrder] != 50 || m[ActPoll] != 0 || m[ActBalance] != DefaultMix[ActBalance] {
		t.Fatalf("ParseMix = %v, %v", m, err)
	}
	if back, err := ParseMix(m.String()); err != nil || back.String() != m.String() {
		t.Errorf("round trip %v, %v", back, err)
	}
	for _, bad := range []string{"order", "order=-1", "dance=3", "order=x",
		"products=0,services=0,balance=0,order=0,poll=0,history=0"} {
		if _, err := ParseMix(bad); err == nil {
			t.Errorf("ParseMix(%q) accepted", bad)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	only := Mix{ActHistory: 1}
	for range 100 {
		if a := only.pick(r); a != ActHistory {
			t.Fatalf("picked %s from a history-only mix", a)
		}
	}
}

func TestJSONOfSize(t *testing.T) {
	for _, n := range []int{64, 300, 1000} {
		if b := jsonOfSize(n); len(b) != n {
			t.Errorf("jsonOfSize(%d) is %d bytes", n, len(b))
		}
	}
}

func TestCheckLoopback(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:8080", "http://localhost:1", "http://[::1]:80", "http://127.0.0.2"} {
		if err := CheckLoopback(ok); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"http://10.0.0.1:8080", "https://api.example.com", "ftp://127.0.0.1", "http://0.0.0.0:8080"} {
		if err := CheckLoopback(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
