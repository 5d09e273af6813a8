package upstream_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/provider/upstream"
)

func TestLowBalanceNeedsTheOperator(t *testing.T) {
	f := newFixture(t)
	poor := f.b.NewAccount("0.5", nil)
	f.src.set("b", f.b.API.URL, poor.Key)
	o := topupOrder("5123456789")
	_, err := f.p.Submit(ctx(t), o)
	if !errors.Is(err, topupd.ErrNeedsOperator) || !client.IsCode(err, client.CodeInsufficientBalance) {
		t.Fatalf("Submit = %v, want INSUFFICIENT BALANCE needing the operator", err)
	}
	t.Log(err)
	if !strings.Contains(err.Error(), "upstream b") {
		t.Errorf("error %q does not name the upstream", err)
	}
	// Status without a ref re-sends the order: the same answer.
	if _, err := f.p.Status(ctx(t), o); !errors.Is(err, topupd.ErrNeedsOperator) {
		t.Errorf("Status = %v, want needing the operator", err)
	}
	if n := len(f.b.orders(poor)); n != 0 {
		t.Errorf("B has %d orders, want none", n)
	}
	// Once the operator tops up, the same order goes through.
	f.b.AdminCall("POST", "/admin/accounts/"+poor.ID+"/credits", map[string]any{"amountUsd": 5, "reference": "topup-1"}, nil)
	if out, err := f.p.Submit(ctx(t), o); err != nil || out.State != topupd.OutcomeCompleted {
		t.Fatalf("Submit after the top-up = %+v, %v", out, err)
	}
}

func TestRefusedKeyNeedsTheOperator(t *testing.T) {
	f := newFixture(t)
	done := topupOrder("5123456789")
	out, err := f.p.Submit(ctx(t), done)
	if err != nil {
		t.Fatal(err)
	}
	done.SupplierRef = out.SupplierRef
	f.b.AdminCall("DELETE", "/admin/keys/"+f.acct.KeyID, nil, nil)
	if _, err := f.p.Submit(ctx(t), topupOrder("5123456789")); !errors.Is(err, topupd.ErrNeedsOperator) || client.StatusCode(err) != 401 {
		t.Errorf("Submit with a revoked key = %v, want 401 needing the operator", err)
	}
	if _, err := f.p.Status(ctx(t), done); !errors.Is(err, topupd.ErrNeedsOperator) {
		t.Errorf("Status with a revoked key = %v, want needing the operator", err)
	}
	// A new key takes effect on the next call.
	var k struct {
		APIKey string `json:"apiKey"`
	}
	f.b.AdminCall("POST", "/admin/accounts/"+f.acct.ID+"/keys", nil, &k)
	f.src.set("b", f.b.API.URL, k.APIKey)
	if st, err := f.p.Status(ctx(t), done); err != nil || st.State != topupd.OutcomeCompleted {
		t.Errorf("Status with the new key = %+v, %v", st, err)
	}
}

func TestRefusedAccountNeedsTheOperator(t *testing.T) {
	for _, tc := range []struct {
		flags map[string]any
		code  string
	}{
		{map[string]any{"banned": true}, client.CodeAccountBanned},
		{map[string]any{"adminDisabled": true}, client.CodeAPIDisabledByAdmin},
		{map[string]any{"apiEnabled": false}, client.CodeAPIDisabled},
		{map[string]any{"ipAllowlist": []string{"203.0.113.7"}}, client.CodeIPNotAllowed},
	} {
		t.Run(tc.code, func(t *testing.T) {
			f := newFixture(t)
			f.b.AdminCall("PATCH", "/admin/accounts/"+f.acct.ID, tc.flags, nil)
			_, err := f.p.Submit(ctx(t), topupOrder("5123456789"))
			if !errors.Is(err, topupd.ErrNeedsOperator) || !client.IsCode(err, tc.code) {
				t.Errorf("Submit = %v, want %s needing the operator", err, tc.code)
			}
		})
	}
}

