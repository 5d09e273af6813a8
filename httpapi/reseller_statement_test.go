package httpapi_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// statementRow is one entry of a statement answer, as its JSON text.
type statementRow struct {
	Kind, AmountUsd, BalanceAfterUsd, OrderID, TrxID, Reference string
}

func statementRows(t *testing.T, r topupdtest.Reply) []statementRow {
	t.Helper()
	var body struct {
		Entries []struct {
			At              time.Time
			Kind            string
			AmountUsd       json.Number
			BalanceAfterUsd json.Number
			OrderID, TrxID  string
			Reference       string
		}
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatalf("statement %s: %v", r, err)
	}
	out := []statementRow{}
	for _, e := range body.Entries {
		out = append(out, statementRow{e.Kind, string(e.AmountUsd), string(e.BalanceAfterUsd), e.OrderID, e.TrxID, e.Reference})
	}
	return out
}

// TestResellerStatement, on SQLite and PostgreSQL: GET /statement answers
// the caller's own balance changes in [from, to), oldest first, signed,
// with the order's id and trxid on charges and refunds and the operator's
// reference on credits, between the balances at both ends; it is the
// operator's statement of the account, entry for entry; it holds no other
// account's entries; it is at most 31 days; and format=csv answers text/csv.
func TestResellerStatement(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		clock := topupdtest.NewClock()
		h := topupdtest.New(t, append(db, topupdtest.WithClock(clock))...)
		h.LoadCatalog()
		a := h.NewAccount("", nil)
		other := h.NewAccount("7", nil)
		start := clock.Now()
		h.AdminOK(http.StatusOK, "POST", "/admin/accounts/"+a.ID+"/credits", map[string]any{"amountUsd": 10, "reference": "wire 1"})
		clock.Advance(time.Hour)
		done := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": "st-done", "userId": "5123"})
		clock.Advance(time.Hour)
		mid := clock.Now()
		refused := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": "st-refused", "userId": "99990001"}) // sim refuses: refunded
		h.WaitOrder(a, refused.Str("orderId"))
		clock.Advance(time.Hour)
		h.AdminOK(http.StatusOK, "POST", "/admin/accounts/"+a.ID+"/credits", map[string]any{"amountUsd": -1.5, "reference": "correction"})
		h.Place(other, order{"pid": topupdtest.PIDPubg, "trxid": "st-other", "userId": "5123"})
		end := clock.Now().Add(time.Minute)

		get := func(from, to time.Time, extra string) topupdtest.Reply {
			q := url.Values{"from": {from.UTC().Format(time.RFC3339Nano)}, "to": {to.UTC().Format(time.RFC3339Nano)}}
			return h.Do("GET", "/statement?"+q.Encode()+extra, a.Key, nil)
		}
		r := get(start, end, "")
		if r.Status != 200 || r.Body["success"] != true || r.Num("openingBalanceUsd") != "0" || r.Num("closingBalanceUsd") != "7.61" {
			t.Fatalf("statement: %s", r)
		}
		doneID, refusedID := done.Str("orderId"), refused.Str("orderId")
		want := []statementRow{
			{"credit", "10", "10", "", "", "wire 1"},
			{"charge", "-0.89", "9.11", doneID, "st-done", ""},
			{"charge", "-0.89", "8.22", refusedID, "st-refused", ""},
			{"refund", "0.89", "9.11", refusedID, "st-refused", ""},
			{"credit", "-1.5", "7.61", "", "", "correction"},
		}
		if diff := cmp.Diff(want, statementRows(t, r)); diff != "" {
			t.Errorf("entries (-want +got):\n%s", diff)
		}
		// The operator's statement of the account says the same.
		q := url.Values{"from": {start.UTC().Format(time.RFC3339Nano)}, "to": {end.UTC().Format(time.RFC3339Nano)}}
		adm := h.AdminOK(http.StatusOK, "GET", "/admin/accounts/"+a.ID+"/statement?"+q.Encode(), nil)
		if diff := cmp.Diff(statementRows(t, adm), statementRows(t, r)); diff != "" {
			t.Errorf("the reseller's statement is not the operator's (-admin +reseller):\n%s", diff)
		}

		// From the middle: it opens at the balance then.
		r = get(mid, end, "")
		if r.Num("openingBalanceUsd") != "9.11" || r.Num("closingBalanceUsd") != "7.61" || len(statementRows(t, r)) != 3 {
			t.Errorf("statement from the middle: %s", r)
		}
		// [from, to): an entry at to is not in it.
		if r = get(start, mid, ""); len(statementRows(t, r)) != 2 || r.Num("closingBalanceUsd") != "9.11" {
			t.Errorf("statement to the middle: %s", r)
		}

		// As CSV.
		r, _ = h.Call(h.API.URL, "GET", "/statement?"+q.Encode()+"&format=csv", topupdtest.Headers{"X-API-Key": a.Key}, nil)
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("CSV statement: %d %s", r.Status, r.Header.Get("Content-Type"))
		}
		rows, err := csv.NewReader(strings.NewReader(string(r.Raw))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1+1+len(want)+1 || rows[1][1] != "opening" || rows[len(rows)-1][1] != "closing" || rows[len(rows)-1][3] != "7.61" {
			t.Errorf("CSV rows: %q", rows)
		}
		if rows[3][1] != "charge" || rows[3][2] != "-0.89" || rows[3][5] != doneID || rows[3][6] != "st-done" {
			t.Errorf("CSV charge row: %q", rows[3])
		}

		// Exactly 31 days is fine; a moment more, or a bad period, is refused.
		if r = get(end.Add(-31*24*time.Hour), end, ""); r.Status != 200 {
			t.Errorf("31 days: %s", r)
		}
		for _, bad := range []string{
			"from=" + url.QueryEscape(end.Add(-31*24*time.Hour-time.Millisecond).UTC().Format(time.RFC3339Nano)) + "&to=" + url.QueryEscape(end.UTC().Format(time.RFC3339Nano)),
			"to=" + url.QueryEscape(end.UTC().Format(time.RFC3339Nano)),
			"from=" + url.QueryEscape(start.UTC().Format(time.RFC3339Nano)),
			"",
			fmt.Sprintf("from=%s&to=%s", url.QueryEscape(end.UTC().Format(time.RFC3339)), url.QueryEscape(start.UTC().Format(time.RFC3339))),
			"from=yesterday&to=today",
			fmt.Sprintf("from=%s&to=%s&format=xml", url.QueryEscape(start.UTC().Format(time.RFC3339)), url.QueryEscape(end.UTC().Format(time.RFC3339))),
			fmt.Sprintf("from=%s&to=%s&accountId=%s", url.QueryEscape(start.UTC().Format(time.RFC3339)), url.QueryEscape(end.UTC().Format(time.RFC3339)), other.ID),
		} {
			wantFailure(t, h.Do("GET", "/statement?"+bad, a.Key, nil), 400, "INVALID_REQUEST", "INVALID REQUEST")
		}
		wantFailure(t, h.Do("GET", "/statement?from=x", "", nil), 401, "MISSING_API_KEY", "MISSING_API_KEY")
	})
}

