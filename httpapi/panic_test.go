package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// faultyStore is the real store with a fault injected into Balance and
// ResellerOrder (GET /balance and GET /orders/{id}).
type faultyStore struct {
	topupd.Store
	fault atomic.Value // func() error, called by the faulty methods
}

func (s *faultyStore) inject() error {
	if f, _ := s.fault.Load().(func() error); f != nil {
		return f()
	}
	return nil
}

func (s *faultyStore) Balance(ctx context.Context, id string) (topupd.Money, error) {
	if err := s.inject(); err != nil {
		return 0, err
	}
	return s.Store.Balance(ctx, id)
}

func (s *faultyStore) ResellerOrder(ctx context.Context, accountID, id string) (topupd.Order, error) {
	if err := s.inject(); err != nil {
		return topupd.Order{}, err
	}
	return s.Store.ResellerOrder(ctx, accountID, id)
}

// TestPanicsAndInternalErrors: a panic in a handler is a 500 JSON answer and
// the server goes on serving; an error without a code is a 500 that shows
// none of its text; http.ErrAbortHandler still aborts the answer.
func TestPanicsAndInternalErrors(t *testing.T) {
	t.Parallel()
	fs := &faultyStore{}
	h := topupdtest.New(t, topupdtest.WithStore(func(s topupd.Store) topupd.Store { fs.Store = s; return fs }))
	a := h.NewAccount("10", nil)
	internal := errorBody{500, "INTERNAL", "INTERNAL ERROR"}

	tests := []struct {
		name  string
		fault func() error
		path  string
	}{
		{"panic with a string", func() error { panic("boom: secret-detail") }, "/balance"},
		{"panic with an error", func() error { panic(errors.New("secret-detail")) }, "/orders/ord_x"},
		{"panic with a nil map write", func() error {
			var m map[string]int
			//lint:ignore SA5000 the write to a nil map is the panic under test
			m["secret-detail"] = 1
			return nil
		}, "/balance"},
		{"error without a code", func() error { return errors.New("database exploded: secret-detail") }, "/balance"},
		{"wrapped coded internal error", func() error { return topupd.Errorf(topupd.EInternal, "secret-detail") }, "/orders/ord_x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs.fault.Store(tc.fault)
			r := h.Do("GET", tc.path, a.Key, nil)
			wantFailure(t, r, internal.Status, internal.Code, internal.Error)
			if strings.Contains(string(r.Raw), "secret-detail") {
				t.Errorf("the answer leaks the cause: %s", r.Raw)
			}
			fs.fault.Store(func() error { return nil })
			if got := h.Balance(a); got != "10" {
				t.Errorf("after the fault: balance %s", got)
			}
		})
	}

	t.Run("ErrAbortHandler aborts", func(t *testing.T) {
		fs.fault.Store(func() error { panic(http.ErrAbortHandler) })
		_, err := h.Call(h.API.URL, "GET", "/balance", topupdtest.Headers{"X-API-Key": a.Key}, nil)
		if err == nil {
			t.Errorf("an aborted handler answered")
		}
		fs.fault.Store(func() error { return nil })
		if got := h.Balance(a); got != "10" {
			t.Errorf("after the abort: balance %s", got)
		}
	})
}

// TestLimiterUnavailable: a limiter that fails refuses the call with 503
// RATE_LIMIT_UNAVAILABLE, and a panicking one with a 500; nothing is placed.
func TestLimiterUnavailable(t *testing.T) {
	t.Parallel()
	var mode atomic.Int32 // 0 allow, 1 fail, 2 panic
	h := topupdtest.New(t, topupdtest.WithLimiter(topupd.RateLimiterFunc(func(ctx context.Context, key string) (topupd.RateDecision, error) {
		switch mode.Load() {
		case 1:
			return topupd.RateDecision{}, errors.New("redis down")
		case 2:
			panic("limiter bug")
		}
		return topupd.RateDecision{Allowed: true}, nil
	})))
	h.LoadCatalog()
	a := h.NewAccount("10", nil)
	mode.Store(1)
	body := order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"}
	wantFailure(t, h.Do("POST", "/orders", a.Key, body), 503, "RATE_LIMIT_UNAVAILABLE", "RATE LIMIT UNAVAILABLE")
	wantFailure(t, h.Do("GET", "/balance", a.Key, nil), 503, "RATE_LIMIT_UNAVAILABLE", "RATE LIMIT UNAVAILABLE")
	mode.Store(2)
	wantFailure(t, h.Do("POST", "/orders", a.Key, body), 500, "INTERNAL", "INTERNAL ERROR")
	mode.Store(0)
	if diff := cmp.Diff(topupdtest.Snapshot{Balance: "10", Orders: 0, Stock: h.Stock(a), Ledger: 1}, h.Snapshot(a)); diff != "" {
		t.Errorf("refused calls moved something (-want +got):\n%s", diff)
	}
	h.Place(a, body)
}
