package loadgen

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is everything a run measured and checked; it is written as an
// aligned table (WriteText) and as JSON (WriteJSON).
type Report struct {
	Version   int          `json:"version"`
	StartedAt time.Time    `json:"startedAt"`
	API       string       `json:"api"`
	Admin     string       `json:"admin"`
	RunID     string       `json:"runId"`
	Config    ReportConfig `json:"config"`
	Setup     string       `json:"setup"`
	Notes     []string     `json:"notes,omitempty"`

	ElapsedSec float64       `json:"elapsedSec"`
	Routes     []RouteStats  `json:"routes"`
	Total      RouteStats    `json:"total"`
	Actions    []ActionStats `json:"actions"`
	Orders     OrderStats    `json:"orders"`
	Errors     ErrorStats    `json:"errors"`
	Baseline   *Baseline     `json:"baseline,omitempty"`
	Chaos      *ChaosStats   `json:"chaos,omitempty"`

	Checks *CheckReport `json:"checks"`
	// Pass is true when every invariant held.
	Pass bool `json:"pass"`
}

// ReportConfig is the run's configuration as the report shows it.
type ReportConfig struct {
	DurationSec      float64 `json:"durationSec"`
	Accounts         int     `json:"accounts"`
	Concurrency      int     `json:"concurrency"`
	RatePerSecond    int     `json:"ratePerSecond"`
	RatePerMinute    int     `json:"ratePerMinute"`
	Pace             string  `json:"pace"`
	PaceCeiling      float64 `json:"paceCeilingPerSecond"`
	Seed             uint64  `json:"seed"`
	Mix              string  `json:"mix"`
	OrderKinds       string  `json:"orderKinds"`
	InvalidPlayerPct float64 `json:"invalidPlayerPct"`
	ReplayPct        float64 `json:"replayPct"`
	SimDelayMs       int     `json:"simDelayMs"`
	Percentiles      string  `json:"percentiles"`
}

// PercentileMethod says how the report's percentiles are computed.
const PercentileMethod = "exact nearest-rank over every recorded duration (request sent to last byte read)"

func reportConfig(c Config) ReportConfig {
	pace := "smooth"
	if c.Burst {
		pace = "burst"
	}
	var kinds []string
	for _, k := range OrderKinds {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, orderKindWeights[k]))
	}
	return ReportConfig{DurationSec: c.Duration.Seconds(), Accounts: c.Accounts, Concurrency: c.Concurrency,
		RatePerSecond: c.RatePerSecond, RatePerMinute: c.RatePerMinute, Pace: pace,
		PaceCeiling: float64(c.Accounts) * callsPerAccount(c, time.Minute) / 60,
		Seed:        c.Seed, Mix: c.Mix.String(), OrderKinds: strings.Join(kinds, ","),
		InvalidPlayerPct: c.InvalidPlayerPct, ReplayPct: c.ReplayPct, SimDelayMs: int(c.SimDelay / time.Millisecond),
		Percentiles: PercentileMethod}
}

// ActionStats counts one action of the mix: ok, failed after the client's
// retries, or dropped at the end of the run.
type ActionStats struct {
	Action  Action `json:"action"`
	OK      int64  `json:"ok"`
	Failed  int64  `json:"failed"`
	Aborted int64  `json:"aborted"`
}

func (g *gen) actionStats() []ActionStats {
	out := make([]ActionStats, len(Actions))
	for i, a := range Actions {
		oc := &g.ops[actionIndex[a]]
		out[i] = ActionStats{Action: a, OK: oc.ok.Load(), Failed: oc.failed.Load(), Aborted: oc.aborted.Load()}
	}
	return out
}

