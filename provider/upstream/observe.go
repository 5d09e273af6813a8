package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/topupd/topupd"
)

// Observer is told of every call to an upstream but a player check
// (back-office.md, section 1, "A call"): whether it failed (no answer, a
// 5xx, a 429, or a refusal of our key: 401 or 403), and the balance any
// answer carried as a top-level numeric balanceUsd (a read).
type Observer interface {
	SupplierCall(upstream string, ok bool)
	SupplierRead(upstream string, balance topupd.Money)
}

// WithObserver tells o of every call to an upstream.
func WithObserver(o Observer) Option { return func(p *Provider) { p.observer = o } }

// maxObservedBody is the largest answer looked into for a balance.
const maxObservedBody = 1 << 20

// observeTransport tells an Observer of each call to one upstream.
type observeTransport struct {
	base     http.RoundTripper
	upstream string
	o        Observer
}

// observed returns hc telling o of each call to upstream (hc itself
// without an observer).
func observed(hc *http.Client, upstream string, o Observer) *http.Client {
	if o == nil {
		return hc
	}
	out := *hc
	base := out.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out.Transport = observeTransport{base: base, upstream: upstream, o: o}
	return &out
}

// RoundTrip sends r and tells the observer how it went.
func (t observeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if strings.HasSuffix(r.URL.Path, "/players/check") {
		return resp, err
	}
	if err != nil {
		// A call we gave up on ourselves says nothing of the upstream.
		if !errors.Is(r.Context().Err(), context.Canceled) {
			t.o.SupplierCall(t.upstream, false)
		}
		return resp, err
	}
	switch s := resp.StatusCode; {
	case s >= 500, s == http.StatusTooManyRequests, s == http.StatusUnauthorized, s == http.StatusForbidden:
		t.o.SupplierCall(t.upstream, false)
		return resp, nil
	}
	t.o.SupplierCall(t.upstream, true)
	if bal, ok := balanceIn(resp); ok {
		t.o.SupplierRead(t.upstream, bal)
	}
	return resp, nil
}

// balanceIn reads a top-level numeric balanceUsd from a JSON answer of
// 2xx, leaving the body to be read again.
func balanceIn(resp *http.Response) (topupd.Money, bool) {
	if resp.StatusCode/100 != 2 || !strings.Contains(resp.Header.Get("Content-Type"), "json") || resp.Body == nil {
		return 0, false
	}
	orig := resp.Body
	body, err := io.ReadAll(io.LimitReader(orig, maxObservedBody+1))
	// What was read is read again first, then the rest (and its error).
	resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), orig), orig}
	if err != nil || len(body) > maxObservedBody {
		return 0, false
	}
	var top struct {
		Balance json.RawMessage `json:"balanceUsd"`
	}
	if json.Unmarshal(body, &top) != nil || len(top.Balance) == 0 || top.Balance[0] == '"' || top.Balance[0] == 'n' {
		return 0, false
	}
	m, err := topupd.ParseMoney(string(top.Balance))
	return m, err == nil
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}
