package httpapi

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// Paging of the admin lists: limit is 1 to maxPage, defaultPage when absent.
const (
	defaultPage = 50
	maxPage     = 500
)

// page is where a page of an admin list starts and how long it is.
type page struct {
	// Limit is the page's length.
	Limit int
	// Before is a timed list's cursor: the page starts after the row of
	// this time and number (nil on the first page).
	Before *topupd.ListKey
	// After is a named list's cursor: the page starts after the row of this
	// id ("" on the first page).
	After string
}

// The kinds of cursors: each list's cursors start with its letter, so that
// one list's cursor is refused by another.
const (
	ordersCursor   = service.OrdersCursor
	actionsCursor  = service.ActionsCursor
	accountsCursor = "a"
)

// nextCursor spells the cursor of a timed list's next page
// (service.ListCursor), or nil on the last page.
func nextCursor(kind string, next *topupd.ListKey) *string {
	if next == nil {
		return nil
	}
	c := service.ListCursor(kind, *next)
	return &c
}

// parsePage reads the paging parameters, limit and cursor (one of kind's),
// and refuses any parameter that is neither those nor in known, and any
// given twice. Timed lists (orders, actions) get Before, named ones
// (accounts) After.
func parsePage(v url.Values, known map[string]bool, kind string) (page, error) {
	q := page{Limit: defaultPage}
	names := make([]string, 0, len(v))
	for name := range v {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name != "limit" && name != "cursor" && !known[name] {
			return q, topupd.Errorf(topupd.EInvalidRequest, "unknown parameter %q", name)
		}
		if len(v[name]) > 1 {
			return q, topupd.Errorf(topupd.EInvalidRequest, "%s: given more than once", name)
		}
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxPage {
			return q, topupd.Errorf(topupd.EInvalidRequest, "limit: a whole number from 1 to %d", maxPage)
		}
		q.Limit = n
	}
	if s := v.Get("cursor"); s != "" {
		bad := topupd.Errorf(topupd.EInvalidRequest, "cursor: not one this list gave")
		k, row, ok := strings.Cut(s, ":")
		if !ok || k != kind || row == "" {
			return q, bad
		}
		if kind == accountsCursor {
			q.After = row
			return q, nil
		}
		before, err := service.ParseListCursor(kind, s)
		if err != nil {
			return q, err
		}
		q.Before = before
	}
	return q, nil
}

// ordersFilters are the filters of GET /admin/orders besides paging.
var ordersFilters = map[string]bool{"status": true, "accountId": true, "trxid": true, "pid": true, "slug": true,
	"provider": true, "from": true, "to": true, "sandbox": true, "code": true}

// parseOrdersQuery reads GET /admin/orders' filters and paging.
func parseOrdersQuery(v url.Values) (topupd.OrdersQuery, error) {
	p, err := parsePage(v, ordersFilters, ordersCursor)
	q := topupd.OrdersQuery{Limit: p.Limit, Before: p.Before}
	if err != nil {
		return q, err
	}
	q.Status = topupd.OrderStatus(v.Get("status"))
	switch q.Status {
	case "", topupd.StatusProcessing, topupd.StatusCompleted, topupd.StatusCancelled:
	default:
		return q, topupd.Errorf(topupd.EInvalidRequest, "status: processing, completed or cancelled")
	}
	q.AccountID, q.TrxID, q.PID, q.Slug, q.Provider = v.Get("accountId"), v.Get("trxid"), v.Get("pid"), v.Get("slug"), v.Get("provider")
	q.Code = v.Get("code")
	switch v.Get("sandbox") {
	case "", "false":
	case "true": // the sandboxes' orders alone: an account's are its sandbox's
		q.Sandbox = true
		if q.AccountID != "" {
			q.AccountID = topupd.SandboxID(q.AccountID)
		}
	default:
		return q, topupd.Errorf(topupd.EInvalidRequest, "sandbox: true or false")
	}
	q.From, q.To, err = parseSpan(v)
	return q, err
}

// reportQuery reads a report's query: it refuses a parameter not named, or
// one given twice, then reads the span [from, to) (parseSpan) and the format
// (wantCSV).
func reportQuery(v url.Values, names ...string) (from, to time.Time, csvOut bool, err error) {
	if from, to, err = spanQuery(v, names...); err != nil {
		return from, to, false, err
	}
	csvOut, err = wantCSV(v)
	return from, to, csvOut, err
}

// spanQuery refuses a parameter not named, or one given twice, then reads
// the span [from, to) (parseSpan).
func spanQuery(v url.Values, names ...string) (from, to time.Time, err error) {
	if err := knownParams(v, names...); err != nil {
		return from, to, err
	}
	return parseSpan(v)
}

// parseSpan reads the from and to parameters: RFC 3339 times, either may
// be absent (zero).
func parseSpan(v url.Values) (from, to time.Time, err error) {
	for _, t := range []struct {
		name string
		dst  *time.Time
	}{{"from", &from}, {"to", &to}} {
		s := v.Get(t.name)
		if s == "" {
			continue
		}
		if *t.dst, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return from, to, topupd.Errorf(topupd.EInvalidRequest, "%s: an RFC 3339 time", t.name)
		}
	}
	return from, to, nil
}

// seqPage reads the paging of a list whose rows are newest first by seq
// (reconciliations, deposits): known filters besides limit and cursor,
// and a cursor of kind ("<kind>:<seq>", the last row of the page before).
// It returns the page's size and the seq to start below (0 for the
// first page).
func seqPage(v url.Values, known map[string]bool, kind string) (limit int, before int64, err error) {
	rest := url.Values{}
	for k, vals := range v {
		if k != "cursor" {
			rest[k] = vals
		}
	}
	p, err := parsePage(rest, known, accountsCursor)
	if err != nil {
		return 0, 0, err
	}
	if len(v["cursor"]) > 1 {
		return 0, 0, topupd.Errorf(topupd.EInvalidRequest, "cursor: given more than once")
	}
	if c := v.Get("cursor"); c != "" {
		row, ok := strings.CutPrefix(c, kind+":")
		seq, perr := strconv.ParseInt(row, 10, 64)
		if !ok || perr != nil || seq <= 0 {
			return 0, 0, topupd.Errorf(topupd.EInvalidRequest, "cursor: not one this list gave")
		}
		before = seq
	}
	return p.Limit, before, nil
}

// seqCursor is the cursor of the page after one whose last row has seq.
func seqCursor(kind string, seq int64) *string {
	c := kind + ":" + strconv.FormatInt(seq, 10)
	return &c
}
