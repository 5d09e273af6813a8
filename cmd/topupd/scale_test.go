package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// cluster is n topupd nodes on one PostgreSQL schema and one Redis.
type cluster struct {
	nodes  []*proc
	env    []string
	db     string
	redis  string
	prefix string
}

// scaleServices returns this machine's PostgreSQL and Redis URLs, or skips.
func scaleServices(t testing.TB) (pg, redis string) {
	t.Helper()
	pg, redis = os.Getenv("TOPUPD_TEST_POSTGRES"), os.Getenv("TOPUPD_TEST_REDIS")
	if pg == "" || redis == "" {
		t.Skip("TOPUPD_TEST_POSTGRES and TOPUPD_TEST_REDIS not both set: skipping multi-node tests")
	}
	return pg, redis
}

// testSchema creates a schema of the test's own and returns a URL whose
// connections use it; the schema is dropped at the end.
func testSchema(t testing.TB, pg string) string {
	t.Helper()
	dsn, ok := topupdtest.PostgresSchema(t)
	if !ok {
		t.Fatal("TOPUPD_TEST_POSTGRES is not set")
	}
	return dsn
}

// newCluster starts n nodes sharing a fresh schema and a fresh Redis prefix;
// redisURL, when set, replaces this machine's Redis, and noRedis leaves
// the nodes without one.
func newCluster(t testing.TB, n int, redisURL string, extra ...string) *cluster {
	t.Helper()
	endToEnd(t) // here, not in the goroutines below: a skip there stops nothing
	pg, redis := scaleServices(t)
	switch redisURL {
	case "":
	case noRedis:
		redis = ""
	default:
		redis = redisURL
	}
	secret := make([]byte, 32)
	rand.Read(secret)
	c := &cluster{db: testSchema(t, pg), redis: redis, env: []string{"TOPUPD_SECRET_KEY=" + base64.StdEncoding.EncodeToString(secret)}}
	p := make([]byte, 6)
	rand.Read(p)
	c.prefix = "test:" + hex.EncodeToString(p) + ":"
	var wg sync.WaitGroup
	c.nodes = make([]*proc, n)
	for i := range n {
		wg.Add(1)
		go func() { // all at once: they must migrate once between them
			defer wg.Done()
			c.nodes[i] = c.start(t, i, extra...)
		}()
	}
	wg.Wait()
	return c
}

// start runs node i. Its Redis budget is clusterRedisTimeout unless extra
// says otherwise.
func (c *cluster) start(t testing.TB, i int, extra ...string) *proc {
	args := []string{"--node-id", fmt.Sprintf("node-%d", i), "--retry-base", "50ms", "--retry-max", "500ms"}
	if c.redis != "" {
		args = append(args, "--redis", c.redis, "--redis-prefix", c.prefix, "--redis-timeout", clusterRedisTimeout)
	}
	return startProcEnv(t, c.env, c.db, append(args, extra...)...)
}

// noRedis, as newCluster's redisURL, starts nodes that share only PostgreSQL.
const noRedis = "none"

// clusterRedisTimeout is the nodes' --redis-timeout: the default 200 ms runs
// out on a busy machine running three nodes, the database and Redis at once.
const clusterRedisTimeout = "2s"

// clientAttempts is how many times clientCall sends one request at most.
const clientAttempts = 10

