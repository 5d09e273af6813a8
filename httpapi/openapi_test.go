package httpapi_test

import (
	"bytes"
	"testing"

	"github.com/topupd/topupd/api"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestOpenAPIDocument: GET /openapi.json answers the reseller API's
// document, behind the same key check as every other path.
func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	wantFailure(t, h.Do("GET", "/openapi.json", "", nil), 401, "MISSING_API_KEY", "MISSING_API_KEY")
	wantFailure(t, h.Do("GET", "/openapi.json", "tpd_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", nil), 401, "INVALID_API_KEY", "INVALID_API_KEY")
	banned := h.NewAccount("", map[string]any{"banned": true})
	wantFailure(t, h.Do("GET", "/openapi.json", banned.Key, nil), 403, "ACCOUNT_BANNED", "ACCOUNT_BANNED")
	a := h.NewAccount("", nil)
	r := h.Do("GET", "/openapi.json", a.Key, nil)
	want, err := api.ResellerJSON()
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != 200 || !bytes.Equal(r.Raw, want) {
		t.Errorf("GET /openapi.json: %d, %d bytes; want 200 and the document's %d bytes", r.Status, len(r.Raw), len(want))
	}
	if r.Str("openapi") != "3.1.0" {
		t.Errorf("openapi = %q", r.Str("openapi"))
	}
}