// OrderStats is what the client saw of its orders.
type OrderStats struct {
	Placed           int64            `json:"placed"`
	ByKind           map[string]int64 `json:"byKind"`
	CompletedAtOnce  int64            `json:"completedAtOnce"`
	ProcessingAtOnce int64            `json:"processingAtOnce"`
	CancelledAtOnce  int64            `json:"cancelledAtOnce"`
	FinishedByPoll   int64            `json:"finishedByPoll"`
	InvalidPlayers   int64            `json:"invalidPlayers"`
	Replays          int64            `json:"replays"`
	RetriedReplays   int64            `json:"retriedReplays"`
	RejectedStock    int64            `json:"rejectedStock"`
	RejectedOther    int64            `json:"rejectedOther"`
	CodesReceived    int64            `json:"codesReceived"`
}

func (g *gen) orderStats() OrderStats {
	o := &g.orders
	s := OrderStats{Placed: o.placed.Load(), ByKind: map[string]int64{}, CompletedAtOnce: o.completedAtOnce.Load(),
		ProcessingAtOnce: o.processingAtOnce.Load(), CancelledAtOnce: o.cancelledAtOnce.Load(),
		FinishedByPoll: o.finishedByPoll.Load(), InvalidPlayers: o.invalidPlayers.Load(), Replays: o.replays.Load(),
		RetriedReplays: o.retriedReplays.Load(), RejectedStock: o.rejectedStock.Load(), RejectedOther: o.rejectedOther.Load(),
		CodesReceived: o.codes.Load()}
	for i, k := range OrderKinds {
		s.ByKind[string(k)] = o.byKind[i].Load()
	}
	return s
}

// ErrorStats are the calls that failed after the client's own retries.
type ErrorStats struct {
	Count int64          `json:"count"`
	ByKey map[string]int `json:"byKind,omitempty"`
}

func (g *gen) errorStats() ErrorStats {
	g.errs.mu.Lock()
	defer g.errs.mu.Unlock()
	s := ErrorStats{Count: g.errs.n.Load(), ByKey: map[string]int{}}
	for k, v := range g.errs.m {
		s.ByKey[k] = v
	}
	return s
}

// ChaosStats says what --chaos did to the server.
type ChaosStats struct {
	EverySec    float64 `json:"everySec"`
	Kills       int     `json:"kills"`
	Restarts    int     `json:"restarts"`
	DowntimeSec float64 `json:"downtimeSec"`
	DB          string  `json:"db"`
	Log         string  `json:"log"`
}

// WriteJSON writes the report as indented JSON to path.
func (r *Report) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func fmtRatio(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.3g", *p)
}

