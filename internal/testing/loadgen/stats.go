package loadgen

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Percentile returns the p-th percentile (0 < p ≤ 100) of sorted by the
// nearest-rank method: the smallest recorded value such that at least p% of
// the values are at or below it. It is exact: no bucketing, no
// interpolation, always one of the recorded values. sorted must be in
// ascending order; an empty slice gives 0.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if p <= 0 {
		return sorted[0]
	}
	if p >= 100 {
		return sorted[n-1]
	}
	// rank = ceil(p/100 · n), computed in integers for whole-number
	// percentiles so that p=90, n=10 is rank 9 and not 10 by rounding.
	var rank int
	if p == float64(int(p)) {
		rank = (int(p)*n + 99) / 100
	} else {
		r := p / 100 * float64(n)
		rank = int(r)
		if float64(rank) < r {
			rank++
		}
	}
	rank = max(1, min(rank, n))
	return sorted[rank-1]
}

// Summary is the latency distribution of a set of recorded durations.
type Summary struct {
	Count int
	Min   time.Duration
	Mean  time.Duration
	P50   time.Duration
	P90   time.Duration
	P99   time.Duration
	Max   time.Duration
}

// Summarize sorts a copy of durs and summarizes it exactly.
func Summarize(durs []time.Duration) Summary {
	if len(durs) == 0 {
		return Summary{}
	}
	s := slices.Clone(durs)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return Summary{Count: len(s), Min: s[0], Mean: sum / time.Duration(len(s)),
		P50: Percentile(s, 50), P90: Percentile(s, 90), P99: Percentile(s, 99), Max: s[len(s)-1]}
}

// Outcome is how one HTTP exchange ended.
type Outcome int

// The outcomes of an exchange, as the report counts them.
const (
	OutcomeOK          Outcome = iota // 2xx
	OutcomeRateLimited                // 429 RATE_LIMIT
	OutcomeClientError                // other 4xx
	OutcomeInFlight                   // 429 DUPLICATE_IN_FLIGHT: counted with the 4xx
	OutcomeServerError                // 5xx (and anything else)
	OutcomeNetError                   // no answer: refused, reset, timed out
	OutcomeAborted                    // cancelled by the generator itself at the end of the run
)

// routeRec is what a Recorder keeps for one route.
type routeRec struct {
	durs    []time.Duration // every exchange that got an answer
	counts  [OutcomeAborted + 1]int64
	bytes   int64 // answer bytes of the 2xx exchanges
	okCount int64
}

// Recorder collects every HTTP exchange by route (method and path
// template). It is safe for concurrent use.
type Recorder struct {
	mu     sync.Mutex
	routes map[string]*routeRec

	requests atomic.Int64 // exchanges sent, aborted ones excluded
	failed   atomic.Int64 // 5xx and network errors
	limited  atomic.Int64 // 429s
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{routes: map[string]*routeRec{}} }

// Record counts one exchange of route; d is its whole duration, from
// sending the request to reading the last byte of the answer, and n the
// answer's size.
func (r *Recorder) Record(route string, o Outcome, d time.Duration, n int64) {
	switch o {
	case OutcomeAborted:
	case OutcomeServerError, OutcomeNetError:
		r.requests.Add(1)
		r.failed.Add(1)
	case OutcomeRateLimited:
		r.requests.Add(1)
		r.limited.Add(1)
	default:
		r.requests.Add(1)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rr := r.routes[route]
	if rr == nil {
		rr = &routeRec{}
		r.routes[route] = rr
	}
	rr.counts[o]++
	if o != OutcomeNetError && o != OutcomeAborted {
		rr.durs = append(rr.durs, d)
	}
	if o == OutcomeOK {
		rr.bytes += n
		rr.okCount++
	}
}

// Requests is how many exchanges were sent so far (aborted ones excluded).
func (r *Recorder) Requests() int64 { return r.requests.Load() }

// Failed is how many exchanges ended in a 5xx or a network error so far.
func (r *Recorder) Failed() int64 { return r.failed.Load() }

// RateLimited is how many exchanges were answered 429 so far.
func (r *Recorder) RateLimited() int64 { return r.limited.Load() }

// MeanOKBytes is the mean size of the 2xx answers over every route.
func (r *Recorder) MeanOKBytes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b, n int64
	for _, rr := range r.routes {
		b += rr.bytes
		n += rr.okCount
	}
	if n == 0 {
		return 0
	}
	return int(b / n)
}

