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
)

// orderBody is a POST /orders body for pidPubg with a fresh trxid; extra is
// raw JSON members appended after the usual ones.
func (h *harness) orderBody(extra string) rawBody {
	return rawBody(fmt.Sprintf(`{"pid":%q,"trxid":%q,"userId":"5123"%s}`, pidPubg, h.trx(), extra))
}

// TestResellerRefusesAmbiguousBodies: a duplicate member (top level, nested,
// spelt with an escape), invalid UTF-8 or a lone surrogate is 400 INVALID
// BODY on POST /orders, and no order is placed.
func TestResellerRefusesAmbiguousBodies(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()
	a := h.newAccount("100", nil)
	tests := []struct {
		name string
		body rawBody
	}{
		{"pid twice", h.orderBody(fmt.Sprintf(`,"pid":%q`, pidPubgBig))},
		{"trxid twice", rawBody(fmt.Sprintf(`{"pid":%q,"trxid":"dup-a","trxid":"dup-b","userId":"5123"}`, pidPubg))},
		{"userId twice", h.orderBody(`,"userId":"6000"`)},
		{"quantity twice", rawBody(fmt.Sprintf(`{"pid":%q,"trxid":%q,"quantity":1,"quantity":3}`, pidKey, h.trx()))},
		{"userId twice, once escaped", h.orderBody(`,"user\u0049d":"6000"`)},
		{"an unknown member twice", h.orderBody(`,"note":"a","note":"b"`)},
		{"nested object", h.orderBody(`,"meta":{"a":1,"b":{"c":true,"c":false}}`)},
		{"object in an array", h.orderBody(`,"meta":[{"a":1},{"a":1,"a":2}]`)},
		{"invalid UTF-8 in userId", rawBody(fmt.Sprintf(`{"pid":%q,"trxid":%q,"userId":"51`+"\xff"+`23"}`, pidPubg, h.trx()))},
		{"invalid UTF-8 in an unknown member", h.orderBody(`,"note":"caf` + "\xe9" + `"`)},
		{"invalid UTF-8 in a member name", h.orderBody(`,"` + "\xc3" + `":1`)},
		{"UTF-8 of a surrogate", h.orderBody(`,"note":"` + "\xed\xa0\x80" + `"`)},
		{"lone surrogate escape in userId", rawBody(fmt.Sprintf(`{"pid":%q,"trxid":%q,"userId":"5123\ud800"}`, pidPubg, h.trx()))},
		{"lone low surrogate escape", h.orderBody(`,"note":"\udc00\ud800"`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := h.snapshot(a)
			r := h.do("POST", "/orders", a.key, tc.body)
			wantFailure(t, r, http.StatusBadRequest, "INVALID_BODY", "INVALID BODY")
			if diff := cmp.Diff(before, h.snapshot(a)); diff != "" {
				t.Errorf("body %s moved (-before +after):\n%s", tc.body, diff)
			}
		})
	}
	// The same bodies without the defect are orders.
	h.place(a, order{"pid": pidPubg, "trxid": h.trx(), "userId": "5123", "meta": map[string]any{"a": 1, "b": map[string]any{"c": true}}})
	r := h.do("POST", "/orders", a.key, h.orderBody(`,"note":"café \ud83d\ude00 \u00e9"`))
	if r.status != http.StatusOK {
		t.Fatalf("a body with a surrogate pair and UTF-8 text: %v", r)
	}
}

