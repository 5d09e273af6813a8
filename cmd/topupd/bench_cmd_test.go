package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/loadgen"
)

// bcServer runs topupd in-process on a temp database with env and returns
// its reseller and admin URLs.
func bcServer(t testing.TB, env map[string]string) (api, admin string) {
	t.Helper()
	endToEnd(t)
	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--db", t.TempDir() + "/bench.db", "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0", "--log-level", "error", "--sim", "on"},
			func(k string) string { return env[k] }, &out, io.Discard)
	}()
	t.Cleanup(func() { cancel(); <-done })
	re := regexp.MustCompile(`(reseller|admin) API on (http://\S+)`)
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end) && (api == "" || admin == ""); time.Sleep(10 * time.Millisecond) {
		for _, m := range re.FindAllStringSubmatch(out.String(), -1) {
			if m[1] == "reseller" {
				api = m[2]
			} else {
				admin = m[2]
			}
		}
	}
	if api == "" || admin == "" {
		t.Fatalf("server did not start: %s", out.String())
	}
	return api, admin
}

// runBenchCmd runs `topupd bench args...` with an empty environment.
func runBenchCmd(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	endToEnd(t)
	var out, errOut syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err = run(ctx, append([]string{"bench"}, args...), func(string) string { return "" }, &out, &errOut)
	return out.String(), errOut.String(), err
}

func readReport(t *testing.T, path string) *loadgen.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep loadgen.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("the JSON report does not parse: %v\n%s", err, b)
	}
	return &rep
}

// checkRoutes asserts every route was driven and has sane percentiles.
func checkRoutes(t *testing.T, rep *loadgen.Report) {
	t.Helper()
	seen := map[string]loadgen.RouteStats{}
	for _, r := range rep.Routes {
		seen[r.Route] = r
	}
	for _, route := range loadgen.AllRoutes {
		r, ok := seen[route]
		switch {
		case !ok:
			t.Errorf("route %s missing from the report", route)
		case r.Requests == 0 || r.OK == 0 || r.PerSecond <= 0:
			t.Errorf("route %s: %d requests, %d ok, %.2f/s", route, r.Requests, r.OK, r.PerSecond)
		case !(r.P50Ms > 0 && r.P50Ms <= r.P90Ms && r.P90Ms <= r.P99Ms && r.P99Ms <= r.MaxMs && r.MaxMs < 60_000):
			t.Errorf("route %s: insane percentiles p50 %v p90 %v p99 %v max %v", route, r.P50Ms, r.P90Ms, r.P99Ms, r.MaxMs)
		}
	}
	var sum int64
	for _, r := range rep.Routes {
		sum += r.Requests
	}
	if rep.Total.Requests != sum || sum == 0 {
		t.Errorf("total %d, routes add up to %d", rep.Total.Requests, sum)
	}
}

