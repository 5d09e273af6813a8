package notify_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/storetest"
	"github.com/topupd/topupd/notify"
	"github.com/topupd/topupd/sqlite"
)

// recorder is a notifier that keeps what it is told, and fails while
// failing is set.
type recorder struct {
	name    string
	mu      sync.Mutex
	refs    []string // the credits' references, as told
	failing bool
}

func (r *recorder) Name() string { return r.name }

func (r *recorder) Notify(_ context.Context, events []topupd.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failing {
		return errors.New("down")
	}
	for _, e := range events {
		ref := "<nil>"
		if d, ok := e.Data.(*topupd.BalanceCreditedData); ok {
			ref = d.Reference
		}
		r.refs = append(r.refs, ref)
	}
	return nil
}

func (r *recorder) told() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.refs...)
}

// credits makes n credits to a fresh account, referenced prefix-0…, and
// returns their references in order.
func credits(t *testing.T, s topupd.Store, prefix string, n int) []string {
	t.Helper()
	a, err := s.CreateAccount(t.Context(), nil, topupd.Account{ID: topupd.NewID("acc_"), Name: prefix, APIEnabled: true, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for i := range n {
		ref := fmt.Sprintf("%s-%d", prefix, i)
		if _, _, err := s.Credit(t.Context(), nil, a.ID, topupd.USD(1), ref, time.Now()); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, ref)
	}
	return refs
}

// waitFor waits, at most 20 s, until cond holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20 s", what)
		}
	}
}

func openStore(t *testing.T) topupd.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "n.db"), storetest.NewVault(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// run starts a dispatcher and stops it when the test ends; stop stops it sooner.
func run(t *testing.T, d *notify.Dispatcher) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}

// TestEveryEventOnceInOrder: each notifier is told every event written
// after it first ran, once and in order; one that fails is told again
// until it succeeds, and holds up no other.
func TestEveryEventOnceInOrder(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	good, flaky := &recorder{name: "good"}, &recorder{name: "flaky", failing: true}
	d := notify.New(notify.Config{Store: s, Owner: "node-a", Poll: 5 * time.Millisecond}, good, flaky)
	run(t, d)
	// The cursors start at the stream's end when first taken: wait until
	// both exist before writing.
	waitFor(t, "the cursors taken", func() bool {
		_, ok, _ := s.TakeConsumer(t.Context(), "good", "probe", time.Now(), time.Now())
		_, ok2, _ := s.TakeConsumer(t.Context(), "flaky", "probe", time.Now(), time.Now())
		return !ok && !ok2 // held by node-a
	})
	want := credits(t, s, "c", 30)
	waitFor(t, "the good notifier told", func() bool { return len(good.told()) == len(want) })
	if got := good.told(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("told %v, want %v", got, want)
	}
	if len(flaky.told()) != 0 {
		t.Errorf("a failing notifier kept %v", flaky.told())
	}
	flaky.mu.Lock()
	flaky.failing = false
	flaky.mu.Unlock()
	waitFor(t, "the flaky notifier told once it works", func() bool { return len(flaky.told()) == len(want) })
	if got := flaky.told(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the flaky notifier was told %v, want %v", got, want)
	}
}

// TestOneNodeAtATime: of two nodes running dispatchers on one database,
// one tells a notifier's events; when it stops, the other goes on from
// its cursor: every event is told once across the two.
func TestOneNodeAtATime(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	a, b := &recorder{name: "n"}, &recorder{name: "n"}
	stopA := run(t, notify.New(notify.Config{Store: s, Owner: "node-a", Poll: 5 * time.Millisecond, Lease: time.Minute}, a))
	waitFor(t, "node-a holds the cursor", func() bool {
		_, ok, _ := s.TakeConsumer(t.Context(), "n", "probe", time.Now(), time.Now())
		return !ok
	})
	run(t, notify.New(notify.Config{Store: s, Owner: "node-b", Poll: 5 * time.Millisecond, Lease: time.Minute}, b))
	first := credits(t, s, "first", 20)
	waitFor(t, "node-a told the first credits", func() bool { return len(a.told()) == len(first) })
	stopA() // lets go of its lease
	second := credits(t, s, "second", 20)
	waitFor(t, "node-b told the second credits", func() bool { return len(b.told()) == len(second) })
	if fmt.Sprint(a.told()) != fmt.Sprint(first) || fmt.Sprint(b.told()) != fmt.Sprint(second) {
		t.Errorf("node-a told %v, node-b %v; want %v and %v", a.told(), b.told(), first, second)
	}
}

// countingStore counts the writes an idle dispatcher makes to take or
// renew its cursors.
type countingStore struct {
	notify.Store
	mu    sync.Mutex
	takes int
}

func (c *countingStore) TakeConsumer(ctx context.Context, name, owner string, now, until time.Time) (topupd.StreamPos, bool, error) {
	c.mu.Lock()
	c.takes++
	c.mu.Unlock()
	return c.Store.TakeConsumer(ctx, name, owner, now, until)
}

// TestIdleDispatcherRenewsOnly: an idle dispatcher reads the stream each
// poll, but writes to the database (a write transaction, an fsync on
// SQLite) only to take its cursor and to renew the lease a third of the
// way through it, not each poll; events written meanwhile are still told.
func TestIdleDispatcherRenewsOnly(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	counted := &countingStore{Store: s}
	r := &recorder{name: "idle"}
	run(t, notify.New(notify.Config{Store: counted, Owner: "node-a", Poll: 2 * time.Millisecond, Lease: time.Minute}, r))
	time.Sleep(300 * time.Millisecond) // some 150 polls
	refs := credits(t, s, "late", 3)
	waitFor(t, "the credits told", func() bool { return len(r.told()) == len(refs) })
	counted.mu.Lock()
	defer counted.mu.Unlock()
	if counted.takes > 2 {
		t.Errorf("an idle dispatcher took or renewed its cursor %d times in a third of a second; a one-minute lease needs one", counted.takes)
	}
}