// clientCall makes a call the way a careful client does, for calls that are
// safe to send again (reads, and POST /orders: resent with the same trxid it
// is answered by the order it placed, if any). It sends the same request
// again after what a client is told to retry: 503 RATE_LIMIT_UNAVAILABLE,
// 429 DUPLICATE_IN_FLIGHT (after its Retry-After), and a connection error;
// any other answer, a refusal such as 429 RATE_LIMIT included, is returned
// as it is, and so is the last one after clientAttempts. Like call, it
// returns 0 and nil when the last attempt got no answer.
func clientCall(t testing.TB, method, url, key string, body any) (int, map[string]any) {
	t.Helper()
	var b []byte
	if body != nil {
		b, _ = json.Marshal(body)
	}
	backoff := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		status, m, retryAfter, err := callOnce(method, url, key, b)
		again := err != nil || status == 503 && m["code"] == "RATE_LIMIT_UNAVAILABLE" || status == 429 && m["code"] == "DUPLICATE_IN_FLIGHT"
		if !again || attempt == clientAttempts {
			if err != nil {
				t.Logf("%s %s: no answer after %d attempts: %v", method, url, attempt, err)
				return 0, nil
			}
			return status, m
		}
		wait := backoff/2 + mrand.N(backoff/2+1) // jitter, so that racing clients spread out
		if retryAfter > 0 {
			wait = retryAfter
		}
		time.Sleep(wait)
		backoff = min(2*backoff, time.Second)
	}
}

// callOnce sends one request and decodes its JSON answer and Retry-After.
func callOnce(method, url, key string, body []byte) (int, map[string]any, time.Duration, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, nil, 0, err
	}
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, 0, err
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		return 0, nil, 0, fmt.Errorf("%d answer: %w", resp.StatusCode, err)
	}
	secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	return resp.StatusCode, m, time.Duration(secs) * time.Second, nil
}

// node returns the i-th node, round robin.
func (c *cluster) node(i int) *proc { return c.nodes[i%len(c.nodes)] }

// TestNodesShareRateLimit: one account's limit holds across the nodes
// combined; another account is unaffected.
func TestNodesShareRateLimit(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, "", "--rate-per-second", "1000", "--rate-per-minute", "30")
	acct, key := c.nodes[0].setup("10")
	_, other := c.nodes[0].setup("10")
	_ = acct
	ok, limited := 0, 0
	for i := range 45 {
		status, m := clientCall(t, "GET", c.node(i).api+"/balance", key, nil)
		switch {
		case status == 200:
			ok++
		case status == 429 && m["code"] == "RATE_LIMIT":
			limited++
		default:
			t.Fatalf("call %d: %d %v", i, status, m)
		}
	}
	if ok != 30 || limited != 15 {
		t.Errorf("across 3 nodes: %d allowed, %d limited; want 30 and 15", ok, limited)
	}
	for i := range 3 {
		if status, _ := clientCall(t, "GET", c.node(i).api+"/balance", other, nil); status != 200 {
			t.Errorf("another account on node %d: %d", i, status)
		}
	}
}

// TestNodesSameTrxid sends each trxid to two nodes at once: one order, one charge.
func TestNodesSameTrxid(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 2, "")
	acct, key := c.nodes[0].setup("100")
	for round := range 20 {
		var wg sync.WaitGroup
		answers := make([]map[string]any, 2)
		statuses := make([]int, 2)
		for n := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[n], answers[n] = clientCall(t, "POST", c.node(n).api+"/orders", key,
					map[string]any{"pid": "uc60", "trxid": fmt.Sprintf("same-%d", round), "userId": "5000001"})
			}()
		}
		wg.Wait()
		ids := map[string]bool{}
		for n := range 2 {
			switch {
			case statuses[n] == 200:
				ids[answers[n]["orderId"].(string)] = true
			case statuses[n] == 429 && answers[n]["code"] == "DUPLICATE_IN_FLIGHT":
			default:
				t.Fatalf("round %d node %d: %d %v", round, n, statuses[n], answers[n])
			}
		}
		if len(ids) != 1 {
			t.Errorf("round %d: orders %v", round, ids)
		}
	}
	by := c.nodes[1].books(acct, key)
	if by["completed"] != 20 {
		t.Errorf("orders: %v, want 20 completed", by)
	}
}