// TestAdminRefusesAmbiguousBodies: the last member no longer wins on the
// admin API: the credit that once debited 5,000,000 USD is 400 INVALID_BODY
// and the balance does not move; so are nested duplicates and invalid UTF-8.
func TestAdminRefusesAmbiguousBodies(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// Enough money that the old decoder's debit of 5,000,000 went through.
	a := h.newAccount("6000000", nil)
	credits := "/admin/accounts/" + a.id + "/credits"
	tests := []struct {
		name, method, path string
		body               rawBody
	}{
		{"amountUsd twice", "POST", credits, `{"amountUsd":5,"amountUsd":-5000000,"reference":"x"}`},
		{"amountUsd twice, the debit first", "POST", credits, `{"amountUsd":-5000000,"amountUsd":5,"reference":"y"}`},
		{"amountUsd twice, once escaped", "POST", credits, `{"amountUsd":5,"amount\u0055sd":-5000000,"reference":"z"}`},
		{"reference twice", "POST", credits, `{"amountUsd":5,"reference":"r1","reference":"r2"}`},
		{"invalid UTF-8 in reference", "POST", credits, rawBody(`{"amountUsd":5,"reference":"r` + "\xff" + `"}`)},
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
			bal, entries := h.balance(a), len(h.ledger(a))
			r := h.adminDo(tc.method, tc.path, tc.body)
			wantFailure(t, r, http.StatusBadRequest, "INVALID_BODY", "INVALID BODY")
			if got := h.balance(a); got != bal {
				t.Errorf("balance %s, want %s unchanged", got, bal)
			}
			if got := len(h.ledger(a)); got != entries {
				t.Errorf("%d ledger entries, want %d", got, entries)
			}
		})
	}
	if h.balance(a) != "6000000" {
		t.Errorf("balance %s, want 6000000", h.balance(a))
	}
	for _, s := range h.adminOK(http.StatusOK, "GET", "/admin/services", nil).body["services"].([]any) {
		if s.(map[string]any)["slug"] == "dupline" {
			t.Errorf("a refused PUT created the line: %v", s)
		}
	}
	if r := h.adminOK(http.StatusOK, "GET", "/admin/settings", nil); r.body["maintenance"] == true {
		t.Errorf("a refused PATCH turned maintenance on: %v", r)
	}
	// Without the duplicate the same credit goes through.
	h.adminOK(http.StatusOK, "POST", credits, rawBody(`{"amountUsd":5,"reference":"x"}`))
	if h.balance(a) != "6000005" {
		t.Errorf("balance %s after a credit of 5, want 6000005", h.balance(a))
	}
}

// TestControlCharactersRefused: a control character in the trxid, the
// idempotency key or any account field is 400 INVALID BODY, and no order
// is placed.
func TestControlCharactersRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()
	a := h.newAccount("100", nil)
	// Each base order names the field under test; fresh fills in a new trxid
	// and a new idempotency key where it has one.
	bases := map[string]order{
		"trxid":          {"pid": pidPubg, "userId": "5123"},
		"idempotencyKey": {"pid": pidPubg, "userId": "5123", "idempotencyKey": ""},
		"idempotency":    {"pid": pidPubg, "userId": "5123", "idempotency": ""},
		"userId":         {"pid": pidPubg, "userId": "5123"},
		"userID":         {"pid": pidPubg, "userID": "5123"},
		"zoneId":         {"pid": pidMLBB, "userId": "5123", "zoneId": "4567"},
		"serverId":       {"pid": pidWW, "userId": "5123", "serverId": "america"},
		"region":         {"pid": pidOH, "userId": "5123", "region": "eu", "moreId": "s1"},
		"moreId":         {"pid": pidOH, "userId": "5123", "region": "eu", "moreId": "s1"},
	}
	fresh := func(base order) order {
		o := order{"trxid": h.trx()}
		for k, v := range base {
			o[k] = v
			if v == "" {
				o[k] = h.trx()
			}
		}
		return o
	}
	// Each base order is valid as it stands.
	for field, base := range bases {
		if r := h.do("POST", "/orders", a.key, fresh(base)); r.status != http.StatusOK {
			t.Fatalf("base order for %s: %v", field, r)
		}
	}
	controls := []string{"\x00", "\n", "\t", "\x1f", "\x7f", "\u0085", "\u009f"}
	for field, base := range bases {
		for _, c := range controls {
			t.Run(fmt.Sprintf("%s with %q", field, c), func(t *testing.T) {
				body := fresh(base)
				body[field] = body[field].(string) + c
				before := h.snapshot(a)
				r := h.do("POST", "/orders", a.key, body)
				wantFailure(t, r, http.StatusBadRequest, "INVALID_BODY", "INVALID BODY")
				if diff := cmp.Diff(before, h.snapshot(a)); diff != "" {
					t.Errorf("moved (-before +after):\n%s", diff)
				}
			})
		}
	}
}

