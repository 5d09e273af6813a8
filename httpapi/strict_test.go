package httpapi_test

// Strict bodies and headers (operator-api.md, "Reseller API details"): a
// member twice at any depth, invalid UTF-8 or a control character in a
// trxid, key or account field is 400 INVALID_BODY on both APIs and moves
// nothing; an oversized header (431) or body (413) has a JSON answer.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// orderBody is a POST /orders body for pidPubg with a fresh trxid; extra is
// raw JSON members appended after the usual ones.
func orderBody(h *topupdtest.T, extra string) topupdtest.RawBody {
	return topupdtest.RawBody(fmt.Sprintf(`{"pid":%q,"trxid":%q,"userId":"5123"%s}`, topupdtest.PIDPubg, h.Trx(), extra))
}

// TestResellerRefusesAmbiguousBodies: a duplicate member (top level, nested,
// spelt with an escape), invalid UTF-8 or a lone surrogate is 400 INVALID
// BODY on POST /orders, and no order is placed.
func TestResellerRefusesAmbiguousBodies(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("100", nil)
	tests := []struct {
		name string
		body topupdtest.RawBody
	}{
		{"pid twice", orderBody(h, fmt.Sprintf(`,"pid":%q`, topupdtest.PIDPubgBig))},
		{"trxid twice", topupdtest.RawBody(fmt.Sprintf(`{"pid":%q,"trxid":"dup-a","trxid":"dup-b","userId":"5123"}`, topupdtest.PIDPubg))},
		{"userId twice", orderBody(h, `,"userId":"6000"`)},
		{"quantity twice", topupdtest.RawBody(fmt.Sprintf(`{"pid":%q,"trxid":%q,"quantity":1,"quantity":3}`, topupdtest.PIDKey, h.Trx()))},
		{"userId twice, once escaped", orderBody(h, `,"user\u0049d":"6000"`)},
		{"an unknown member twice", orderBody(h, `,"note":"a","note":"b"`)},
		{"nested object", orderBody(h, `,"meta":{"a":1,"b":{"c":true,"c":false}}`)},
		{"object in an array", orderBody(h, `,"meta":[{"a":1},{"a":1,"a":2}]`)},
		{"invalid UTF-8 in userId", topupdtest.RawBody(fmt.Sprintf(`{"pid":%q,"trxid":%q,"userId":"51`+"\xff"+`23"}`, topupdtest.PIDPubg, h.Trx()))},
		{"invalid UTF-8 in an unknown member", orderBody(h, `,"note":"caf`+"\xe9"+`"`)},
		{"invalid UTF-8 in a member name", orderBody(h, `,"`+"\xc3"+`":1`)},
		{"UTF-8 of a surrogate", orderBody(h, `,"note":"`+"\xed\xa0\x80"+`"`)},
		{"lone surrogate escape in userId", topupdtest.RawBody(fmt.Sprintf(`{"pid":%q,"trxid":%q,"userId":"5123\ud800"}`, topupdtest.PIDPubg, h.Trx()))},
		{"lone low surrogate escape", orderBody(h, `,"note":"\udc00\ud800"`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := h.Snapshot(a)
			r := h.Do("POST", "/orders", a.Key, tc.body)
			wantFailure(t, r, http.StatusBadRequest, "INVALID_BODY", "INVALID BODY")
			if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
				t.Errorf("body %s moved (-before +after):\n%s", tc.body, diff)
			}
		})
	}
	// The same bodies without the defect are orders.
	h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123", "meta": map[string]any{"a": 1, "b": map[string]any{"c": true}}})
	r := h.Do("POST", "/orders", a.Key, orderBody(h, `,"note":"café \ud83d\ude00 \u00e9"`))
	if r.Status != http.StatusOK {
		t.Fatalf("a body with a surrogate pair and UTF-8 text: %v", r)
	}
}

