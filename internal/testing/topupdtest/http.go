package topupdtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// Reply is one HTTP answer.
type Reply struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any // decoded with UseNumber: numbers are json.Number
}

// String shows the status and the body.
func (r Reply) String() string { return fmt.Sprintf("%d %s", r.Status, bytes.TrimSpace(r.Raw)) }

// Str returns a top-level string field ("" when absent or not a string).
func (r Reply) Str(name string) string {
	s, _ := r.Body[name].(string)
	return s
}

// Num returns a top-level number field as its JSON text ("" when absent).
func (r Reply) Num(name string) string {
	n, _ := r.Body[name].(json.Number)
	return string(n)
}

// Has reports whether a top-level field is present.
func (r Reply) Has(name string) bool {
	_, ok := r.Body[name]
	return ok
}

// RawBody is a request body sent exactly as written.
type RawBody string

// Headers are extra request headers.
type Headers map[string]string

// Call makes one request. key, when not empty, is sent as X-API-Key; body is
// nil (none), a RawBody, or anything else marshalled to JSON. It never calls
// t.Fatal, so it is safe from any goroutine.
func (h *T) Call(base, method, path string, hdr Headers, body any) (Reply, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case RawBody:
		rd = strings.NewReader(string(b))
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return Reply{}, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return Reply{}, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := h.HTTP.Do(req)
	if err != nil {
		return Reply{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return Reply{}, err
	}
	out := Reply{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return out, fmt.Errorf("%s %s: Content-Type %q, body %q", method, path, ct, raw)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out.Body); err != nil {
		return out, fmt.Errorf("%s %s: body is not a JSON object: %v: %q", method, path, err, raw)
	}
	return out, nil
}

// Do calls the reseller API with an API key in X-API-Key.
func (h *T) Do(method, path, key string, body any) Reply {
	h.TB.Helper()
	hdr := Headers{}
	if key != "" {
		hdr["X-API-Key"] = key
	}
	r, err := h.Call(h.API.URL, method, path, hdr, body)
	if err != nil {
		h.TB.Fatal(err)
	}
	return r
}

// DoH calls the reseller API with explicit headers.
func (h *T) DoH(method, path string, hdr Headers, body any) Reply {
	h.TB.Helper()
	r, err := h.Call(h.API.URL, method, path, hdr, body)
	if err != nil {
		h.TB.Fatal(err)
	}
	return r
}

// AdminDo calls the admin API with the admin token.
func (h *T) AdminDo(method, path string, body any) Reply {
	h.TB.Helper()
	r, err := h.Call(h.Admin.URL, method, path, Headers{"Authorization": "Bearer " + h.Token}, body)
	if err != nil {
		h.TB.Fatal(err)
	}
	return r
}

// AdminOK calls the admin API and fails unless the answer has the status.
func (h *T) AdminOK(want int, method, path string, body any) Reply {
	h.TB.Helper()
	r := h.AdminDo(method, path, body)
	if r.Status != want {
		h.TB.Fatalf("%s %s: got %v, want status %d", method, path, r, want)
	}
	return r
}

// USD is an exact JSON number of USD.
func USD(s string) json.Number { return json.Number(s) }

// ParseUSD parses a decimal USD text exactly.
func ParseUSD(t testing.TB, s string) topupd.Money {
	t.Helper()
	m, err := topupd.ParseMoney(s)
	if err != nil {
		t.Fatalf("money %q: %v", s, err)
	}
	return m
}

// ParseClientUSD parses a decimal USD text exactly as the Go client's
// Money, for the amounts tests send through AdminClient and Client.
func ParseClientUSD(t testing.TB, s string) client.Money {
	t.Helper()
	m, err := client.ParseMoney(s)
	if err != nil {
		t.Fatalf("money %q: %v", s, err)
	}
	return m
}

// AdminText calls GET path on the admin API with a bearer token ("" for
// none) and returns the status and the body as text, whatever its format
// (profiles, metrics).
func (h *T) AdminText(path, token string) (int, string) {
	h.TB.Helper()
	req, err := http.NewRequest("GET", h.Admin.URL+path, nil)
	if err != nil {
		h.TB.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := h.HTTP.Do(req)
	if err != nil {
		h.TB.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.TB.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// PostChunked posts payload to base+path in chunks, without a
// Content-Length (as a client that streams does), with hdr, and returns the
// status and the body.
func (h *T) PostChunked(base, path string, hdr Headers, payload string) (int, string) {
	h.TB.Helper()
	// io.MultiReader hides the length, so the request goes out chunked.
	req, err := http.NewRequest("POST", base+path, io.MultiReader(strings.NewReader(payload)))
	if err != nil {
		h.TB.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := h.HTTP.Do(req)
	if err != nil {
		h.TB.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}