// padHeaders returns headers of about size bytes in n fields.
func padHeaders(size, n int) headers {
	hdr := headers{}
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
	h := newHarness(t)
	h.loadCatalog()
	a := h.newAccount("10", nil)
	over := httpapi.MaxHeaderBytes + 1024
	under := httpapi.MaxHeaderBytes - 4096
	apis := []struct {
		name         string
		base, method string
		path, auth   string
		body         any
	}{
		{"reseller GET", h.api.URL, "GET", "/balance", "X-API-Key", nil},
		{"reseller POST /orders", h.api.URL, "POST", "/orders", "X-API-Key", order{"pid": pidPubg, "trxid": "hdr-1", "userId": "5123"}},
		{"reseller without a key", h.api.URL, "GET", "/balance", "", nil},
		{"admin GET", h.admin.URL, "GET", "/admin/settings", "Authorization", nil},
		{"admin POST credit", h.admin.URL, "POST", "/admin/accounts/" + a.id + "/credits", "Authorization",
			map[string]any{"amountUsd": usd("5"), "reference": "hdr-1"}},
	}
	for _, api := range apis {
		for _, n := range []int{1, 100} {
			t.Run(fmt.Sprintf("%s in %d fields", api.name, n), func(t *testing.T) {
				before := h.snapshot(a)
				hdr := padHeaders(over, n)
				switch api.auth {
				case "X-API-Key":
					hdr["X-API-Key"] = a.key
				case "Authorization":
					hdr["Authorization"] = "Bearer " + h.token
				}
				r, err := h.call(api.base, api.method, api.path, hdr, api.body)
				if err != nil {
					t.Fatal(err)
				}
				wantFailure(t, r, http.StatusRequestHeaderFieldsTooLarge, "HEADER_TOO_LARGE", "HEADER TOO LARGE")
				if diff := cmp.Diff(before, h.snapshot(a)); diff != "" {
					t.Errorf("moved (-before +after):\n%s", diff)
				}
			})
		}
	}
	t.Run("just under the limit", func(t *testing.T) {
		hdr := padHeaders(under, 10)
		hdr["X-API-Key"] = a.key
		r, err := h.call(h.api.URL, "GET", "/balance", hdr, nil)
		if err != nil || r.status != http.StatusOK {
			t.Errorf("GET /balance with %d bytes of headers: %v %v", under, r, err)
		}
		hdr["Authorization"] = "Bearer " + h.token
		r, err = h.call(h.admin.URL, "GET", "/admin/settings", hdr, nil)
		if err != nil || r.status != http.StatusOK {
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
	h := newHarness(t)
	a := h.newAccount("10", nil)
	for _, api := range []struct {
		name string
		h    http.Handler
		auth headers
		path string
	}{
		{"reseller", h.api.Config.Handler, headers{"X-API-Key": a.key}, "/balance"},
		{"admin", h.admin.Config.Handler, headers{"Authorization": "Bearer " + h.token}, "/admin/settings"},
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
			r, err := h.call(srv.URL, "GET", api.path, hdr, nil)
			if err != nil {
				t.Fatal(err)
			}
			wantFailure(t, r, http.StatusRequestHeaderFieldsTooLarge, "HEADER_TOO_LARGE", "HEADER TOO LARGE")

			// Past the server's own limit net/http answers before any handler.
			hdr = padHeaders(httpapi.ServerMaxHeaderBytes+64<<10, 1)
			r, err = h.call(srv.URL, "GET", api.path, hdr, nil)
			if r.status != http.StatusRequestHeaderFieldsTooLarge || err == nil {
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
	h := newHarness(t)
	a := h.newAccount("10", nil)
	const limit = 16 << 20
	path := "/admin/accounts/" + a.id + "/credits"

	t.Run("Content-Length over the limit", func(t *testing.T) {
		conn, err := net.Dial("tcp", h.admin.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// The answer comes before the body, which is never sent.
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: admin\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
			path, h.token, limit+1)
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
		want := map[string]any{"success": false, "code": "BODY_TOO_LARGE", "error": "BODY TOO LARGE"}
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !cmp.Equal(want, got) {
			t.Errorf("got %d %s, want 413 %v", resp.StatusCode, raw, want)
		}
	})
	t.Run("chunked over the limit", func(t *testing.T) {
		payload := `{"amountUsd":5,"reference":"big","pad":"` + strings.Repeat("x", limit) + `"}`
		// io.MultiReader hides the length, so the client sends it chunked.
		req, err := http.NewRequest("POST", h.admin.URL+path, io.MultiReader(strings.NewReader(payload)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+h.token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := h.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(raw), `"code":"BODY_TOO_LARGE"`) {
			t.Errorf("got %d %s, want 413 BODY_TOO_LARGE", resp.StatusCode, raw)
		}
	})
	if got := h.balance(a); got != "10" {
		t.Errorf("balance %s, want 10", got)
	}
	if n := len(h.ledger(a)); n != 1 {
		t.Errorf("%d ledger entries, want the first credit alone", n)
	}
}