// RouteStats is one row of the report.
type RouteStats struct {
	Route        string  `json:"route"`
	Requests     int64   `json:"requests"`
	OK           int64   `json:"ok"`
	RateLimited  int64   `json:"rateLimited"`
	ClientErrors int64   `json:"clientErrors"`
	InFlight     int64   `json:"duplicateInFlight"`
	ServerErrors int64   `json:"serverErrors"`
	NetErrors    int64   `json:"netErrors"`
	Aborted      int64   `json:"aborted,omitempty"`
	PerSecond    float64 `json:"perSecond"`
	P50Ms        float64 `json:"p50Ms"`
	P90Ms        float64 `json:"p90Ms"`
	P99Ms        float64 `json:"p99Ms"`
	MaxMs        float64 `json:"maxMs"`
	MeanMs       float64 `json:"meanMs"`
	MeanBytes    int     `json:"meanBytes"`
	// BaselineRatio is PerSecond divided by the bare net/http baseline's
	// requests per second, when --baseline ran.
	BaselineRatio *float64 `json:"baselineRatio,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func statsOf(route string, rr *routeRec, elapsed time.Duration) RouteStats {
	s := Summarize(rr.durs)
	st := RouteStats{Route: route, OK: rr.counts[OutcomeOK], RateLimited: rr.counts[OutcomeRateLimited],
		ClientErrors: rr.counts[OutcomeClientError] + rr.counts[OutcomeInFlight], InFlight: rr.counts[OutcomeInFlight], ServerErrors: rr.counts[OutcomeServerError],
		NetErrors: rr.counts[OutcomeNetError], Aborted: rr.counts[OutcomeAborted],
		P50Ms: ms(s.P50), P90Ms: ms(s.P90), P99Ms: ms(s.P99), MaxMs: ms(s.Max), MeanMs: ms(s.Mean)}
	st.Requests = st.OK + st.RateLimited + st.ClientErrors + st.ServerErrors + st.NetErrors
	if elapsed > 0 {
		st.PerSecond = float64(st.Requests) / elapsed.Seconds()
	}
	if rr.okCount > 0 {
		st.MeanBytes = int(rr.bytes / rr.okCount)
	}
	return st
}

// Stats returns one row per route, in the order of routeOrder and then by
// name, and a total row over every route; throughput is over elapsed.
func (r *Recorder) Stats(elapsed time.Duration) (rows []RouteStats, total RouteStats) {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.routes))
	all := &routeRec{}
	for name, rr := range r.routes {
		names = append(names, name)
		all.durs = append(all.durs, rr.durs...)
		for i := range rr.counts {
			all.counts[i] += rr.counts[i]
		}
		all.bytes += rr.bytes
		all.okCount += rr.okCount
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := routeRank(names[i]), routeRank(names[j])
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	for _, name := range names {
		rows = append(rows, statsOf(name, r.routes[name], elapsed))
	}
	return rows, statsOf("total", all, elapsed)
}

// Routes of the reseller API the generator drives, in report order.
const (
	RouteProducts = "GET /products"
	RouteServices = "GET /services"
	RouteBalance  = "GET /balance"
	RoutePlace    = "POST /orders"
	RouteOrder    = "GET /orders/{id}"
	RouteHistory  = "GET /history"
)

// AllRoutes are the routes every run drives.
var AllRoutes = []string{RouteProducts, RouteServices, RouteBalance, RoutePlace, RouteOrder, RouteHistory}

func routeRank(route string) int {
	if i := slices.Index(AllRoutes, route); i >= 0 {
		return i
	}
	return len(AllRoutes)
}

// RouteOf names the route of a request path relative to the API's base
// path: the method and the path template, so "GET /orders/ord_x" is
// "GET /orders/{id}".
func RouteOf(method, basePath, path string) string {
	p := strings.TrimPrefix(path, strings.TrimRight(basePath, "/"))
	if rest, ok := strings.CutPrefix(p, "/orders/"); ok && rest != "" {
		p = "/orders/{id}"
	}
	return method + " " + p
}