// TestNodesRaces runs the overdraft and stock races across three nodes.
func TestNodesRaces(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, "")
	acct, key := c.nodes[0].setup("125") // 100 orders of 1.25
	c.nodes[0].must("PUT", "/admin/services/gamekeypubg", map[string]any{"productName": "Keys", "gameName": "PUBG", "game": "gamekey",
		"kind": "gamekey", "status": "active", "required": []any{}})
	c.nodes[0].must("PUT", "/admin/products/key1", map[string]any{"slug": "gamekeypubg", "name": "Key", "priceUsd": json.Number("0.01"), "status": "active"})
	var codes []string
	for i := range 100 {
		codes = append(codes, fmt.Sprintf("K-%03d", i))
	}
	c.nodes[0].must("POST", "/admin/products/key1/stock", map[string]any{"codes": codes})

	var okOrders, broke atomic.Int32
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, m := clientCall(t, "POST", c.node(i).api+"/orders", key, map[string]any{"pid": "uc60", "trxid": fmt.Sprintf("od-%d", i), "userId": "5000001"})
			switch {
			case status == 200:
				okOrders.Add(1)
			case status == 400 && m["error"] == "INSUFFICIENT BALANCE":
				broke.Add(1)
			default:
				t.Errorf("order %d: %d %v", i, status, m)
			}
		}()
	}
	wg.Wait()
	if okOrders.Load() != 100 || broke.Load() != 100 {
		t.Errorf("overdraft across nodes: %d placed, %d refused; want 100 and 100", okOrders.Load(), broke.Load())
	}
	c.nodes[2].books(acct, key)
	if bal := c.nodes[1].must("GET", "/admin/accounts/"+acct, nil)["balanceUsd"]; bal != float64(0) {
		t.Errorf("balance after the overdraft race: %v", bal)
	}

	c.nodes[0].must("POST", "/admin/accounts/"+acct+"/credits", map[string]any{"amountUsd": 10, "reference": "keys"})
	delivered := map[string]int{}
	var mu sync.Mutex
	placed := 0
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, m := clientCall(t, "POST", c.node(i).api+"/orders", key, map[string]any{"pid": "key1", "trxid": fmt.Sprintf("st-%d", i), "quantity": 3})
			if status != 200 {
				if status != 400 || m["error"] != "INSUFFICIENT STOCK" {
					t.Errorf("key order %d: %d %v", i, status, m)
				}
				return
			}
			mu.Lock()
			defer mu.Unlock()
			placed++
			for _, code := range m["codes"].([]any) {
				delivered[code.(string)]++
			}
		}()
	}
	wg.Wait()
	if placed != 33 || len(delivered) != 99 {
		t.Errorf("stock race across nodes: %d orders, %d distinct codes; want 33 and 99", placed, len(delivered))
	}
	for code, n := range delivered {
		if n != 1 {
			t.Errorf("code %s delivered %d times", code, n)
		}
	}
	c.nodes[0].books(acct, key)
}

// TestNodesThousandOrders spreads 1,000 orders over three nodes whose
// engines all work the same queue: every order ends once and every ledger
// adds up.
func TestNodesThousandOrders(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, "")
	acct, key := c.nodes[0].setup("2000")
	c.nodes[0].must("PATCH", "/admin/settings", map[string]any{"simDelayMs": 300})
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range 1000 {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			user := "5000001"
			if i%10 == 0 {
				user = "99990001"
			}
			status, m := clientCall(t, "POST", c.node(i).api+"/orders", key, map[string]any{"pid": "uc60", "trxid": fmt.Sprintf("k-%d", i), "userId": user})
			if status != 200 {
				t.Errorf("order %d: %d %v", i, status, m)
			}
		}()
	}
	wg.Wait()
	c.nodes[0].waitFinal(key, 60*time.Second)
	by := c.nodes[1].books(acct, key)
	if by["completed"] != 900 || by["cancelled"] != 100 {
		t.Errorf("1,000 orders over 3 nodes: %v", by)
	}
}

