package httpapi_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// heldStore counts the PlaceOrder calls that found their in-flight hint
// held (PlaceOrder.HintHeld).
type heldStore struct {
	topupd.Store
	held *atomic.Int32
}

func (s heldStore) PlaceOrder(ctx context.Context, p topupd.PlaceOrder) (topupd.Order, bool, error) {
	if p.HintHeld {
		s.held.Add(1)
	}
	return s.Store.PlaceOrder(ctx, p)
}

// heldServer is a server on a clock that stands still unless the test
// moves it, so an in-flight hint stays held until the test lets it lapse,
// with its store's held PlaceOrder calls counted.
func heldServer(t *testing.T, db ...topupdtest.Option) (*topupdtest.T, *topupdtest.Clock, *atomic.Int32) {
	clk, held := topupdtest.NewClock(), &atomic.Int32{}
	h := topupdtest.New(t, append(db, topupdtest.WithClock(clk),
		topupdtest.WithStore(func(s topupd.Store) topupd.Store { return heldStore{s, held} }))...)
	h.LoadCatalog()
	return h, clk, held
}

// TestReplayWhileHintHeld, on SQLite and PostgreSQL: the in-flight hint
// outlives the answer (it lapses, it is not released), yet a repeat right
// after a completed answer, while the hint is held, is a 200 replay of the
// order, not a 429: the database answers it. Once the hint has lapsed the
// repeat takes the normal path, a replay too.
func TestReplayWhileHintHeld(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		h, clk, held := heldServer(t, db...)
		a := h.NewAccount("100", nil)
		for _, body := range []order{
			{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"},                            // a sim top-up
			{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 2},                                // a key order
			{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "idempotencyKey": h.Trx(), "userId": "5123"}, // two hints
		} {
			first := h.Place(a, body)
			if first.Str("status") != "completed" {
				t.Fatalf("%v: %v, want completed within POST", body, first)
			}
			before := held.Load()
			r := h.Do("POST", "/orders", a.Key, body)
			if r.Status != 200 || r.Body["idempotentReplay"] != true || r.Str("orderId") != first.Str("orderId") || r.Str("status") != "completed" {
				t.Errorf("%v repeated while its hint is held: %v, want a replay of %s", body, r, first.Str("orderId"))
			}
			if held.Load() != before+1 {
				t.Errorf("%v: the repeat did not find the hint held", body)
			}
			clk.Advance(httpapi.InFlightTTL)
			r = h.Do("POST", "/orders", a.Key, body)
			if r.Status != 200 || r.Body["idempotentReplay"] != true || r.Str("orderId") != first.Str("orderId") {
				t.Errorf("%v repeated after its hint lapsed: %v, want a replay", body, r)
			}
			if held.Load() != before+1 {
				t.Errorf("%v: the hint was still held %v after it was taken", body, httpapi.InFlightTTL)
			}
		}
		if n := h.HistoryCount(a); n != 3 {
			t.Errorf("%d orders, want 3", n)
		}
	})
}

// TestDuplicateDuringSlowCall, on SQLite and PostgreSQL: while the first
// request's supplier call runs (the sim supplier takes 3 s a call), a
// repeat is 429 DUPLICATE_IN_FLIGHT with Retry-After 1, answered by the
// database since the hint is held; once the first has answered, a repeat is
// its replay. Nothing is placed or charged twice.
func TestDuplicateDuringSlowCall(t *testing.T) {
	t.Parallel()
	const call = 3 * time.Second
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		h, _, held := heldServer(t, db...)
		h.Settings(map[string]any{"simCallMs": call.Milliseconds()})
		a := h.NewAccount("100", nil)
		for run := 1; ; run++ {
			body := order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"}
			firstDone := make(chan topupdtest.Reply, 1)
			go func() { r, _ := post(h, a, body); firstDone <- r }()
			var id string
			for end := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				if list, _ := h.AdminOK(200, "GET", "/admin/orders?trxid="+body["trxid"].(string), nil).Body["orders"].([]any); len(list) == 1 {
					if id = list[0].(map[string]any)["orderId"].(string); h.Calls.Stats(id)[1] == 1 {
						break // placed, and its one submit has begun
					}
				}
				if time.Now().After(end) {
					t.Fatal("the first request's supplier call never began")
				}
			}
			began, before := time.Now(), held.Load()
			dup := h.Do("POST", "/orders", a.Key, body)
			if took := time.Since(began); took >= call-500*time.Millisecond {
				// The supplier call may have ended before the repeat was
				// answered: nothing to judge. Try again, a few times.
				<-firstDone
				if run == 3 {
					t.Fatalf("the machine is too slow: a repeat took %v, against a supplier call of %v", took, call)
				}
				continue
			}
			wantFailure(t, dup, 429, "DUPLICATE_IN_FLIGHT", "DUPLICATE_IN_FLIGHT")
			if ra := dup.Header.Get("Retry-After"); ra != "1" {
				t.Errorf("Retry-After %q, want 1", ra)
			}
			if held.Load() != before+1 {
				t.Error("the repeat did not find the hint held")
			}
			first := <-firstDone
			if first.Status != 200 || first.Str("orderId") != id || first.Str("status") != "completed" {
				t.Fatalf("the first request: %v", first)
			}
			again := h.Do("POST", "/orders", a.Key, body)
			if again.Status != 200 || again.Body["idempotentReplay"] != true || again.Str("orderId") != id {
				t.Errorf("a repeat after the first answered: %v, want its replay", again)
			}
			if got := h.Calls.Stats(id); got != [3]int{1, 1, 1} {
				t.Errorf("supplier calls [max at once, submits, total] = %v, want [1 1 1]", got)
			}
			if n := h.HistoryCount(a); n != run {
				t.Errorf("%d orders, want %d", n, run)
			}
			return
		}
	})
}

// TestRejectedThenHintHeld: a request rejected at submit leaves no order,
// and its hint lapses rather than being released; a repeat while the hint
// is held finds no order under the account's lock and is placed, as it
// would be without the hint (here: right after a top-up of the balance).
func TestRejectedThenHintHeld(t *testing.T) {
	t.Parallel()
	h, _, held := heldServer(t)
	a := h.NewAccount("0.5", nil)
	body := order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"}
	if r := h.Do("POST", "/orders", a.Key, body); r.Status != 400 || r.Str("code") != "INSUFFICIENT_BALANCE" {
		t.Fatalf("first: %v, want INSUFFICIENT_BALANCE", r)
	}
	h.Credit(a, "1")
	if r := h.Place(a, body); r.Body["idempotentReplay"] != false {
		t.Errorf("the repeat after the rejection: %v, want a new order", r)
	}
	if held.Load() != 1 || h.HistoryCount(a) != 1 {
		t.Errorf("held PlaceOrder calls %d, orders %d; want 1 and 1", held.Load(), h.HistoryCount(a))
	}
}
