package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/topupd/topupd/client"
)

// TestMain lets a test run this very binary as topupd: with
// TOPUPD_TEST_RUN_MAIN=1 the process is topupd, not the test runner. So
// is a process this binary starts with its own environment, which the
// runner marks with its process id (testRunnerVar): the chaos bench
// restarts its server as os.Executable() with os.Environ(), and marking
// the environment here, once, spares TestBenchChaos a t.Setenv, which
// would keep it from running in parallel.
func TestMain(m *testing.M) {
	runner := os.Getenv(testRunnerVar)
	if os.Getenv("TOPUPD_TEST_RUN_MAIN") == "1" || (runner != "" && runner != strconv.Itoa(os.Getpid())) {
		main()
		os.Exit(0)
	}
	os.Setenv(testRunnerVar, strconv.Itoa(os.Getpid()))
	code := m.Run()
	if server.dir != "" {
		os.RemoveAll(server.dir)
	}
	os.Exit(code)
}

// testRunnerVar holds the process id of the test runner, in its own
// environment and so in that of every process it starts (see TestMain).
const testRunnerVar = "TOPUPD_TEST_RUNNER_PID"

// server is the topupd binary the servers of these tests run as: built
// once, by go build as an operator builds it, without the race detector
// even under go test -race. Several servers run at once in many of these
// tests, and under -race each took several times the CPU, which made CI
// the slowest of all; the server's code runs under -race in the
// in-process tests of its packages (httpapi, fulfil, topupdtest…).
var server struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// serverBinary returns the path of the server binary, building it first.
func serverBinary(t testing.TB) string {
	t.Helper()
	server.once.Do(func() {
		if server.dir, server.err = os.MkdirTemp("", "topupd-server"); server.err != nil {
			return
		}
		server.path = server.dir + "/topupd"
		out, err := exec.Command("go", "build", "-o", server.path, ".").CombinedOutput()
		if err != nil {
			server.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if server.err != nil {
		t.Fatal(server.err)
	}
	return server.path
}

// proc is a topupd server running as a child process.
type proc struct {
	t     testing.TB
	cmd   *exec.Cmd
	api   string
	admin string
	out   *syncBuffer
	done  chan error
}

const testAdminToken = "test-admin-token"

// secrets holds, per test, the values no process's log may hold.
var secrets sync.Map // testing.TB -> map[string]string (secret -> what it is)

// keepSecret registers a value no process of t may write to its log.
func keepSecret(t testing.TB, value, what string) {
	m, _ := secrets.LoadOrStore(t, &sync.Map{})
	m.(*sync.Map).Store(value, what)
}

// secretsOf returns t's secrets, with the admin token among them.
func secretsOf(t testing.TB) map[string]string {
	out := map[string]string{testAdminToken: "the admin token"}
	if m, ok := secrets.Load(t); ok {
		m.(*sync.Map).Range(func(k, v any) bool { out[k.(string)] = v.(string); return true })
	}
	return out
}

// endToEnd skips, under go test -short, a test that runs topupd whole
// (as a process, or served with its command's wiring).
func endToEnd(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end (topupd run whole): skipped by -short")
	}
}

// startProc runs `topupd serve` on db as a child process and waits until it listens.
func startProc(t testing.TB, db string, extra ...string) *proc {
	t.Helper()
	return startProcEnv(t, nil, db, extra...)
}

// startProcEnv is startProc with extra environment variables.
func startProcEnv(t testing.TB, env []string, db string, extra ...string) *proc {
	t.Helper()
	endToEnd(t)
	args := append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"}, extra...)
	cmd := exec.Command(serverBinary(t), args...)
	cmd.Env = append(os.Environ(), "TOPUPD_ADMIN_TOKEN="+testAdminToken,
		"TOPUPD_RATE_PER_SECOND=100000", "TOPUPD_RATE_PER_MINUTE=1000000", "TOPUPD_LOG_LEVEL=warn",
		"TOPUPD_SIM=on") // sim stands in for suppliers; env "TOPUPD_SIM=" gives the default, off
	cmd.Env = append(cmd.Env, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, out: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		p.kill()
		// The whole log, once the process is gone: no secret of the test's.
		for s, what := range secretsOf(t) {
			if strings.Contains(p.out.String(), s) {
				t.Errorf("the log of %s holds %s", strings.Join(args, " "), what)
			}
		}
	})
	addr := regexp.MustCompile(`on http://(\S+)`)
	deadline := time.After(30 * time.Second)
	for p.api == "" || p.admin == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("topupd exited before listening; stderr:\n%s", p.out)
			}
			if m := addr.FindStringSubmatch(l); m != nil && strings.Contains(l, "reseller API") {
				p.api = "http://" + m[1]
			} else if m != nil && strings.Contains(l, "admin API") {
				p.admin = "http://" + m[1]
			}
		case <-deadline:
			t.Fatalf("topupd did not start; stderr:\n%s", p.out)
		}
	}
	go func() {
		for range lines {
		}
	}()
	return p
}

