package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// orderIDs lists the orderId of each order of a list answer.
func orderIDs(r topupdtest.Reply) []string {
	var out []string
	items, _ := r.Body["orders"].([]any)
	for _, it := range items {
		out = append(out, it.(map[string]any)["orderId"].(string))
	}
	return out
}

// TestAdminOrdersFilters: GET /admin/orders filters by every parameter of
// the contract, pages with a cursor, and refuses what it cannot read.
func TestAdminOrdersFilters(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("100", nil)
	b := h.NewAccount("100", nil)
	var ids []string // newest last
	place := func(acc topupdtest.Account, body order) string {
		id := h.Place(acc, body).Str("orderId")
		ids = append(ids, id)
		return id
	}
	trxA := h.Trx()
	place(a, order{"pid": topupdtest.PIDPubg, "trxid": trxA, "userId": "5123"})
	place(b, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1})
	manual := place(b, order{"pid": topupdtest.PIDPubgManual, "trxid": h.Trx(), "userId": "5124"})
	place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "99990001"}) // cancelled by sim
	rev := func(s ...string) []string {
		out := make([]string, len(s))
		for i, v := range s {
			out[len(s)-1-i] = v
		}
		return out
	}
	cases := []struct {
		query string
		want  []string
	}{
		{"", rev(ids...)},
		{"accountId=" + b.ID, rev(ids[1], ids[2])},
		{"trxid=" + url.QueryEscape(trxA), []string{ids[0]}},
		{"pid=" + topupdtest.PIDPubg, rev(ids[0], ids[3])},
		{"slug=pubg", rev(ids[0], ids[2], ids[3])},
		{"provider=manual", []string{manual}},
		{"status=processing", []string{manual}},
		{"status=cancelled&accountId=" + a.ID, []string{ids[3]}},
		{"from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00Z", rev(ids...)},
		{"to=2000-01-01T00:00:00Z", nil},
	}
	for _, c := range cases {
		r := h.AdminOK(http.StatusOK, "GET", "/admin/orders?"+c.query, nil)
		if diff := cmp.Diff(c.want, orderIDs(r)); diff != "" {
			t.Errorf("?%s (-want +got):\n%s", c.query, diff)
		}
		for _, it := range r.Body["orders"].([]any) {
			if _, ok := it.(map[string]any)["success"]; ok {
				t.Errorf("?%s: a listed order carries success: %v", c.query, it)
			}
		}
	}

	// Paging: two at a time, the cursor of the last page is null.
	var got []string
	cursor := ""
	for page := 0; page < 5; page++ {
		q := "limit=2"
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		r := h.AdminOK(http.StatusOK, "GET", "/admin/orders?"+q, nil)
		got = append(got, orderIDs(r)...)
		next, _ := r.Body["nextCursor"].(string)
		if r.Body["nextCursor"] != nil && next == "" || !r.Has("nextCursor") {
			t.Fatalf("nextCursor: %v", r)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if diff := cmp.Diff(rev(ids...), got); diff != "" {
		t.Errorf("paged two at a time (-want +got):\n%s", diff)
	}

	before := orderIDs(h.AdminOK(http.StatusOK, "GET", "/admin/orders?limit=500", nil))
	for q, param := range map[string]string{"overdue=true": "overdue", "nosuch=1": "nosuch", "limit=0": "limit", "limit=501": "limit",
		"limit=10000": "limit", "limit=x": "limit", "cursor=abc": "cursor", "cursor=x:1.1": "cursor", "cursor=a:acc_x": "cursor",
		"cursor=o:5": "cursor", "cursor=o:1.x": "cursor", "status=done": "status", "from=yesterday": "from", "to=2026-13-01T00:00:00Z": "to",
		"status=processing&status=completed": "status"} {
		r := h.AdminDo("GET", "/admin/orders?"+q, nil)
		if r.Status != http.StatusBadRequest || r.Str("code") != "INVALID_REQUEST" || !strings.Contains(r.Str("detail"), param) {
			t.Errorf("?%s: %v, want 400 INVALID_REQUEST naming %s", q, r, param)
		}
	}
	if after := orderIDs(h.AdminOK(http.StatusOK, "GET", "/admin/orders?limit=500", nil)); !slices.Equal(before, after) {
		t.Errorf("after the refused calls the orders are %v, were %v", after, before)
	}
	if r := h.AdminOK(http.StatusOK, "GET", "/admin/orders?limit=500", nil); len(orderIDs(r)) != len(ids) {
		t.Errorf("limit=500: %v", r)
	}
}

// TestCodesUniqueEverywhere: a code is held once across all packs: a stock
// upload counts a code held by another pack, or delivered, as a duplicate,
// and a manual completion with such a code is 409 CODE_ALREADY_USED and
// changes nothing. The audit stays green.
func TestCodesUniqueEverywhere(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("100", nil)
	keys := h.AddStock(topupdtest.PIDKey, 2)
	// The same codes in another pack are duplicates.
	r := h.AdminOK(http.StatusOK, "POST", "/admin/products/"+topupdtest.PIDGift+"/stock", map[string]any{"codes": []string{keys[0], "FRESH-GIFT-1"}})
	if r.Num("added") != "1" || r.Num("duplicates") != "1" {
		t.Errorf("upload with a code of another pack: %v", r)
	}
	sold := h.Place(a, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1})
	code := stringsOf(sold.Body["codes"])[0]
	r = h.AdminOK(http.StatusOK, "POST", "/admin/products/"+topupdtest.PIDGift+"/stock", map[string]any{"codes": []string{code}})
	if r.Num("added") != "0" || r.Num("duplicates") != "1" {
		t.Errorf("upload of a delivered code to another pack: %v", r)
	}

	byHand(t, h)
	manual := h.Place(a, order{"pid": pidByHand, "trxid": h.Trx(), "userId": "5123"}).Str("orderId")
	before := h.Snapshot(a)
	for _, used := range []string{code, "FRESH-GIFT-1", keys[1]} {
		r := h.AdminDo("POST", "/admin/orders/"+manual+"/complete", map[string]any{"codes": []string{"NEW-ONE-" + used, used}})
		if r.Status != http.StatusConflict || r.Str("code") != "CODE_ALREADY_USED" {
			t.Errorf("completing with %s: %v, want 409 CODE_ALREADY_USED", used, r)
		}
	}
	if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
		t.Errorf("refused completions changed the books (-before +after):\n%s", diff)
	}
	if got := h.AdminOK(http.StatusOK, "GET", "/admin/orders/"+manual, nil); got.Str("status") != "processing" {
		t.Errorf("the order after refused completions: %v", got)
	}
	done := h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+manual+"/complete", map[string]any{"codes": []string{"HAND-DELIVERED-1"}})
	if done.Str("status") != "completed" {
		t.Fatalf("completing with a fresh code: %v", done)
	}
	r = h.AdminOK(http.StatusOK, "POST", "/admin/products/"+topupdtest.PIDKey+"/stock", map[string]any{"codes": []string{"HAND-DELIVERED-1"}})
	if r.Num("duplicates") != "1" {
		t.Errorf("upload of a code delivered by hand: %v", r)
	}
	audit := h.AdminOK(http.StatusOK, "GET", "/admin/audit", nil)
	for _, c := range audit.Body["checks"].([]any) {
		c := c.(map[string]any)
		if c["name"] != "orders-final" && fmt.Sprint(c["violations"]) != "0" {
			t.Errorf("audit %v", c)
		}
	}
}
