package httpapi_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestAPIEdges, on SQLite and PostgreSQL: on the Once Human line, where
// serverId also names the region, a region and a serverId that disagree
// are INVALID BODY with nothing charged, and ones that agree (in any case)
// are placed; on a line that requires serverId, a region is not compared;
// GET /orders/ with an empty id is the documented ORDER NOT FOUND, behind
// the key check; an empty page, limit or pageSize is INVALID REQUEST.
func TestAPIEdges(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		a := h.NewAccount("100", nil)

		for _, body := range []order{
			{"pid": topupdtest.PIDOH, "userId": "1", "region": "eu", "serverId": "na", "moreId": "s-1"},
			{"pid": topupdtest.PIDOH, "userId": "1", "region": "eu", "serverId": "eu2", "moreId": "s-1"},
			{"pid": topupdtest.PIDOH, "userId": "1", "region": "mars", "serverId": "eu", "moreId": "s-1"},
		} {
			body["trxid"] = h.Trx()
			before := h.Snapshot(a)
			wantFailure(t, h.Do("POST", "/orders", a.Key, body), 400, "INVALID_BODY", "INVALID BODY")
			if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
				t.Errorf("%v moved something (-before +after):\n%s", body, diff)
			}
		}
		for _, tc := range []struct {
			body   order
			server string
		}{
			{order{"pid": topupdtest.PIDOH, "userId": "1", "region": "eu", "serverId": "eu", "moreId": "s-1"}, "eu"},
			{order{"pid": topupdtest.PIDOH, "userId": "1", "region": "NA", "serverId": " na ", "moreId": "s-1"}, "na"},
			{order{"pid": topupdtest.PIDOH, "userId": "1", "region": "na", "serverId": "", "moreId": "s-1"}, "na"},
			{order{"pid": topupdtest.PIDWW, "userId": "1", "region": "asia", "serverId": "europe"}, "europe"},
		} {
			tc.body["trxid"] = h.Trx()
			if r := h.Place(a, tc.body); r.Str("serverId") != tc.server {
				t.Errorf("%v: serverId %q, want %q", tc.body, r.Str("serverId"), tc.server)
			}
		}

		wantFailure(t, h.Do("GET", "/orders/", a.Key, nil), 404, "ORDER_NOT_FOUND", "ORDER NOT FOUND")
		wantFailure(t, h.Do("GET", "/orders/", "", nil), 401, "MISSING_API_KEY", "MISSING_API_KEY")
		for _, method := range []string{"GET", "DELETE", "PUT"} {
			r := h.Do(method, "/orders", a.Key, nil)
			wantFailure(t, r, 405, "METHOD_NOT_ALLOWED", "METHOD NOT ALLOWED")
			if r.Header.Get("Allow") != "POST" {
				t.Errorf("%s /orders: Allow %q, want POST", method, r.Header.Get("Allow"))
			}
		}

		for _, q := range []string{"?page=", "?limit=", "?page=1&pageSize=", "?page=&limit=5"} {
			wantFailure(t, h.Do("GET", "/history"+q, a.Key, nil), 400, "INVALID_REQUEST", "INVALID REQUEST")
		}
	})
}