// stop ends the process as a service manager does (SIGTERM), and waits up
// to half a minute for it to shut down.
func (p *proc) stop() {
	p.t.Helper()
	if p.cmd.ProcessState != nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		if err != nil {
			p.t.Errorf("topupd stopped with %v; stderr:\n%s", err, p.out)
		}
	case <-time.After(30 * time.Second):
		p.t.Errorf("topupd did not stop within 30 s of SIGTERM")
		p.kill()
	}
}

// kill ends the process at once, as a power cut would.
func (p *proc) kill() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Kill()
		<-p.done
	}
}

// call makes one HTTP call and decodes the JSON answer.
func call(t testing.TB, method, url, auth string, body any) (int, map[string]any) {
	t.Helper()
	return callCtx(context.Background(), t, method, url, auth, body)
}

// callCtx is call within ctx: status 0 when ctx ends before the answer.
func callCtx(ctx context.Context, t testing.TB, method, url, auth string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(auth, "tpd_") {
		req.Header.Set("X-API-Key", auth)
	} else if auth != "" {
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

// must makes an admin call through client.Admin that has to succeed, and
// returns its answer.
func (p *proc) must(method, path string, body any) map[string]any {
	p.t.Helper()
	adm, err := client.NewAdmin(p.admin, testAdminToken, client.WithRetries(0))
	if err != nil {
		p.t.Fatal(err)
	}
	var m map[string]any
	if err := adm.Do(context.Background(), method, path, body, &m); err != nil {
		p.t.Fatalf("%s %s: %v", method, path, err)
	}
	return m
}

// setup loads one top-up line and pack and one account funded with credit USD.
func (p *proc) setup(credit string) (account, key string) {
	p.must("PUT", "/admin/services/pubg", map[string]any{"productName": "PUBG UC", "gameName": "PUBG Mobile", "game": "pubg",
		"kind": "topup", "status": "active", "required": []map[string]string{{"field": "userId", "label": "Player ID"}}})
	p.must("PUT", "/admin/products/uc60", map[string]any{"slug": "pubg", "name": "60 UC", "category": "UC", "priceUsd": json.Number("1.25"), "status": "active"})
	acct := p.must("POST", "/admin/accounts", map[string]any{"name": "crash test"})
	account = acct["id"].(string)
	key = p.must("POST", "/admin/accounts/"+account+"/keys", nil)["apiKey"].(string)
	p.must("POST", "/admin/accounts/"+account+"/credits", map[string]any{"amountUsd": json.Number(credit), "reference": "opening"})
	return account, key
}

// books checks that the account's ledger adds up to its balance and that
// every order's money is right: one charge each, and one refund exactly for
// each refunded cancelled order. It returns the orders by status.
func (p *proc) books(account, key string) map[string]int {
	p.t.Helper()
	ledger := p.must("GET", "/admin/accounts/"+account+"/ledger?limit=100000", nil)["entries"].([]any)
	var sum float64 // only to compare with balanceUsd; both come from exact decimal JSON
	charges, refunds := map[string]int{}, map[string]int{}
	for _, e := range ledger {
		m := e.(map[string]any)
		sum += m["amountUsd"].(float64)
		switch m["kind"] {
		case "charge":
			charges[m["orderId"].(string)]++
		case "refund":
			refunds[m["orderId"].(string)]++
		}
	}
	acct := p.must("GET", "/admin/accounts/"+account, nil)
	if bal := acct["balanceUsd"].(float64); fmt.Sprintf("%.4f", bal) != fmt.Sprintf("%.4f", sum) || bal < 0 {
		p.t.Errorf("balance %v, ledger sum %v", bal, sum)
	}
	var orders []any
	for page := 1; ; page++ {
		status, hist := call(p.t, "GET", fmt.Sprintf("%s/history?page=%d&pageSize=50", p.api, page), key, nil)
		if status != 200 {
			p.t.Fatalf("history: %d %v", status, hist)
		}
		orders = append(orders, hist["orders"].([]any)...)
		if hist["hasMore"] != true {
			break
		}
	}
	byStatus := map[string]int{}
	for _, o := range orders {
		m := o.(map[string]any)
		id, st := m["orderId"].(string), m["status"].(string)
		byStatus[st]++
		if charges[id] != 1 {
			p.t.Errorf("order %s has %d charges", id, charges[id])
		}
		wantRefund := 0
		if st == "cancelled" && m["refunded"] == true {
			wantRefund = 1
		}
		if refunds[id] != wantRefund {
			p.t.Errorf("order %s (%s) has %d refunds, want %d", id, st, refunds[id], wantRefund)
		}
	}
	if len(charges) != len(orders) {
		p.t.Errorf("%d charged orders, %d orders in history", len(charges), len(orders))
	}
	// The server's own audit of the whole database must agree.
	if audit := p.must("GET", "/admin/audit", nil); audit["success"] != true && byStatus["processing"] == 0 {
		p.t.Errorf("audit: %v", audit["checks"])
	}
	return byStatus
}

// waitFinal polls until the account has no processing order, or fails after limit.
func (p *proc) waitFinal(key string, limit time.Duration) {
	p.t.Helper()
	end := time.Now().Add(limit)
	for time.Now().Before(end) {
		_, m := call(p.t, "GET", p.admin+"/admin/orders?status=processing", testAdminToken, nil)
		if m != nil && m["count"] == float64(0) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.t.Fatalf("orders still processing after %v", limit)
}

// TestCrashRestart kills the server without a graceful stop while orders are
// processing and while new ones arrive, starts it again, and checks that every
// order ends, not before the sim delay, and that the money adds up. The
// restarted node takes its orders back at once: waitFinal's bound is less
// than the lease (fulfil.DefaultLease, 30 s) that other nodes would wait.
func TestCrashRestart(t *testing.T) {
	t.Parallel()
	db := t.TempDir() + "/crash.db"
	p := startProc(t, db)
	account, key := p.setup("1000")
	p.must("PATCH", "/admin/settings", map[string]any{"simDelayMs": 2500})

	placed := map[string]string{} // orderId -> userId
	for i := range 20 {
		user := fmt.Sprintf("5%06d", i)
		if i%4 == 0 {
			user = fmt.Sprintf("9999%03d", i) // sim refuses these players
		}
		status, m := call(t, "POST", p.api+"/orders", key, map[string]any{"pid": "uc60", "trxid": fmt.Sprintf("crash-%d", i), "userId": user})
		if status != 200 || m["status"] != "processing" {
			t.Fatalf("order %d: %d %v", i, status, m)
		}
		placed[m["orderId"].(string)] = user
	}
	// Orders keep arriving while the power goes.
	ctx, stop := context.WithCancel(context.Background())
	storm := make(chan struct{})
	go func() {
		defer close(storm)
		for i := 0; ctx.Err() == nil; i++ {
			call(t, "POST", p.api+"/orders", key, map[string]any{"pid": "uc60", "trxid": fmt.Sprintf("storm-%d", i), "userId": "5000001"})
		}
	}()
	time.Sleep(300 * time.Millisecond)
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	stop()
	<-storm

	q := startProc(t, db)
	q.waitFinal(key, 20*time.Second)
	for id, user := range placed {
		status, m := call(t, "GET", q.api+"/orders/"+id, key, nil)
		if status != 200 {
			t.Fatalf("order %s after restart: %d %v", id, status, m)
		}
		want := "completed"
		if strings.HasPrefix(user, "9999") {
			want = "cancelled"
		}
		if m["status"] != want {
			t.Errorf("order %s (user %s) is %v, want %s", id, user, m["status"], want)
		}
		// Not before the sim delay of 2.5 s (how long after it depends on
		// how busy the machine is; waitFinal bounds it).
		if d := m["durationSec"].(float64); d < 2 {
			t.Errorf("order %s finished after %vs; the sim delay is 2.5 s", id, d)
		}
	}
	byStatus := q.books(account, key)
	if byStatus["processing"] != 0 || byStatus["cancelled"] < 5 {
		t.Errorf("orders by status: %v", byStatus)
	}
	t.Logf("orders by status after the crash: %v", byStatus)
}

// TestGracefulStop sends SIGTERM while a slow supplier call is in flight: the
// request is still answered and the process exits cleanly.
func TestGracefulStop(t *testing.T) {
	t.Parallel()
	db := t.TempDir() + "/graceful.db"
	p := startProc(t, db)
	_, key := p.setup("100")
	p.must("PATCH", "/admin/settings", map[string]any{"simCallMs": 5000})
	answered := make(chan int, 1)
	go func() {
		status, _ := call(t, "POST", p.api+"/orders", key, map[string]any{"pid": "uc60", "trxid": "slow-1", "userId": "5000001"})
		answered <- status
	}()
	// The order is in the database while its supplier call (5 s) runs:
	// once it shows, the request is in flight.
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if len(p.must("GET", "/admin/orders?trxid=slow-1", nil)["orders"].([]any)) == 1 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the order was never placed")
		}
	}
	select {
	case status := <-answered:
		t.Fatalf("the order was answered (%d) before the SIGTERM: nothing was in flight", status)
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case status := <-answered:
		if status != 200 {
			t.Errorf("in-flight order answered %d during shutdown", status)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("in-flight order not answered")
	}
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("exit: %v; stderr:\n%s", err, p.out)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("topupd did not stop")
	}
}

// TestDemo starts serve --demo and uses the printed key.
func TestDemo(t *testing.T) {
	t.Parallel()
	db := t.TempDir() + "/demo.db"
	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	env := map[string]string{"TOPUPD_RATE_PER_SECOND": "1000"}
	go func() {
		errc <- run(ctx, []string{"serve", "--demo", "--db", db, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0", "--log-level", "error"},
			func(k string) string { return env[k] }, &out, io.Discard)
	}()
	var api, key string
	// Bounded far above what a busy machine takes: the server starts in
	// this process, under -race.
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end) && api == ""; time.Sleep(20 * time.Millisecond) {
		s := out.String()
		if m := regexp.MustCompile(`reseller API on (http://\S+)`).FindStringSubmatch(s); m != nil {
			api = m[1]
			key = regexp.MustCompile(`tpd_[A-Za-z0-9_-]{43}`).FindString(s)
		}
	}
	if api == "" || key == "" {
		t.Fatalf("no address or key printed:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "curl -s -H 'X-API-Key: "+key+"'") {
		t.Errorf("no ready curl line:\n%s", out.String())
	}
	status, bal := call(t, "GET", api+"/balance", key, nil)
	if status != 200 || bal["balanceUsd"] != float64(1000) {
		t.Errorf("demo balance: %d %v", status, bal)
	}
	_, services := call(t, "GET", api+"/services", key, nil)
	slugs := map[string]bool{}
	for _, s := range services["services"].([]any) {
		line := s.(map[string]any)
		slugs[line["slug"].(string)] = true
		// Patterns are served anchored, as a client would apply them.
		for _, r := range line["required"].([]any) {
			if p, ok := r.(map[string]any)["pattern"].(string); ok && (!strings.HasPrefix(p, "^") || !strings.HasSuffix(p, "$")) {
				t.Errorf("line %s serves the unanchored pattern %q", line["slug"], p)
			}
		}
		if k := line["kind"]; k == "gamekey" || k == "giftcard" {
			if !strings.Contains(fmt.Sprint(line["required"]), "field:quantity") {
				t.Errorf("key line %s does not declare quantity: %v", line["slug"], line["required"])
			}
		}
	}
	for _, want := range []string{"pubg", "pubgsubscription", "pubgucspecial", "pubgcncn", "ffmena", "ffcis", "ffbd", "fflatam",
		"valorant", "wutheringwaves", "identityv", "oncehuman", "mobilelegends", "gamekey", "gamekeypubg", "giftcard"} {
		if !slugs[want] {
			t.Errorf("demo has no %s line", want)
		}
	}
	_, products := call(t, "GET", api+"/products", key, nil)
	stocked := 0
	for _, p := range products["products"].([]any) {
		if q, ok := p.(map[string]any)["quantity"].(float64); ok && q > 0 {
			stocked++
		}
	}
	if stocked < 3 {
		t.Errorf("%d demo packs have stock", stocked)
	}
	info, err := os.Stat(db + ".key")
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("secret key file: %v %v", info, err)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("run: %v", err)
	}
}
