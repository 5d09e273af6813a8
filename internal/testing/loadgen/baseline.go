package loadgen

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Baseline is what a bare net/http handler serving a same-sized JSON
// answer does over the same loopback, from as many concurrent clients: the
// ceiling this machine puts on any route, to read the routes' figures as
// ratios of.
type Baseline struct {
	DurationSec float64 `json:"durationSec"`
	Concurrency int     `json:"concurrency"`
	BodyBytes   int     `json:"bodyBytes"`
	Requests    int64   `json:"requests"`
	Errors      int64   `json:"errors"`
	PerSecond   float64 `json:"perSecond"`
	P50Ms       float64 `json:"p50Ms"`
	P90Ms       float64 `json:"p90Ms"`
	P99Ms       float64 `json:"p99Ms"`
	MaxMs       float64 `json:"maxMs"`
}

// jsonOfSize is a valid JSON object of exactly n bytes (at least 32).
func jsonOfSize(n int) []byte {
	const head, tail = `{"success":true,"pad":"`, `"}`
	pad := max(0, n-len(head)-len(tail))
	return []byte(head + strings.Repeat("x", pad) + tail)
}

// RunBaseline serves a bodyBytes-sized JSON answer from a bare handler on
// 127.0.0.1 and calls it from concurrency clients for d.
func RunBaseline(ctx context.Context, d time.Duration, concurrency, bodyBytes int) (*Baseline, error) {
	body := jsonOfSize(bodyBytes)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	tr := &http.Transport{MaxIdleConns: 2 * concurrency, MaxIdleConnsPerHost: 2 * concurrency, IdleConnTimeout: 90 * time.Second}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	target := "http://" + ln.Addr().String() + "/orders/baseline"

	runCtx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var errs atomic.Int64
	var mu sync.Mutex
	var durs []time.Duration
	start := time.Now()
	var wg sync.WaitGroup
	for range concurrency {
		wg.Go(func() {
			var mine []time.Duration
			for runCtx.Err() == nil {
				req, _ := http.NewRequestWithContext(runCtx, http.MethodGet, target, nil)
				req.Header.Set("X-API-Key", "tpd_baseline")
				t0 := time.Now()
				resp, err := hc.Do(req)
				if err != nil {
					if runCtx.Err() == nil {
						errs.Add(1)
					}
					continue
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					if runCtx.Err() == nil {
						errs.Add(1)
					}
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			durs = append(durs, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(durs) == 0 {
		return nil, fmt.Errorf("no call to the bare handler succeeded (%d errors)", errs.Load())
	}
	s := Summarize(durs)
	return &Baseline{DurationSec: elapsed.Seconds(), Concurrency: concurrency, BodyBytes: len(body), Requests: int64(len(durs)),
		Errors: errs.Load(), PerSecond: float64(len(durs)) / elapsed.Seconds(),
		P50Ms: ms(s.P50), P90Ms: ms(s.P90), P99Ms: ms(s.P99), MaxMs: ms(s.Max)}, nil
}