// TestNodeKilledMidLoad kills one node while its engine holds orders; the
// other nodes finish them once its leases run out.
func TestNodeKilledMidLoad(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, "", "--lease", "2s", "--supplier-timeout", "1s")
	acct, key := c.nodes[0].setup("500")
	c.nodes[0].must("PATCH", "/admin/settings", map[string]any{"simDelayMs": 400, "simCallMs": 150})
	var wg sync.WaitGroup
	for i := range 120 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			call(t, "POST", c.node(i).api+"/orders", key, map[string]any{"pid": "uc60", "trxid": fmt.Sprintf("kill-%d", i), "userId": "5000001"})
		}()
	}
	time.Sleep(500 * time.Millisecond)
	c.nodes[2].cmd.Process.Signal(syscall.SIGKILL)
	<-c.nodes[2].done
	wg.Wait()
	c.nodes = c.nodes[:2]
	c.nodes[0].waitFinal(key, 30*time.Second)
	by := c.nodes[1].books(acct, key)
	if by["processing"] != 0 || by["completed"] == 0 {
		t.Errorf("after a node died: %v", by)
	}
}

// TestRedisStoppedMidLoad stops a Redis of the test's own under load:
// orders answer 503 RATE_LIMIT_UNAVAILABLE and nothing is lost; when Redis
// is back, so is the service.
func TestRedisStoppedMidLoad(t *testing.T) {
	t.Parallel()
	scaleServices(t)
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("no redis-server binary: skipping the Redis failure test")
	}
	port := strings.Split(freeAddr(t), ":")[1]
	startRedis := func() *exec.Cmd {
		cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if out, _ := exec.Command("redis-cli", "-p", port, "ping").Output(); strings.TrimSpace(string(out)) == "PONG" {
				return cmd
			}
		}
		t.Fatal("private redis did not start")
		return nil
	}
	redis := startRedis()
	t.Cleanup(func() { redis.Process.Kill(); redis.Wait() })
	// The default budget, so that with Redis gone each call fails fast.
	c := newCluster(t, 2, "redis://127.0.0.1:"+port+"/0", "--redis-timeout", "200ms")
	acct, key := c.nodes[0].setup("500")

	placed := map[string]bool{}
	unavailable := 0
	order := func(i int) {
		// Each call is answered, not left hanging on the missing Redis: a
		// call with no answer in 10 s (50 times the nodes' Redis budget)
		// fails as status 0.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		status, m := callCtx(ctx, t, "POST", c.node(i).api+"/orders", key, map[string]any{"pid": "uc60", "trxid": fmt.Sprintf("r-%d", i), "userId": "5000001"})
		switch {
		case status == 200:
			placed[m["orderId"].(string)] = true
		case status == 503 && m["code"] == "RATE_LIMIT_UNAVAILABLE":
			unavailable++
		default:
			t.Errorf("order %d: %d %v", i, status, m)
		}
	}
	for i := range 20 {
		order(i)
	}
	redis.Process.Kill()
	redis.Wait()
	for i := 20; i < 40; i++ {
		order(i)
	}
	if unavailable != 20 {
		t.Errorf("with Redis down, %d of 20 orders answered RATE_LIMIT_UNAVAILABLE", unavailable)
	}
	if status, m := call(t, "GET", c.nodes[0].admin+"/admin/healthz", testAdminToken, nil); status != 503 || m["redis"] == "ok" {
		t.Errorf("readiness with Redis down: %d %v", status, m)
	}
	redis = startRedis()
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if status, _ := call(t, "GET", c.nodes[1].api+"/balance", key, nil); status == 200 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the service did not come back with Redis")
		}
	}
	for i := 40; i < 50; i++ {
		order(i)
	}
	by := c.nodes[0].books(acct, key)
	if got := by["completed"] + by["cancelled"] + by["processing"]; got != len(placed) || len(placed) != 30 {
		t.Errorf("%d orders answered 200, %d orders exist (%v)", len(placed), got, by)
	}
}
