package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/topupd/topupd/client"
)

// TestSyncSendsItsQuery: a sync sends updatedSince as RFC 3339 in UTC and
// the ETag as If-None-Match; a 304 is NotModified with that ETag, and a
// 304 to a call that sent no ETag is an error.
func TestSyncSendsItsQuery(t *testing.T) {
	var gotQuery, gotTag string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQuery, gotTag = r.URL.RawQuery, r.Header.Get("If-None-Match")
		if gotTag == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		writeJSON(w, http.StatusOK, map[string]any{"success": true, "serverTime": "2026-11-26T12:00:00.123Z",
			"products": []any{map[string]any{"id": "pubg-60", "status": "disabled"}}})
	}))
	defer srv.Close()
	c, err := client.New(srv.URL, standInKey)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	since := time.Date(2026, 11, 26, 14, 0, 0, 5e6, time.FixedZone("", 2*3600))
	s, err := c.SyncCatalog(ctx, client.CatalogQuery{UpdatedSince: since})
	if err != nil {
		t.Fatal(err)
	}
	if gotQuery != "updatedSince=2026-11-26T12%3A00%3A00.005Z" || gotTag != "" {
		t.Errorf("sent %q, If-None-Match %q", gotQuery, gotTag)
	}
	if s.NotModified || s.ETag != `"v1"` || len(s.Products) != 1 || !s.Products[0].Gone() ||
		!s.ServerTime.Equal(time.Date(2026, 11, 26, 12, 0, 0, 123e6, time.UTC)) {
		t.Errorf("the answer: %+v", s)
	}
	same, err := c.SyncCatalog(ctx, client.CatalogQuery{ETag: s.ETag})
	if err != nil || !same.NotModified || same.ETag != `"v1"` || same.Products != nil || gotTag != `"v1"` || gotQuery != "" {
		t.Errorf("with the ETag: %+v, %v (sent %q, %q)", same, err, gotQuery, gotTag)
	}
	// A 304 the client did not ask for is not a success.
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotModified) })
	if _, err := c.SyncServices(ctx, ""); client.StatusCode(err) != http.StatusNotModified {
		t.Errorf("an unasked-for 304: %v", err)
	}
}
