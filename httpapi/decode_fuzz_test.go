package httpapi_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/httpapi"
)

// fuzzBodyLimit is the body limit the fuzzer's requests carry, as the server's
// guard middleware wraps every body in http.MaxBytesReader. It is small so
// that the fuzzer reaches it; the production default is 64 KiB.
const fuzzBodyLimit = 2048

// decodeOrderBody runs DecodeOrder on body as POST /orders would.
func decodeOrderBody(body []byte) (topupd.OrderRequest, error) {
	r := httptest.NewRequest(http.MethodPost, "/orders", bytes.NewReader(body))
	r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, fuzzBodyLimit)
	return httpapi.DecodeOrder(r)
}

// canonicalOrder encodes an accepted request back to a body: with the spec's
// first names (pid, trxid, …) or, with alt, with their aliases (PID, idTrx, …).
func canonicalOrder(t *testing.T, req topupd.OrderRequest, alt bool) []byte {
	t.Helper()
	names := [...]string{"pid", "trxid", "idempotencyKey", "userId"}
	if alt {
		names = [...]string{"PID", "idTrx", "idempotency", "userID"}
	}
	obj := map[string]any{
		names[0]:   req.PID,
		names[1]:   req.TrxID,
		names[2]:   req.IdempotencyKey,
		names[3]:   req.Fields.UserID,
		"zoneId":   req.Fields.ZoneID,
		"serverId": req.Fields.ServerID,
		"region":   req.Fields.Region,
		"moreId":   req.Fields.MoreID,
		"quantity": nil,
	}
	if req.Quantity != 0 {
		obj["quantity"] = req.Quantity
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatalf("re-encoding %+v: %v", req, err)
	}
	return b
}

// FuzzDecodeOrder feeds arbitrary bytes to DecodeOrder as a POST /orders body.
// It never panics; a refusal is an *topupd.Error with one of the decoder's
// codes (INVALID_JSON exactly when the body is not JSON, BODY_TOO_LARGE
// exactly when it is over the limit); an accepted request satisfies the
// spec's bounds and decodes to itself again when re-encoded canonically, under
// either set of aliases. The seeds are in testdata/fuzz/FuzzDecodeOrder.
func FuzzDecodeOrder(f *testing.F) {
	f.Add([]byte(`{"pid":"ml-86","trxid":"t-1","userId":"123","zoneId":"4567"}`))
	allowed := map[topupd.ErrorCode]bool{
		topupd.EInvalidJSON:        true,
		topupd.EInvalidBody:        true,
		topupd.EInvalidRequest:     true,
		topupd.EQuantityExceedsMax: true,
		topupd.EBodyTooLarge:       true,
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeOrderBody(body)
		tooLarge := len(body) > fuzzBodyLimit
		if err != nil {
			var e *topupd.Error
			if !errors.As(err, &e) {
				t.Fatalf("DecodeOrder(%q): error %v (%T) is not a *topupd.Error", body, err, err)
			}
			code := topupd.CodeOf(err)
			if !allowed[code] {
				t.Fatalf("DecodeOrder(%q): unexpected code %s (%v)", body, code, err)
			}
			switch {
			case tooLarge:
				if code != topupd.EBodyTooLarge {
					t.Fatalf("DecodeOrder of a %d-byte body: code %s, want %s", len(body), code, topupd.EBodyTooLarge)
				}
			case code == topupd.EBodyTooLarge:
				t.Fatalf("DecodeOrder of a %d-byte body (limit %d): %s", len(body), fuzzBodyLimit, code)
			case !json.Valid(body):
				if code != topupd.EInvalidJSON {
					t.Fatalf("DecodeOrder(%q): invalid JSON gave %s (%v), want %s", body, code, err, topupd.EInvalidJSON)
				}
			case code == topupd.EInvalidJSON:
				t.Fatalf("DecodeOrder(%q): well-formed JSON gave %s (%v)", body, code, err)
			case !bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("{")):
				if code != topupd.EInvalidBody {
					t.Fatalf("DecodeOrder(%q): JSON that is not an object gave %s (%v), want %s", body, code, err, topupd.EInvalidBody)
				}
			}
			return
		}
		if tooLarge {
			t.Fatalf("DecodeOrder accepted a %d-byte body (limit %d)", len(body), fuzzBodyLimit)
		}
		if !json.Valid(body) {
			t.Fatalf("DecodeOrder(%q) accepted invalid JSON: %+v", body, req)
		}
		if strings.TrimSpace(req.PID) == "" {
			t.Fatalf("DecodeOrder(%q): accepted a blank pid: %+v", body, req)
		}
		if strings.TrimSpace(req.TrxID) == "" {
			t.Fatalf("DecodeOrder(%q): accepted a blank trxid: %+v", body, req)
		}
		if req.Quantity < 0 || req.Quantity > topupd.MaxQuantity {
			t.Fatalf("DecodeOrder(%q): quantity %d out of [0, %d]", body, req.Quantity, topupd.MaxQuantity)
		}
		if len(req.TrxID) > 128 {
			t.Fatalf("DecodeOrder(%q): trxid of %d bytes", body, len(req.TrxID))
		}
		if len(req.IdempotencyKey) > 128 {
			t.Fatalf("DecodeOrder(%q): idempotency key of %d bytes", body, len(req.IdempotencyKey))
		}
		for _, alt := range []bool{false, true} {
			canon := canonicalOrder(t, req, alt)
			if len(canon) > fuzzBodyLimit {
				continue // escaping can grow the body past the limit
			}
			again, err := decodeOrderBody(canon)
			if err != nil {
				t.Fatalf("DecodeOrder(%q) = %+v, but its re-encoding %s is refused: %v", body, req, canon, err)
			}
			if diff := cmp.Diff(req, again); diff != "" {
				t.Fatalf("DecodeOrder(%q) = %+v; re-encoded as %s it decodes differently (-first +again):\n%s", body, req, canon, diff)
			}
		}
	})
}
