package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// Catalog sync (integration.md, "Catalog sync"): GET /products and GET
// /catalog take updatedSince and answer serverTime; they and GET /services
// send an ETag, and a matching If-None-Match is 304 without a body.

// serverTimeLayout is RFC 3339 with milliseconds, the precision of the
// store's change times.
const serverTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// updatedSince reads the updatedSince query parameter: RFC 3339, with or
// without a fraction of a second; present but not such a time is
// INVALID REQUEST.
func updatedSince(q url.Values) (since time.Time, ok bool, err error) {
	if !q.Has("updatedSince") {
		return since, false, nil
	}
	since, err = time.Parse(time.RFC3339Nano, q.Get("updatedSince"))
	if err != nil {
		return since, false, topupd.Errorf(topupd.EInvalidRequest, "updatedSince: an RFC 3339 time, such as 2025-01-31T12:00:00Z")
	}
	return since, true, nil
}

// etag is a strong entity tag over parts, which name what the answer
// shows (the route, the caller, the version of its data).
func etag(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return `"` + hex.EncodeToString(h[:12]) + `"`
}

// notModified answers 304 with tag when the request's If-None-Match lists
// it (or is *), and reports whether it did; otherwise it sets the ETag of
// the answer to come. Tags compare weakly, as RFC 9110 says for
// If-None-Match.
func notModified(w http.ResponseWriter, r *http.Request, tag string) bool {
	h := w.Header()
	h.Set("ETag", tag)
	h.Set("Cache-Control", "private, no-cache")
	for _, v := range r.Header.Values("If-None-Match") {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
			if t == "*" || t == tag {
				w.WriteHeader(http.StatusNotModified)
				return true
			}
		}
	}
	return false
}

// writeTagged writes v as writeJSON does, with an ETag over its bytes, or
// 304 when the request already has them.
func writeTagged(w http.ResponseWriter, r *http.Request, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, v) // writes the generic failure
		return
	}
	sum := sha256.Sum256(b)
	if notModified(w, r, `"`+hex.EncodeToString(sum[:12])+`"`) {
		return
	}
	writeJSON(w, http.StatusOK, json.RawMessage(b))
}

// productRow is one row of a catalog answer: a pack on sale, or with
// gone, a pack of a sync answer that is no longer on sale for the caller,
// which shows only its id and status "disabled".
type productRow struct {
	productView
	gone bool
}

// MarshalJSON writes a gone row as { "id", "status": "disabled" }.
func (p productRow) MarshalJSON() ([]byte, error) {
	if p.gone {
		return json.Marshal(goneRow{ID: p.ID, Status: topupd.StatusDisabled})
	}
	return json.Marshal(p.productView)
}

// goneRow is a sync answer's row of a pack taken off sale.
type goneRow struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}