// WriteText writes the report as aligned tables.
func (r *Report) WriteText(w io.Writer) {
	c := r.Config
	fmt.Fprintf(w, "\ntopupd bench: %.0fs against %s (admin %s), run %s\n", c.DurationSec, r.API, r.Admin, r.RunID)
	fmt.Fprintf(w, "  %d accounts, concurrency %d, pace %s within %d/s and %d/min per account (ceiling %.0f req/s), seed %d\n",
		c.Accounts, c.Concurrency, c.Pace, c.RatePerSecond, c.RatePerMinute, c.PaceCeiling, c.Seed)
	fmt.Fprintf(w, "  mix %s; order kinds %s; %.1f%% invalid players, %.1f%% replays\n", c.Mix, c.OrderKinds, c.InvalidPlayerPct, c.ReplayPct)
	fmt.Fprintf(w, "  setup: %s\n", r.Setup)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  NOTE: %s\n", n)
	}
	fmt.Fprintf(w, "\nload: %.1fs, latency percentiles are %s\n\n", r.ElapsedSec, PercentileMethod)
	width := len("baseline (bare net/http)")
	for _, s := range r.Routes {
		width = max(width, len(s.Route))
	}
	left := func(s string) string { return fmt.Sprintf("%-*s", width, s) }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, left("route")+"\trequests\treq/s\tok\t429\t4xx\t5xx\tnet\tp50 ms\tp90 ms\tp99 ms\tmax ms\tbytes\t× baseline\t")
	row := func(s RouteStats) {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%d\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t%s\t\n", left(s.Route), s.Requests, s.PerSecond,
			s.OK, s.RateLimited, s.ClientErrors, s.ServerErrors, s.NetErrors, s.P50Ms, s.P90Ms, s.P99Ms, s.MaxMs, s.MeanBytes, fmtRatio(s.BaselineRatio))
	}
	for _, s := range r.Routes {
		row(s)
	}
	row(r.Total)
	if b := r.Baseline; b != nil {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%d\t\t\t\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t1\t\n", left("baseline (bare net/http)"), b.Requests, b.PerSecond,
			b.Requests, b.Errors, b.P50Ms, b.P90Ms, b.P99Ms, b.MaxMs, b.BodyBytes)
	}
	tw.Flush()

	fmt.Fprintln(w)
	var acts []string
	for _, a := range r.Actions {
		s := fmt.Sprintf("%s %d", a.Action, a.OK)
		if a.Failed > 0 {
			s += fmt.Sprintf(" (%d failed)", a.Failed)
		}
		acts = append(acts, s)
	}
	fmt.Fprintf(w, "actions: %s\n", strings.Join(acts, ", "))
	o := r.Orders
	fmt.Fprintf(w, "orders: %d placed (topup %d, zone %d, gamekey %d, giftcard %d); at placement %d completed, %d processing, %d cancelled; %d seen ending by a poll\n",
		o.Placed, o.ByKind["topup"], o.ByKind["zone"], o.ByKind["gamekey"], o.ByKind["giftcard"], o.CompletedAtOnce, o.ProcessingAtOnce, o.CancelledAtOnce, o.FinishedByPoll)
	fmt.Fprintf(w, "        %d for 9999 players, %d deliberate replays, %d answered as replays after a client retry, %d refused for stock, %d refused otherwise, %d codes received\n",
		o.InvalidPlayers, o.Replays, o.RetriedReplays, o.RejectedStock, o.RejectedOther, o.CodesReceived)
	if r.Errors.Count > 0 {
		fmt.Fprintf(w, "errors after the client's retries: %d\n", r.Errors.Count)
		keys := make([]string, 0, len(r.Errors.ByKey))
		for k := range r.Errors.ByKey {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return r.Errors.ByKey[keys[i]] > r.Errors.ByKey[keys[j]] })
		for _, k := range keys {
			fmt.Fprintf(w, "  %6d  %s\n", r.Errors.ByKey[k], k)
		}
	} else {
		fmt.Fprintln(w, "errors after the client's retries: 0")
	}
	if ch := r.Chaos; ch != nil {
		fmt.Fprintf(w, "chaos: SIGKILL every %.0fs: %d kills, %d restarts, %.1fs down in all (db %s, log %s)\n",
			ch.EverySec, ch.Kills, ch.Restarts, ch.DowntimeSec, ch.DB, ch.Log)
	}

	fmt.Fprintln(w)
	if r.Checks != nil {
		ck := r.Checks
		fmt.Fprintf(w, "books: %d accounts, %d orders, %d ledger entries, %d codes checked\n", ck.Accounts, ck.Orders, ck.LedgerEntries, ck.Codes)
		for _, n := range ck.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		nameWidth := 0
		for _, c := range ck.Checks {
			nameWidth = max(nameWidth, len(c.Name))
		}
		for _, c := range ck.Checks {
			status := "ok"
			switch {
			case c.Skipped:
				status = "skip"
			case !c.OK:
				status = "FAIL"
			}
			detail := c.Note
			if !c.OK && !c.Skipped {
				detail = fmt.Sprintf("%d violation(s): %s", c.Violations, strings.Join(c.Examples, "; "))
			}
			fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %-4s  %-*s  %s", status, nameWidth, c.Name, detail), " "))
		}
	}
	if r.Pass {
		fmt.Fprintln(w, "\nRESULT: PASS, every invariant held")
	} else {
		fmt.Fprintln(w, "\nRESULT: FAIL, the books are broken:")
		if r.Checks != nil {
			for _, f := range r.Checks.Failed() {
				fmt.Fprintf(w, "  %s\n", f)
			}
		}
	}
}