// TestAdminRefusesAmbiguousBodies: the last member no longer wins on the
// admin API: the credit that once debited 5,000,000 USD is 400 INVALID_BODY
// and the balance does not move; so are nested duplicates and invalid UTF-8.
func TestAdminRefusesAmbiguousBodies(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	// Enough money that the old decoder's debit of 5,000,000 went through.
	a := h.NewAccount("6000000", nil)
	credits := "/admin/accounts/" + a.ID + "/credits"
	tests := []struct {
		name, method, path string
		body               topupdtest.RawBody
	}{
		{"amountUsd twice", "POST", credits, `{"amountUsd":5,"amountUsd":-5000000,"reference":"x"}`},
		{"amountUsd twice, the debit first", "POST", credits, `{"amountUsd":-5000000,"amountUsd":5,"reference":"y"}`},
		{"amountUsd twice, once escaped", "POST", credits, `{"amountUsd":5,"amount\u0055sd":-5000000,"reference":"z"}`},
		{"reference twice", "POST", credits, `{"amountUsd":5,"reference":"r1","reference":"r2"}`},
		{"invalid UTF-8 in reference", "POST", credits, topupdtest.RawBody(`{"amountUsd":5,"reference":"r` + "\xff" + `"}`)},
		{"lone surrogate in reference", "POST", credits, `{"amountUsd":5,"reference":"r\ud800"}`},
		{"nested: a required field's name twice", "PUT", "/admin/services/dupline",
			`{"productName":"P","gameName":"G","game":"g","kind":"topup","required":[{"field":"userId","label":"A","field":"zoneId"}]}`},
		{"nested: an option's value twice", "PUT", "/admin/services/dupline",
			`{"productName":"P","gameName":"G","game":"g","kind":"topup","required":[{"field":"userId","label":"A"},{"field":"serverId","label":"S"}],` +
				`"serverIdOptions":[{"value":"eu","label":"Europe","value":"us"}]}`},
		{"settings: maintenance twice", "PATCH", "/admin/settings", `{"maintenance":false,"maintenance":true}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bal, entries := h.Balance(a), len(h.Ledger(a))
			r := h.AdminDo(tc.method, tc.path, tc.body)
			wantFailure(t, r, http.StatusBadRequest, "INVALID_BODY", "INVALID BODY")
			if got := h.Balance(a); got != bal {
				t.Errorf("balance %s, want %s unchanged", got, bal)
			}
			if got := len(h.Ledger(a)); got != entries {
				t.Errorf("%d ledger entries, want %d", got, entries)
			}
		})
	}
	if h.Balance(a) != "6000000" {
		t.Errorf("balance %s, want 6000000", h.Balance(a))
	}
	for _, s := range h.AdminOK(http.StatusOK, "GET", "/admin/services", nil).Body["services"].([]any) {
		if s.(map[string]any)["slug"] == "dupline" {
			t.Errorf("a refused PUT created the line: %v", s)
		}
	}
	if r := h.AdminOK(http.StatusOK, "GET", "/admin/settings", nil); r.Body["maintenance"] == true {
		t.Errorf("a refused PATCH turned maintenance on: %v", r)
	}
	// Without the duplicate the same credit goes through.
	h.AdminOK(http.StatusOK, "POST", credits, topupdtest.RawBody(`{"amountUsd":5,"reference":"x"}`))
	if h.Balance(a) != "6000005" {
		t.Errorf("balance %s after a credit of 5, want 6000005", h.Balance(a))
	}
}

// TestControlCharactersRefused: a control character in the trxid, the
// idempotency key or any account field is 400 INVALID BODY, and no order
// is placed.
func TestControlCharactersRefused(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("100", nil)
	// Each base order names the field under test; fresh fills in a new trxid
	// and a new idempotency key where it has one.
	bases := map[string]order{
		"trxid":          {"pid": topupdtest.PIDPubg, "userId": "5123"},
		"idempotencyKey": {"pid": topupdtest.PIDPubg, "userId": "5123", "idempotencyKey": ""},
		"idempotency":    {"pid": topupdtest.PIDPubg, "userId": "5123", "idempotency": ""},
		"userId":         {"pid": topupdtest.PIDPubg, "userId": "5123"},
		"userID":         {"pid": topupdtest.PIDPubg, "userID": "5123"},
		"zoneId":         {"pid": topupdtest.PIDMLBB, "userId": "5123", "zoneId": "4567"},
		"serverId":       {"pid": topupdtest.PIDWW, "userId": "5123", "serverId": "america"},
		"region":         {"pid": topupdtest.PIDOH, "userId": "5123", "region": "eu", "moreId": "s1"},
		"moreId":         {"pid": topupdtest.PIDOH, "userId": "5123", "region": "eu", "moreId": "s1"},
	}
	fresh := func(base order) order {
		o := order{"trxid": h.Trx()}
		for k, v := range base {
			o[k] = v
			if v == "" {
				o[k] = h.Trx()
			}
		}
		return o
	}
	// Each base order is valid as it stands.
	for field, base := range bases {
		if r := h.Do("POST", "/orders", a.Key, fresh(base)); r.Status != http.StatusOK {
			t.Fatalf("base order for %s: %v", field, r)
		}
	}
	controls := []string{"\x00", "\n", "\t", "\x1f", "\x7f", "\u0085", "\u009f"}
	for field, base := range bases {
		for _, c := range controls {
			t.Run(fmt.Sprintf("%s with %q", field, c), func(t *testing.T) {
				body := fresh(base)
				body[field] = body[field].(string) + c
				before := h.Snapshot(a)
				r := h.Do("POST", "/orders", a.Key, body)
				wantFailure(t, r, http.StatusBadRequest, "INVALID_BODY", "INVALID BODY")
				if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
					t.Errorf("moved (-before +after):\n%s", diff)
				}
			})
		}
	}
}

// padHeaders returns headers of about size bytes in n fields.
func padHeaders(size, n int) topupdtest.Headers {
	hdr := topupdtest.Headers{}
	for i := range n {
		hdr[fmt.Sprintf("X-Pad-%d", i)] = strings.Repeat("p", size/n)
	}
	return hdr
}

// TestHeaderTooLarge: headers over httpapi.MaxHeaderBytes are 431 with a
// JSON failure on both APIs, in one field or in many; nothing moves.
// Headers just under the limit are served.
func TestHeaderTooLarge(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("10", nil)
	over := httpapi.MaxHeaderBytes + 1024
	under := httpapi.MaxHeaderBytes - 4096
	apis := []struct {
		name         string
		base, method string
		path, auth   string
		body         any
	}{
		{"reseller GET", h.API.URL, "GET", "/balance", "X-API-Key", nil},
		{"reseller POST /orders", h.API.URL, "POST", "/orders", "X-API-Key", order{"pid": topupdtest.PIDPubg, "trxid": "hdr-1", "userId": "5123"}},
		{"reseller without a key", h.API.URL, "GET", "/balance", "", nil},
		{"admin GET", h.Admin.URL, "GET", "/admin/settings", "Authorization", nil},
		{"admin POST credit", h.Admin.URL, "POST", "/admin/accounts/" + a.ID + "/credits", "Authorization",
			map[string]any{"amountUsd": topupdtest.USD("5"), "reference": "hdr-1"}},
	}
	for _, api := range apis {
		for _, n := range []int{1, 100} {
			t.Run(fmt.Sprintf("%s in %d fields", api.name, n), func(t *testing.T) {
				before := h.Snapshot(a)
				hdr := padHeaders(over, n)
				switch api.auth {
				case "X-API-Key":
					hdr["X-API-Key"] = a.Key
				case "Authorization":
					hdr["Authorization"] = "Bearer " + h.Token
				}
				r, err := h.Call(api.base, api.method, api.path, hdr, api.body)
				if err != nil {
					t.Fatal(err)
				}
				wantFailure(t, r, http.StatusRequestHeaderFieldsTooLarge, "HEADER_TOO_LARGE", "HEADER TOO LARGE")
				if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
					t.Errorf("moved (-before +after):\n%s", diff)
				}
			})
		}
	}
	t.Run("just under the limit", func(t *testing.T) {
		hdr := padHeaders(under, 10)
		hdr["X-API-Key"] = a.Key
		r, err := h.Call(h.API.URL, "GET", "/balance", hdr, nil)
		if err != nil || r.Status != http.StatusOK {
			t.Errorf("GET /balance with %d bytes of headers: %v %v", under, r, err)
		}
		hdr["Authorization"] = "Bearer " + h.Token
		r, err = h.Call(h.Admin.URL, "GET", "/admin/settings", hdr, nil)
		if err != nil || r.Status != http.StatusOK {
			t.Errorf("GET /admin/settings with %d bytes of headers: %v %v", under, r, err)
		}
	})
}

// TestHeaderLimitBehindServerLimit: behind an http.Server whose
// MaxHeaderBytes is httpapi.ServerMaxHeaderBytes, as cmd/topupd's, a
// request over the documented limit gets the JSON 431; only one over the
// server's own limit gets net/http's plain-text 431.
func TestHeaderLimitBehindServerLimit(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	a := h.NewAccount("10", nil)
	for _, api := range []struct {
		name string
		h    http.Handler
		auth topupdtest.Headers
		path string
	}{
		{"reseller", h.API.Config.Handler, topupdtest.Headers{"X-API-Key": a.Key}, "/balance"},
		{"admin", h.Admin.Config.Handler, topupdtest.Headers{"Authorization": "Bearer " + h.Token}, "/admin/settings"},
	} {
		t.Run(api.name, func(t *testing.T) {
			srv := httptest.NewUnstartedServer(api.h)
			srv.Config.MaxHeaderBytes = httpapi.ServerMaxHeaderBytes
			srv.Start()
			defer srv.Close()
			hdr := padHeaders(2*httpapi.MaxHeaderBytes, 1)
			for k, v := range api.auth {
				hdr[k] = v
			}
			r, err := h.Call(srv.URL, "GET", api.path, hdr, nil)
			if err != nil {
				t.Fatal(err)
			}
			wantFailure(t, r, http.StatusRequestHeaderFieldsTooLarge, "HEADER_TOO_LARGE", "HEADER TOO LARGE")

			// Past the server's own limit net/http answers before any handler.
			hdr = padHeaders(httpapi.ServerMaxHeaderBytes+64<<10, 1)
			r, err = h.Call(srv.URL, "GET", api.path, hdr, nil)
			if r.Status != http.StatusRequestHeaderFieldsTooLarge || err == nil {
				t.Errorf("headers of %d bytes: %v (%v), want net/http's plain-text 431", httpapi.ServerMaxHeaderBytes+64<<10, r, err)
			}
		})
	}
}

// TestAdminBodyTooLarge: an admin body over its 16 MiB limit is 413 with a
// JSON failure, whether its Content-Length says so or it is sent chunked;
// the credit it carries is not made.
func TestAdminBodyTooLarge(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	a := h.NewAccount("10", nil)
	const limit = 16 << 20
	path := "/admin/accounts/" + a.ID + "/credits"

	t.Run("Content-Length over the limit", func(t *testing.T) {
		conn, err := net.Dial("tcp", h.Admin.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// The answer comes before the body, which is never sent.
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: admin\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
			path, h.Token, limit+1)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var got map[string]any
		if err := json.Unmarshal(raw, &got); err != nil || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("413 body %q (%s) is not JSON: %v", raw, resp.Header.Get("Content-Type"), err)
		}
		want := map[string]any{"success": false, "code": "BODY_TOO_LARGE", "error": "BODY TOO LARGE", "retryable": false}
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !cmp.Equal(want, got) {
			t.Errorf("got %d %s, want 413 %v", resp.StatusCode, raw, want)
		}
	})
	t.Run("chunked over the limit", func(t *testing.T) {
		payload := `{"amountUsd":5,"reference":"big","pad":"` + strings.Repeat("x", limit) + `"}`
		status, raw := h.PostChunked(h.Admin.URL, path, topupdtest.Headers{"Authorization": "Bearer " + h.Token}, payload)
		if status != http.StatusRequestEntityTooLarge || !strings.Contains(raw, `"code":"BODY_TOO_LARGE"`) {
			t.Errorf("got %d %s, want 413 BODY_TOO_LARGE", status, raw)
		}
	})
	if got := h.Balance(a); got != "10" {
		t.Errorf("balance %s, want 10", got)
	}
	if n := len(h.Ledger(a)); n != 1 {
		t.Errorf("%d ledger entries, want the first credit alone", n)
	}
}