func TestRefusedForGood(t *testing.T) {
	f := newFixture(t)
	other := f.b.NewAccount("10", nil)
	taken := topupOrder("5123456789")
	// Another account at B already used this order's trxid.
	if _, err := f.b.Client(other.Key).PlaceOrder(ctx(t), client.OrderRequest{PID: pidTopup,
		TrxID: topupd.UpstreamTrxID(taken), UserID: "1"}); err != nil {
		t.Fatal(err)
	}
	unknown := topupOrder("5123456789")
	unknown.UpstreamPID = "no-such-pack"
	noUser := topupOrder("")
	tooMany := keyOrder(keyStock + 5)
	qtyTopup := topupOrder("5123456789")
	qtyTopup.Quantity = 2
	for _, tc := range []struct {
		name string
		o    *topupd.Order
		msg  string
	}{
		{"unknown PID", unknown, "UPSTREAM: UNKNOWN PID"},
		{"missing userId", noUser, "UPSTREAM: INVALID REQUEST"},
		{"insufficient stock", tooMany, "UPSTREAM: INSUFFICIENT STOCK"},
		{"quantity of a top-up", qtyTopup, "UPSTREAM: QUANTITY ONLY FOR GAMEKEY OR GIFTCARD"},
		{"trxid of another account", taken, "UPSTREAM: FORBIDDEN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := f.p.Submit(ctx(t), tc.o)
			if err != nil || out.State != topupd.OutcomeFailed || !strings.HasPrefix(out.Message, tc.msg) {
				t.Errorf("Submit = %+v, %v; want failed %q", out, err, tc.msg)
			}
		})
	}
	if n := len(f.b.orders(f.acct)); n != 0 {
		t.Errorf("B has %d orders of ours, want none", n)
	}
}

func TestUnavailableIsTransient(t *testing.T) {
	f := newFixture(t)
	o := topupOrder("5123456789")
	f.b.fail.Store(2) // the first attempt and the client's one retry
	_, err := f.p.Submit(ctx(t), o)
	if err == nil || errors.Is(err, topupd.ErrNeedsOperator) || client.StatusCode(err) != http.StatusServiceUnavailable {
		t.Fatalf("Submit = %v, want a plain 503 error", err)
	}
	if n := len(f.b.orders(f.acct)); n != 0 {
		t.Fatalf("B has %d orders, want none", n)
	}
	// B has recovered.
	out, err := f.p.Submit(ctx(t), o)
	if err != nil || out.State != topupd.OutcomeCompleted {
		t.Fatalf("Submit after recovery = %+v, %v", out, err)
	}
	// B's own maintenance switch is as transient.
	f.b.Settings(map[string]any{"maintenance": true})
	_, err = f.p.Submit(ctx(t), topupOrder("5123456789"))
	if !client.IsCode(err, client.CodeMaintenance) || errors.Is(err, topupd.ErrNeedsOperator) {
		t.Errorf("Submit in maintenance = %v, want a plain MAINTENANCE error", err)
	}
	// Reads still work: the placed order's status by ref.
	o.SupplierRef = out.SupplierRef
	if st, err := f.p.Status(ctx(t), o); err != nil || st.State != topupd.OutcomeCompleted {
		t.Errorf("Status in maintenance = %+v, %v", st, err)
	}
}

func TestUpstreamDownIsTransient(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL
	down.Close()
	src := &sources{m: map[string]topupd.Upstream{}}
	src.set("b", url, "tk_whatever")
	p := upstream.New(src)
	c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	_, err := p.Submit(c, topupOrder("5123456789"))
	if err == nil || errors.Is(err, topupd.ErrNeedsOperator) {
		t.Fatalf("Submit = %v, want a plain transient error", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Submit took %v", d)
	}
	// A deadline bounds a call to an upstream that does not answer.
	stuck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so that the server notices the client going away
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer stuck.Close()
	src.set("b", stuck.URL, "tk_whatever")
	c2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	start = time.Now()
	_, err = p.Submit(c2, topupOrder("5123456789"))
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, topupd.ErrNeedsOperator) {
		t.Errorf("Submit to a stuck upstream = %v, want a deadline error", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Submit to a stuck upstream took %v", d)
	}
}

func TestUnknownUpstreamNeedsTheOperator(t *testing.T) {
	p := upstream.New(&sources{m: map[string]topupd.Upstream{}})
	o := topupOrder("5123456789")
	if _, err := p.Submit(ctx(t), o); !errors.Is(err, topupd.ErrNeedsOperator) {
		t.Errorf("Submit = %v, want needing the operator", err)
	}
	if _, err := p.Status(ctx(t), o); !errors.Is(err, topupd.ErrNeedsOperator) {
		t.Errorf("Status = %v, want needing the operator", err)
	}
}
