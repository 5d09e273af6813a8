package upstream_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/provider/upstream"
)

// fakeUpstream answers every call with one canned status and body.
func fakeUpstream(t *testing.T, status int, body string) *upstream.Provider {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	src := &sources{m: map[string]topupd.Upstream{}}
	src.set("b", srv.URL, "tk_fake")
	return upstream.New(src)
}

func TestOddAnswers(t *testing.T) {
	const (
		transient = iota
		operator
		failed
	)
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   int
		msg    string
	}{
		{"completed with codes missing", 200,
			`{"orderCreated":true,"orderId":"o1","status":"completed","codes":["A","B"]}`, operator, ""},
		{"completed with a blank code", 200,
			`{"orderCreated":true,"orderId":"o1","status":"completed","codes":["A","B",""]}`, operator, ""},
		{"another order's trxid", 200,
			`{"orderCreated":true,"orderId":"o1","trxid":"someone-else","status":"completed","codes":["A","B","C"]}`, operator, ""},
		{"an unknown status", 200, `{"orderCreated":true,"orderId":"o1","status":"paused"}`, operator, ""},
		{"no order id", 200, `{"orderCreated":true,"status":"processing"}`, operator, ""},
		{"not JSON", 200, `<html>`, transient, ""},
		{"500", 500, `{"success":false,"code":"INTERNAL","error":"INTERNAL ERROR"}`, transient, ""},
		{"rate limited", 429, `{"success":false,"code":"RATE_LIMIT","error":"TOO MANY REQUESTS"}`, transient, ""},
		{"wrong base URL", 404, `{"success":false,"code":"NOT_FOUND","error":"NOT FOUND"}`, operator, ""},
		{"not implemented", 501, `{"success":false,"error":"NOT IMPLEMENTED"}`, operator, ""},
		{"unknown 403", 403, `{"success":false,"code":"SOMETHING_NEW","error":"SOMETHING NEW"}`, operator, ""},
		{"key reused", 422, `{"success":false,"code":"IDEMPOTENCY_KEY_REUSED","error":"IDEMPOTENCY_KEY_REUSED"}`,
			failed, "UPSTREAM: IDEMPOTENCY_KEY_REUSED"},
		{"disabled product", 400, `{"success":false,"code":"PRODUCT_DISABLED","error":"PRODUCT DISABLED"}`,
			failed, "UPSTREAM: PRODUCT DISABLED"},
		{"game-specific refusal", 400, `{"orderCreated":false,"status":"cancelled","game":"gamekey","error":"REGION LOCKED"}`,
			failed, "UPSTREAM: REGION LOCKED"},
		{"balance, plain form", 400, `{"success":false,"code":"INSUFFICIENT_BALANCE","error":"INSUFFICIENT BALANCE"}`, operator, ""},
		{"detail kept", 400, `{"success":false,"code":"INVALID_REQUEST","error":"INVALID REQUEST","detail":"userId is required"}`,
			failed, "UPSTREAM: INVALID REQUEST: userId is required"},
		{"long detail cut", 400, `{"success":false,"error":"INVALID REQUEST","detail":"` + strings.Repeat("é", 300) + `"}`,
			failed, "UPSTREAM: INVALID REQUEST: éé"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := fakeUpstream(t, tc.status, tc.body)
			out, err := p.Submit(ctx(t), keyOrder(3))
			switch tc.want {
			case transient:
				if err == nil || errors.Is(err, topupd.ErrNeedsOperator) {
					t.Errorf("Submit = %+v, %v; want a plain transient error", out, err)
				}
			case operator:
				if !errors.Is(err, topupd.ErrNeedsOperator) {
					t.Errorf("Submit = %+v, %v; want an error needing the operator", out, err)
				}
			case failed:
				if err != nil || out.State != topupd.OutcomeFailed || !strings.HasPrefix(out.Message, tc.msg) || len(out.Message) > 210 {
					t.Errorf("Submit = %+v, %v; want failed %q", out, err, tc.msg)
				}
			}
		})
	}
}

func TestStatusByRefNeverFails(t *testing.T) {
	// A 400 to GET /orders/{ref} says nothing about the order: it is not a failure.
	p := fakeUpstream(t, 400, `{"success":false,"code":"UNKNOWN_PID","error":"UNKNOWN PID"}`)
	o := topupOrder("5123456789")
	o.SupplierRef = "o1"
	if out, err := p.Status(ctx(t), o); err == nil || out.State == topupd.OutcomeFailed {
		t.Errorf("Status = %+v, %v; want an error", out, err)
	}
}
