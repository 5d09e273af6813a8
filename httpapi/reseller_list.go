package httpapi

import (
	"net/http"
	"net/url"
)

// A reseller's list beside GET /history (its deposits, its disputes):
// simple mode, the newest `limit` (30 by default, at most 200); paged
// mode from `page`, `pageSize` a page (20 by default, at most 50), with
// the total and whether more follow.

// listPage is a page a reseller's list reads: what to skip and how many.
type listPage struct{ offset, limit int }

// readListPage reads a list's mode and page from its query (each of
// names, and limit, page and pageSize, refused when empty), and whether
// it is paged.
func readListPage(q url.Values, names ...string) (listPage, bool, error) {
	if err := notEmpty(q, append([]string{"limit", "page", "pageSize"}, names...)...); err != nil {
		return listPage{}, false, err
	}
	if !q.Has("page") {
		limit, err := clampParam(q.Get("limit"), "limit", historyDefault, 1, historyMax)
		return listPage{limit: limit}, false, err
	}
	page, err := intParam(q.Get("page"), "page", 1, 1, 1_000_000_000)
	if err != nil {
		return listPage{}, true, err
	}
	size, err := clampParam(q.Get("pageSize"), "pageSize", pageSizeDefault, 1, pageSizeMax)
	return listPage{offset: (page - 1) * size, limit: size}, true, err
}

// writeList answers a page of a reseller's list under its name
// ("deposits"): count and the rows, and in paged mode total, hasMore,
// page and pageSize.
func writeList[T any](w http.ResponseWriter, name string, rows []T, p listPage, paged bool, total int) {
	out := map[string]any{"success": true, "count": len(rows), name: rows}
	if paged {
		out["total"], out["hasMore"] = total, p.offset+p.limit < total
		out["page"], out["pageSize"] = p.offset/p.limit+1, p.limit
	}
	writeJSON(w, http.StatusOK, out)
}