// TestHistoryByTrxID, on SQLite and PostgreSQL: GET /history?trxid= answers
// the caller's order of that trxid alone, in simple or paged mode, and
// none for an unknown trxid or another account's.
func TestHistoryByTrxID(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		a := h.NewAccount("100", nil)
		other := h.NewAccount("100", nil)
		var mine string
		for i := range 5 {
			r := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": fmt.Sprintf("look-%d", i), "userId": "5123"})
			if i == 2 {
				mine = r.Str("orderId")
			}
		}
		h.Place(other, order{"pid": topupdtest.PIDPubg, "trxid": "look-other", "userId": "5123"})

		ids := func(r topupdtest.Reply) []string {
			out := []string{}
			orders, _ := r.Body["orders"].([]any)
			for _, o := range orders {
				out = append(out, o.(map[string]any)["orderId"].(string))
			}
			return out
		}
		for _, tc := range []struct {
			query  string
			want   []string
			paging string // total, or "" in simple mode
		}{
			{"?trxid=look-2", []string{mine}, ""},
			{"?trxid=look-2&limit=1", []string{mine}, ""},
			{"?trxid=nope", []string{}, ""},
			{"?trxid=look-other", []string{}, ""},
			{"?trxid=look-2&page=1", []string{mine}, "1"},
			{"?trxid=look-2&page=2", []string{}, "1"},
			{"?trxid=look-other&page=1&pageSize=5", []string{}, "0"},
		} {
			r := h.Do("GET", "/history"+tc.query, a.Key, nil)
			if r.Status != 200 {
				t.Errorf("GET /history%s: %s", tc.query, r)
				continue
			}
			if diff := cmp.Diff(tc.want, ids(r)); diff != "" {
				t.Errorf("GET /history%s (-want +got):\n%s", tc.query, diff)
			}
			if r.Num("count") != fmt.Sprint(len(tc.want)) || r.Num("total") != tc.paging || r.Has("hasMore") != (tc.paging != "") {
				t.Errorf("GET /history%s: count %s, total %q: %s", tc.query, r.Num("count"), r.Num("total"), r.Raw)
			}
		}
		if r := h.Do("GET", "/history?trxid=look-other", other.Key, nil); r.Num("count") != "1" || r.Body["orders"].([]any)[0].(map[string]any)["trxid"] != "look-other" {
			t.Errorf("the other account's own lookup: %s", r)
		}
	})
}
