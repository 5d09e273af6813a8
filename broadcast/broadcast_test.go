package broadcast

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"io"
	"log/slog"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to make test schemas
	"github.com/redis/go-redis/v9"

	"github.com/topupd/topupd"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// deployment makes the nodes of one deployment of an implementation.
type deployment struct {
	// open returns a node's invalidations.
	open func(t *testing.T) topupd.Invalidations
	// deaf joins a listener that hears every announcement and never
	// acknowledges one, as a node stuck in a pause would.
	deaf func(t *testing.T)
}

// TestInvalidations: on each implementation, an announcement returns once
// every listening node has forgotten, a stopped node is not waited for, a
// node that hears and never acknowledges is waited for until the bound
// passes, and another deployment hears nothing.
func TestInvalidations(t *testing.T) {
	for name, deploy := range map[string]func(*testing.T) deployment{"redis": redisDeployment, "postgres": postgresDeployment} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testInvalidations(t, deploy(t), deploy(t))
		})
	}
}

func testInvalidations(t *testing.T, d, other deployment) {
	ctx := t.Context()
	var nodes []*listener
	for range 3 {
		nodes = append(nodes, listen(t, d.open(t)))
	}
	stranger := listen(t, other.open(t))
	waitHearing(t, append(nodes, stranger)...)
	announcer := d.open(t)

	before := counts(nodes)
	start := time.Now()
	if err := announcer.Announce(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited >= time.Minute {
		t.Errorf("the announcement waited out its bound (%v): not every node acknowledged", waited)
	}
	for i, n := range nodes {
		if n.forgot.Load() <= before[i] {
			t.Errorf("node %d had not forgotten when the announcement returned", i)
		}
	}
	if got := stranger.forgot.Load(); got != 1 { // once, when it started hearing
		t.Errorf("a node of another deployment forgot %d times, want 1", got)
	}

	nodes[2].stop()
	if nodes[2].hearing.Load() {
		t.Error("a stopped node still hears")
	}
	before = counts(nodes)
	if err := announcer.Announce(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes[:2] {
		if n.forgot.Load() <= before[i] {
			t.Errorf("node %d had not forgotten when the announcement returned, with one node stopped", i)
		}
	}

	d.deaf(t)
	before = counts(nodes)
	const bound = 300 * time.Millisecond
	start = time.Now()
	if err := announcer.Announce(ctx, bound); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < bound {
		t.Errorf("with a node that never acknowledges, the announcement returned after %v, before its bound %v", waited, bound)
	}
	for i, n := range nodes[:2] {
		if n.forgot.Load() <= before[i] {
			t.Errorf("node %d had not forgotten, with a deaf node", i)
		}
	}
}

// listener is one node listening: how often it forgot, whether it hears.
type listener struct {
	forgot  atomic.Int64
	hearing atomic.Bool
	stop    func() // stops listening and waits until it has
}

// listen starts a node listening on inv until the test ends.
func listen(t *testing.T, inv topupd.Invalidations) *listener {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	n := &listener{stop: func() { cancel(); <-done }}
	go func() {
		defer close(done)
		inv.Listen(ctx, func() { n.forgot.Add(1) }, n.hearing.Store)
	}()
	t.Cleanup(n.stop)
	return n
}

// waitHearing waits until every node hears.
func waitHearing(t *testing.T, nodes ...*listener) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for i, n := range nodes {
		for !n.hearing.Load() {
			if time.Now().After(deadline) {
				t.Fatalf("node %d never started hearing", i)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// counts reads how often each node forgot.
func counts(nodes []*listener) []int64 {
	out := make([]int64, len(nodes))
	for i, n := range nodes {
		out[i] = n.forgot.Load()
	}
	return out
}

// redisDeployment is a deployment on this machine's Redis, under a key
// prefix of its own.
func redisDeployment(t *testing.T) deployment {
	u := os.Getenv("TOPUPD_TEST_REDIS")
	if u == "" {
		t.Skip("TOPUPD_TEST_REDIS is not set: no Redis to test against")
	}
	opts, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	opts.ContextTimeoutEnabled = true
	prefix := "test:" + fresh() + ":"
	return deployment{
		open: func(t *testing.T) topupd.Invalidations {
			c := redis.NewClient(opts)
			t.Cleanup(func() { c.Close() })
			return NewRedis(c, prefix, 2*time.Second, quiet)
		},
		deaf: func(t *testing.T) {
			c := redis.NewClient(opts)
			t.Cleanup(func() { c.Close() })
			sub := c.Subscribe(t.Context(), prefix+"invalidate")
			t.Cleanup(func() { sub.Close() })
			if _, err := sub.Receive(t.Context()); err != nil { // the subscription's confirmation
				t.Fatal(err)
			}
		},
	}
}

// postgresDeployment is a deployment on this machine's PostgreSQL, in a
// schema of its own.
func postgresDeployment(t *testing.T) deployment {
	base := os.Getenv("TOPUPD_TEST_POSTGRES")
	if base == "" {
		t.Skip("TOPUPD_TEST_POSTGRES is not set: no PostgreSQL to test against")
	}
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	schema := "t_" + fresh()
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Exec("DROP SCHEMA " + schema + " CASCADE")
		db.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	open := func(t *testing.T) *Postgres {
		p, err := NewPostgres(t.Context(), u.String(), 5*time.Second, quiet)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	return deployment{
		open: func(t *testing.T) topupd.Invalidations { return open(t) },
		deaf: func(t *testing.T) {
			p := open(t)
			conn, err := p.connect(t.Context(), p.appName)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close(context.Background()) })
			if _, err := conn.Exec(t.Context(), "LISTEN "+pgx.Identifier{p.channel}.Sanitize()); err != nil {
				t.Fatal(err)
			}
		},
	}
}

// fresh returns a random name part.
func fresh() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}