// TestBenchCommand runs a short bench at the spec's limits against an
// in-process server: every route is driven, the pacing keeps every account
// inside the limits (no 429), the report parses and the books check out.
func TestBenchCommand(t *testing.T) {
	t.Parallel()
	api, admin := bcServer(t, map[string]string{"TOPUPD_ADMIN_TOKEN": testAdminToken})
	jsonPath := filepath.Join(t.TempDir(), "report.json")
	stdout, stderr, err := runBenchCmd(t, "--api", api, "--admin", admin, "--admin-token", testAdminToken,
		"--duration", "3s", "--accounts", "5", "--concurrency", "8", "--seed", "7", "--json", jsonPath,
		"--baseline", "--baseline-duration", "1s")
	if err != nil {
		t.Fatalf("bench failed: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	rep := readReport(t, jsonPath)
	checkRoutes(t, rep)
	if !rep.Pass || rep.Checks == nil || !rep.Checks.OK {
		t.Errorf("the books did not check out: %+v", rep.Checks)
	}
	if rep.Checks != nil && (!rep.Checks.AuditRan || rep.Checks.Orders == 0 || rep.Checks.LedgerEntries == 0) {
		t.Errorf("checked too little: %+v", rep.Checks)
	}
	if rep.Total.RateLimited != 0 {
		t.Errorf("%d calls were refused 429: the pacing let an account exceed 40/s or 200/min", rep.Total.RateLimited)
	}
	if rep.Errors.Count != 0 || rep.Total.ServerErrors != 0 || rep.Total.NetErrors != 0 {
		t.Errorf("errors: %+v, %d 5xx, %d network", rep.Errors, rep.Total.ServerErrors, rep.Total.NetErrors)
	}
	if rep.Orders.Placed == 0 || rep.Orders.CodesReceived == 0 || rep.Config.Seed != 7 || rep.Config.Accounts != 5 {
		t.Errorf("orders %+v, config %+v", rep.Orders, rep.Config)
	}
	if rep.Baseline == nil || rep.Baseline.PerSecond <= 0 || rep.Total.BaselineRatio == nil {
		t.Errorf("no baseline: %+v", rep.Baseline)
	}
	for _, r := range rep.Routes {
		if r.BaselineRatio == nil || *r.BaselineRatio <= 0 {
			t.Errorf("route %s has no baseline ratio", r.Route)
		}
	}
	for _, want := range []string{"route", "p50 ms", "p99 ms", "POST /orders", "GET /orders/{id}", "baseline (bare net/http)", "RESULT: PASS", "simDelayMs 0 → 1000"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "limits raised") {
		t.Errorf("a run at the spec's limits says they were raised:\n%s", stdout)
	}
	if !regexp.MustCompile(`(?m)^\s+\d+s\s+requests\s+\d+ .*orders\s+\d+\s+errors\s+\d+`).MatchString(stderr) {
		t.Errorf("no progress lines on stderr:\n%s", stderr)
	}
}

// TestBenchFailsOnBrokenBooks puts a proxy in front of the admin API that
// adds 0.0001 USD to every account's balance: the ledgers no longer sum to
// the balances, and the command must fail and say so.
func TestBenchFailsOnBrokenBooks(t *testing.T) {
	t.Parallel()
	api, admin := bcServer(t, map[string]string{"TOPUPD_ADMIN_TOKEN": testAdminToken})
	target, _ := url.Parse(admin)
	proxy := httputil.NewSingleHostReverseProxy(target)
	accountPath := regexp.MustCompile(`^/admin/accounts/[^/]+$`)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method != http.MethodGet || !accountPath.MatchString(resp.Request.URL.Path) || resp.StatusCode != 200 {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		var acct map[string]json.RawMessage
		if err := json.Unmarshal(body, &acct); err != nil {
			return err
		}
		var bal topupd.Money
		if err := json.Unmarshal(acct["balanceUsd"], &bal); err != nil {
			return err
		}
		acct["balanceUsd"], _ = json.Marshal(bal + 1)
		body, _ = json.Marshal(acct)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	front := httptest.NewServer(proxy)
	defer front.Close()
	jsonPath := filepath.Join(t.TempDir(), "report.json")
	stdout, stderr, err := runBenchCmd(t, "--api", api, "--admin", front.URL, "--admin-token", testAdminToken,
		"--duration", "1s", "--accounts", "2", "--concurrency", "4", "--json", jsonPath)
	if err == nil {
		t.Fatalf("bench passed broken books:\n%s\n%s", stdout, stderr)
	}
	if !strings.Contains(err.Error(), "INVARIANTS BROKEN") || !strings.Contains(err.Error(), loadgen.CheckLedgerSums) {
		t.Errorf("the error does not name the broken invariant: %v", err)
	}
	if !strings.Contains(stdout, "RESULT: FAIL") || !strings.Contains(stdout, "FAIL  "+loadgen.CheckLedgerSums) {
		t.Errorf("stdout does not show the failure:\n%s", stdout)
	}
	if rep := readReport(t, jsonPath); rep.Pass {
		t.Error("the JSON report says pass")
	}
}

// TestBenchChaos lets the bench start its own server (this test binary, as
// topupd) and SIGKILL it every 2 s during a 6 s load: the books must still
// check out afterwards. A restart under -race on a busy machine can take
// seconds, so only the first kill, 2 s in, is certain to fall in the load.
func TestBenchChaos(t *testing.T) {
	t.Parallel() // the child this binary starts, with its environment, is topupd (see TestMain)
	jsonPath := filepath.Join(t.TempDir(), "report.json")
	stdout, stderr, err := runBenchCmd(t, "--chaos", "2", "--duration", "6s", "--accounts", "4", "--concurrency", "8",
		"--rate-per-second", "50", "--rate-per-minute", "3000", "--json", jsonPath)
	if err != nil {
		t.Fatalf("chaos bench failed: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	rep := readReport(t, jsonPath)
	if rep.Chaos == nil || rep.Chaos.Kills < 1 || rep.Chaos.Restarts != rep.Chaos.Kills {
		t.Errorf("chaos: %+v", rep.Chaos)
	}
	if !rep.Pass || !rep.Checks.OK {
		t.Errorf("the books did not survive the kills: %v", rep.Checks.Failed())
	}
	if rep.Orders.Placed == 0 || rep.Checks.Orders == 0 {
		t.Errorf("no orders: %+v", rep.Orders)
	}
	if !strings.Contains(stdout, "limits raised for this run: 50 calls/s and 3000 calls/min") {
		t.Errorf("raised limits not reported:\n%s", stdout)
	}
	if rep.Chaos != nil {
		if _, err := os.Stat(filepath.Dir(rep.Chaos.DB)); !os.IsNotExist(err) {
			t.Errorf("the chaos directory %s was not removed after a passing run", filepath.Dir(rep.Chaos.DB))
		}
	}
}

func TestBenchFlags(t *testing.T) {
	t.Parallel()
	env := map[string]string{"TOPUPD_ADMIN_TOKEN": "tok", "TOPUPD_RATE_PER_SECOND": "100", "TOPUPD_BENCH_ACCOUNTS": "7"}
	getenv := func(k string) string { return env[k] }
	cfg, err := parseBench([]string{"--duration", "2s", "--mix", "order=60", "--chaos", "1.5"}, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.AdminToken != "tok" || cfg.RatePerSecond != 100 || cfg.RatePerMinute != 200 || cfg.Accounts != 7 || cfg.Concurrency != 64 ||
		cfg.Duration != 2*time.Second || cfg.Mix[loadgen.ActOrder] != 60 || cfg.Chaos != 1500*time.Millisecond || cfg.Seed == 0 ||
		cfg.API != "http://127.0.0.1:8080" || cfg.Admin != "http://127.0.0.1:8081" || cfg.Burst {
		t.Errorf("parsed %+v", cfg)
	}
	for _, bad := range [][]string{
		{"--api", "http://192.0.2.1:8080"},
		{"--admin", "http://example.com:8081"},
		{"--pace", "wild"},
		{"--mix", "order=x"},
		{"--accounts", "0"},
		{"--rate-per-minute", "0"},
		{"--invalid-players", "120"},
		{"--chaos", "soon"},
		{"extra"},
	} {
		if _, err := parseBench(bad, getenv, io.Discard); err == nil {
			t.Errorf("parseBench(%q) accepted", bad)
		}
	}
	if _, err := parseBench(nil, func(string) string { return "" }, io.Discard); err == nil || !strings.Contains(err.Error(), "admin token") {
		t.Errorf("a missing admin token: %v", err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"help"}, getenv, &out, io.Discard); err != nil || !strings.Contains(out.String(), "bench") {
		t.Errorf("the usage does not list bench: %q", out.String())
	}
}
