package clienttest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestCheckPlayer: CheckPlayer reads each of the three answers, and a
// body an order would refuse comes back as that order's *Error.
func TestCheckPlayer(t *testing.T) {
	s := newTestServer(t)
	c := newClient(t, s, mustAccount(t, s, "").Key)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		req  client.PlayerCheckRequest
		want client.PlayerCheck
	}{
		{"valid", client.PlayerCheckRequest{PID: topupdtest.PIDMLBB, UserID: "12345678", ZoneID: "2001"},
			client.PlayerCheck{Supported: true, Valid: true, Nickname: "Player5678"}},
		{"not valid", client.PlayerCheckRequest{PID: topupdtest.PIDPubg, UserID: "99991234"},
			client.PlayerCheck{Supported: true, Error: "INVALID PLAYER"}},
		{"not supported", client.PlayerCheckRequest{PID: topupdtest.PIDPubgManual, UserID: "5123"}, client.PlayerCheck{}},
	} {
		got, err := c.CheckPlayer(ctx, tc.req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, *got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	_, err := c.CheckPlayer(ctx, client.PlayerCheckRequest{PID: topupdtest.PIDMLBB, UserID: "1234"})
	if e, ok := client.AsError(err); !ok || e.StatusCode != 400 || e.Code != client.CodeInvalidRequest {
		t.Errorf("a zone line without zoneId: %v, want 400 %s", err, client.CodeInvalidRequest)
	}
	if _, err := c.CheckPlayer(ctx, client.PlayerCheckRequest{UserID: "1234"}); err == nil {
		t.Error("a request without a PID was sent")
	}
}

// TestCheckPlayerUnavailable: a pack whose upstream is down is a
// temporary 503 SUPPLIER_UNAVAILABLE.
func TestCheckPlayerUnavailable(t *testing.T) {
	s := newTestServer(t)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	s.AdminCall("PUT", "/admin/upstreams/down", map[string]any{"baseUrl": down.URL, "apiKey": "their-key", "check": false}, nil)
	s.PutPack("up-down", map[string]any{"slug": "pubg", "name": "60 UC", "priceUsd": topupdtest.USD("1.5"), "status": "active",
		"provider": "upstream", "upstream": "down", "upstreamPid": topupdtest.PIDPubg})
	c := newClient(t, s, mustAccount(t, s, "").Key, client.WithRetries(0))
	_, err := c.CheckPlayer(context.Background(), client.PlayerCheckRequest{PID: "up-down", UserID: "1234"})
	if e, ok := client.AsError(err); !ok || e.StatusCode != 503 || e.Code != client.CodeSupplierUnavailable || !e.Temporary() {
		t.Errorf("an upstream down: %v, want a temporary 503 %s", err, client.CodeSupplierUnavailable)
	}
}

// TestPlayerCheckAnswers: the three answers decode exactly; an answer
// saying neither valid nor supported is an error.
func TestPlayerCheckAnswers(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want client.PlayerCheck
		ok   bool
	}{
		{`{"success":true,"valid":true,"nickname":"Player1234"}`, client.PlayerCheck{Supported: true, Valid: true, Nickname: "Player1234"}, true},
		{`{"success":true,"valid":true}`, client.PlayerCheck{Supported: true, Valid: true}, true},
		{`{"success":true,"valid":false,"error":"INVALID PLAYER"}`, client.PlayerCheck{Supported: true, Error: "INVALID PLAYER"}, true},
		{`{"success":true,"supported":false}`, client.PlayerCheck{}, true},
		{`{"success":true}`, client.PlayerCheck{}, false},
		{`{"success":true,"supported":true}`, client.PlayerCheck{}, false},
	} {
		var got client.PlayerCheck
		err := got.UnmarshalJSON([]byte(tc.raw))
		if (err == nil) != tc.ok {
			t.Errorf("%s: error %v, want ok %v", tc.raw, err, tc.ok)
		}
		if diff := cmp.Diff(tc.want, got); tc.ok && diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.raw, diff)
		}
	}
}
