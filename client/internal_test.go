package client

import (
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"": 0, "1": time.Second, " 3 ": 3 * time.Second, "0.5": 500 * time.Millisecond,
		"0": 0, "-1": 0, "NaN": 0, "1e9": 0, "soon": 0,
		time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat): 0,
	} {
		if got := parseRetryAfter(in); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
	date := time.Now().Add(10 * time.Second).UTC().Format(http.TimeFormat)
	if got := parseRetryAfter(date); got < 8*time.Second || got > 10*time.Second {
		t.Errorf("parseRetryAfter(%q) = %v, want about 10s", date, got)
	}
}

func TestBackoff(t *testing.T) {
	c := &Client{backoffBase: 100 * time.Millisecond, backoffMax: time.Second}
	for n, hi := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		hi *= time.Millisecond
		for range 50 {
			if d := c.backoff(n); d < hi/2 || d > hi {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", n, d, hi/2, hi)
			}
		}
	}
	if d := c.backoff(1000); d < 500*time.Millisecond || d > time.Second {
		t.Errorf("backoff(1000) = %v", d)
	}
}

func TestParseError(t *testing.T) {
	h := http.Header{"Retry-After": {"1"}}
	e := parseError(429, h, []byte(`{"success":false,"code":"DUPLICATE_IN_FLIGHT","error":"DUPLICATE_IN_FLIGHT"}`))
	if e.Code != CodeDuplicateInFlight || e.RetryAfter != time.Second || e.Order != nil || !e.Temporary() {
		t.Errorf("%#v", e)
	}
	// The spec's forms without a code get one from the message.
	e = parseError(404, http.Header{}, []byte(`{"success":false,"error":"ORDER NOT FOUND"}`))
	if e.Code != CodeOrderNotFound || e.Error() != "topupd: 404 ORDER_NOT_FOUND: ORDER NOT FOUND" {
		t.Errorf("%#v %q", e, e.Error())
	}
	e = parseError(400, http.Header{}, []byte(`{"orderCreated":false,"status":"cancelled","game":"pubg","error":"INSUFFICIENT BALANCE"}`))
	if e.Code != CodeInsufficientBalance || !e.Rejected() || e.Order.Game != "pubg" {
		t.Errorf("%#v", e)
	}
	e = parseError(401, http.Header{}, []byte(`{"success":false,"error":"INVALID JSON"}`))
	if e.Code != CodeInvalidJSON {
		t.Errorf("%#v", e)
	}
	e = parseError(503, http.Header{}, []byte(`{}`))
	if e.Code != "" || e.Message != "Service Unavailable" {
		t.Errorf("%#v", e)
	}
}

func TestRedirectNotFollowed(t *testing.T) {
	e := parseError(301, http.Header{"Location": {"https://elsewhere/balance"}}, nil)
	if e.StatusCode != 301 || e.Detail != "redirected to https://elsewhere/balance" || e.Temporary() {
		t.Errorf("%#v", e)
	}
	c, err := New("http://127.0.0.1:1", "k")
	if err != nil {
		t.Fatal(err)
	}
	if c.hc.CheckRedirect == nil {
		t.Error("the default client follows redirects")
	}
}
