package upstream_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/provider/upstream"
)

// observer records what the provider tells it.
type observer struct {
	mu    sync.Mutex
	calls []bool
	reads []topupd.Money
}

func (o *observer) SupplierCall(_ string, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, ok)
}

func (o *observer) SupplierRead(_ string, b topupd.Money) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.reads = append(o.reads, b)
}

// TestObserver: every call but a player check is told, failed on a 5xx, a
// 429, a 401 or 403, or no answer; an answer's top-level numeric
// balanceUsd is a read, and the answer still reads whole.
func TestObserver(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		ok     bool
		read   []topupd.Money
	}{
		{"an order with a balance", 200, `{"orderCreated":true,"orderId":"o1","status":"processing","balanceUsd":12.5}`, true, []topupd.Money{125_000}},
		{"a balance as a string is none", 200, `{"orderCreated":true,"orderId":"o1","status":"processing","balanceUsd":"12.5"}`, true, nil},
		{"a nested balance is none", 200, `{"orderCreated":true,"orderId":"o1","status":"processing","x":{"balanceUsd":3}}`, true, nil},
		{"a refusal is an answer", 400, `{"success":false,"code":"INSUFFICIENT_BALANCE","error":"INSUFFICIENT BALANCE"}`, true, nil},
		{"500", 500, `{"success":false}`, false, nil},
		{"429", 429, `{"success":false}`, false, nil},
		{"401", 401, `{"success":false}`, false, nil},
		{"403", 403, `{"success":false,"code":"API_DISABLED"}`, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			t.Cleanup(srv.Close)
			src := &sources{m: map[string]topupd.Upstream{}}
			src.set("b", srv.URL, "tk_fake")
			obs := &observer{}
			p := upstream.New(src, upstream.WithObserver(obs))
			o := &topupd.Order{ID: "ord_1", Provider: topupd.ProviderUpstream, Upstream: "b", UpstreamPID: "uc60", Fields: topupd.AccountFields{UserID: "1"}}
			out, err := p.Submit(context.Background(), o)
			if tc.status == 200 && (err != nil || out.SupplierRef != "o1") {
				t.Fatalf("the answer did not read whole: %+v, %v", out, err)
			}
			if dry := tc.status == 400; dry != errors.Is(err, topupd.ErrSupplierDry) {
				t.Errorf("%d: %v; ErrSupplierDry only for INSUFFICIENT BALANCE", tc.status, err)
			}
			if len(obs.calls) == 0 || obs.calls[len(obs.calls)-1] != tc.ok {
				t.Errorf("calls told %v, want the last %v", obs.calls, tc.ok)
			}
			if len(obs.reads) != len(tc.read) || (len(tc.read) > 0 && obs.reads[0] != tc.read[0]) {
				t.Errorf("reads %v, want %v", obs.reads, tc.read)
			}
			// A player check is not a call.
			before := len(obs.calls)
			_, _ = p.CheckPlayer(context.Background(), topupd.Supplier{Provider: topupd.ProviderUpstream, Upstream: "b", UpstreamPID: "uc60"},
				topupd.AccountFields{UserID: "1"})
			if len(obs.calls) != before {
				t.Errorf("a player check was told as a call")
			}
		})
	}
	// No answer at all.
	src := &sources{m: map[string]topupd.Upstream{}}
	src.set("b", "http://127.0.0.1:1", "tk_fake")
	obs := &observer{}
	p := upstream.New(src, upstream.WithObserver(obs))
	_, _ = p.Submit(context.Background(), &topupd.Order{ID: "ord_2", Provider: topupd.ProviderUpstream, Upstream: "b", UpstreamPID: "uc60"})
	if len(obs.calls) == 0 || obs.calls[0] {
		t.Errorf("no answer told as %v", obs.calls)
	}
}
