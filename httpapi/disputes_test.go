package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestDisputes, on SQLite and PostgreSQL (back-office.md section 5, the
// opening and reading of disputes; their resolution is not built yet):
// the settings and their refusals; a dispute of some of a key order's
// codes, and of a whole top-up order, with its dueAt and its
// dispute.opened event; every refusal (a bad reason or detail, a code not
// the order's or named twice, codes for an order without any, an unknown
// or another account's or books' order, an order not completed, one past
// the window, a second open dispute), none of which opens one; the
// reseller's reads in both modes and by status; a sandbox key's disputes
// are its sandbox's; operators list them (live or sandboxes', by account,
// overdue), read one with its codes masked, and set and clear its
// supplier claim (support may, a viewer may not; logged); the metric.
func TestDisputes(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		clock := topupdtest.NewClock()
		h := topupdtest.New(t, append(db, topupdtest.WithClock(clock))...)
		h.LoadCatalog()
		shop, other := h.NewAccount("100", nil), h.NewAccount("100", nil)

		set := h.AdminOK(http.StatusOK, "GET", "/admin/settings", nil)
		if num(set.Body["disputeWindowDays"]) != "7" || num(set.Body["disputeAnswerHours"]) != "48" {
			t.Errorf("the default dispute settings: %s", set)
		}
		for what, patch := range map[string]map[string]any{
			"a window of 0": {"disputeWindowDays": 0}, "a window of 366": {"disputeWindowDays": 366},
			"0 hours": {"disputeAnswerHours": 0}, "721 hours": {"disputeAnswerHours": 721}, "a window as a string": {"disputeWindowDays": "7"},
		} {
			wantCode(t, h.AdminDo("PATCH", "/admin/settings", patch), 400, "INVALID_BODY", what)
		}
		h.AdminOK(http.StatusOK, "PATCH", "/admin/settings", map[string]any{"disputeAnswerHours": 24})

		keyOrder := h.Place(shop, map[string]any{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 2})
		keys := h.WaitOrder(shop, keyOrder.Str("orderId"))
		codes, _ := keys.Body["codes"].([]any)
		if keys.Str("status") != "completed" || len(codes) != 2 {
			t.Fatalf("a key order: %s", keys)
		}
		top := h.WaitOrder(shop, h.Place(shop, map[string]any{"pid": topupdtest.PIDFF, "trxid": h.Trx(), "userId": "123456789"}).Str("orderId"))
		if top.Str("status") != "completed" {
			t.Fatalf("a top-up: %s", top)
		}
		manual := h.Place(shop, map[string]any{"pid": topupdtest.PIDPubgManual, "trxid": h.Trx(), "userId": "5123456789"}).Str("orderId")
		theirs := h.WaitOrder(other, h.Place(other, map[string]any{"pid": topupdtest.PIDFF, "trxid": h.Trx(), "userId": "123456789"}).Str("orderId"))
		open := func(a topupdtest.Account, orderID string, body map[string]any) topupdtest.Reply {
			return h.Do("POST", "/orders/"+url.PathEscape(orderID)+"/disputes", a.Key, body)
		}

		// Refusals open nothing.
		keyID, first := keys.Str("orderId"), codes[0].(string)
		for what, c := range map[string]struct {
			order  string
			body   map[string]any
			status int
			code   string
		}{
			"no reason":               {keyID, map[string]any{}, 400, "INVALID_BODY"},
			"an unknown reason":       {keyID, map[string]any{"reason": "broken"}, 400, "INVALID_BODY"},
			"a detail of 1001":        {keyID, map[string]any{"reason": "other", "detail": strings.Repeat("x", 1001)}, 400, "INVALID_BODY"},
			"a code not the order's":  {keyID, map[string]any{"reason": "code_used", "codes": []string{"NOT-A-CODE"}}, 400, "INVALID_BODY"},
			"a code in another case":  {keyID, map[string]any{"reason": "code_used", "codes": []string{strings.ToLower(first) + "x"}}, 400, "INVALID_BODY"},
			"a code named twice":      {keyID, map[string]any{"reason": "code_used", "codes": []string{first, first}}, 400, "INVALID_BODY"},
			"no code named":           {keyID, map[string]any{"reason": "code_used", "codes": []string{}}, 400, "INVALID_BODY"},
			"codes of a top-up":       {top.Str("orderId"), map[string]any{"reason": "not_credited", "codes": []string{first}}, 400, "INVALID_BODY"},
			"an unknown field":        {keyID, map[string]any{"reason": "other", "why": "x"}, 400, "INVALID_BODY"},
			"an unknown order":        {"ord_nope", map[string]any{"reason": "other"}, 404, "ORDER_NOT_FOUND"},
			"another account's order": {theirs.Str("orderId"), map[string]any{"reason": "other"}, 404, "ORDER_NOT_FOUND"},
			"an order processing":     {manual, map[string]any{"reason": "not_credited"}, 409, "ORDER_NOT_COMPLETED"},
		} {
			r := open(shop, c.order, c.body)
			if r.Status != c.status || r.Str("code") != c.code {
				t.Errorf("%s: %s; want %d %s", what, r, c.status, c.code)
			}
		}
		if r := h.Do("GET", "/disputes", shop.Key, nil); len(r.Body["disputes"].([]any)) != 0 {
			t.Fatalf("refused disputes were opened: %s", r)
		}

		// One code of the key order; the whole top-up.
		at := clock.Now()
		d := open(shop, keyID, map[string]any{"reason": "code_used", "codes": []string{first}, "detail": "the store says it was redeemed"})
		due, _ := time.Parse(time.RFC3339Nano, d.Str("dueAt"))
		if d.Status != 201 || !strings.HasPrefix(d.Str("disputeId"), "dsp_") || d.Str("status") != "open" || d.Str("orderId") != keyID ||
			len(d.Body["codes"].([]any)) != 1 || d.Body["codes"].([]any)[0] != first || !due.Equal(at.Add(24*time.Hour).Truncate(time.Millisecond)) {
			t.Fatalf("a dispute of one code: %s", d)
		}
		wantCode(t, open(shop, keyID, map[string]any{"reason": "other"}), 409, "DISPUTE_OPEN", "a second dispute of the order")
		whole := open(shop, top.Str("orderId"), map[string]any{"reason": "not_credited"})
		if whole.Status != 201 || len(whole.Body["codes"].([]any)) != 0 || whole.Body["detail"] != nil {
			t.Errorf("a dispute of a whole top-up: %s", whole)
		}
		var ev topupdtest.Reply
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if ev = h.Do("GET", "/events", shop.Key, nil); strings.Count(string(ev.Raw), `"type":"dispute.opened"`) == 2 {
				break
			}
		}
		if !strings.Contains(string(ev.Raw), d.Str("disputeId")) || !strings.Contains(string(ev.Raw), whole.Str("disputeId")) ||
			strings.Count(string(ev.Raw), `"type":"dispute.opened"`) != 2 {
			t.Errorf("the dispute.opened events: %s", ev)
		}

		// Six disputes of one order at once: one opens.
		race := h.WaitOrder(shop, h.Place(shop, map[string]any{"pid": topupdtest.PIDFF, "trxid": h.Trx(), "userId": "123456789"}).Str("orderId"))
		results := make(chan topupdtest.Reply, 6)
		for range 6 {
			go func() { results <- open(shop, race.Str("orderId"), map[string]any{"reason": "not_credited"}) }()
		}
		opened := 0
		for range 6 {
			switch r := <-results; {
			case r.Status == 201:
				opened++
			case r.Status != 409 || r.Str("code") != "DISPUTE_OPEN":
				t.Errorf("a dispute racing others: %s", r)
			}
		}
		if opened != 1 {
			t.Errorf("six disputes of one order at once opened %d", opened)
		}

		// Past the window.
		late := h.WaitOrder(shop, h.Place(shop, map[string]any{"pid": topupdtest.PIDFF, "trxid": h.Trx(), "userId": "123456789"}).Str("orderId"))
		clock.Advance(7*24*time.Hour + time.Minute)
		wantCode(t, open(shop, late.Str("orderId"), map[string]any{"reason": "other"}), 409, "DISPUTE_WINDOW_CLOSED", "a dispute past the window")

		// The reseller's reads.
		if r := h.Do("GET", "/disputes/"+d.Str("disputeId"), shop.Key, nil); r.Status != 200 || r.Str("reason") != "code_used" ||
			r.Str("detail") != "the store says it was redeemed" {
			t.Errorf("GET /disputes/{id}: %s", r)
		}
		wantCode(t, h.Do("GET", "/disputes/"+d.Str("disputeId"), other.Key, nil), 404, "NOT_FOUND", "another account's dispute")
		if r := h.Do("GET", "/disputes?page=2&pageSize=1", shop.Key, nil); r.Status != 200 || num(r.Body["total"]) != "3" || r.Body["hasMore"] != true ||
			r.Body["disputes"].([]any)[0].(map[string]any)["disputeId"] != whole.Str("disputeId") {
			t.Errorf("GET /disputes paged: %s", r)
		}
		if r := h.Do("GET", "/disputes?status=resolved", shop.Key, nil); r.Status != 200 || len(r.Body["disputes"].([]any)) != 0 {
			t.Errorf("GET /disputes?status=resolved: %s", r)
		}
		for _, q := range []string{"?status=closed", "?status=", "?limit="} {
			wantCode(t, h.Do("GET", "/disputes"+q, shop.Key, nil), 400, "INVALID_REQUEST", "GET /disputes"+q)
		}

		// A sandbox key's orders and disputes are its sandbox's.
		sb := topupdtest.Account{ID: shop.ID, Key: h.AdminOK(http.StatusCreated, "POST", "/admin/accounts/"+shop.ID+"/keys",
			map[string]any{"sandbox": true, "label": "tests"}).Str("apiKey")}
		h.Logs.Secret(sb.Key, "a sandbox key")
		test := h.WaitOrder(sb, h.Place(sb, map[string]any{"pid": topupdtest.PIDKey, "trxid": h.Trx()}).Str("orderId"))
		wantCode(t, open(shop, test.Str("orderId"), map[string]any{"reason": "other"}), 404, "ORDER_NOT_FOUND", "a sandbox order with a live key")
		wantCode(t, open(sb, keyID, map[string]any{"reason": "other"}), 404, "ORDER_NOT_FOUND", "a live order with a sandbox key")
		sd := open(sb, test.Str("orderId"), map[string]any{"reason": "code_invalid"})
		if sd.Status != 201 || sd.Body["sandbox"] != true || len(sd.Body["codes"].([]any)) != 1 {
			t.Errorf("a sandbox dispute: %s", sd)
		}

		// Operators.
		live := h.AdminOK(http.StatusOK, "GET", "/admin/disputes", nil).Body["disputes"].([]any)
		if len(live) != 3 || live[0].(map[string]any)["overdue"] != true || live[2].(map[string]any)["accountId"] != shop.ID {
			t.Errorf("the live disputes: %v", live)
		}
		if got := live[2].(map[string]any)["codes"].([]any); len(got) != 1 || got[0] == first || got[0] != topupd.MaskCode(first) {
			t.Errorf("an operator sees the codes %v, want %s masked", got, first)
		}
		if r := h.AdminOK(http.StatusOK, "GET", "/admin/disputes?sandbox=true", nil); len(r.Body["disputes"].([]any)) != 1 {
			t.Errorf("the sandboxes' disputes: %s", r)
		}
		if r := h.AdminOK(http.StatusOK, "GET", "/admin/disputes?accountId="+other.ID, nil); len(r.Body["disputes"].([]any)) != 0 {
			t.Errorf("another account's disputes: %s", r)
		}
		if r := h.AdminOK(http.StatusOK, "GET", "/admin/disputes?overdue=true&limit=1", nil); len(r.Body["disputes"].([]any)) != 1 || r.Body["nextCursor"] == nil {
			t.Errorf("the overdue disputes, a page of 1: %s", r)
		}
		wantCode(t, h.AdminDo("GET", "/admin/disputes?overdue=yes", nil), 400, "INVALID_REQUEST", "overdue=yes")
		one := h.AdminOK(http.StatusOK, "GET", "/admin/disputes/"+d.Str("disputeId"), nil)
		if one.Body["supplierClaim"] != nil || one.Body["resolvedBy"] != nil || one.Str("accountId") != shop.ID || one.Body["overdue"] != true {
			t.Errorf("an operator reads a dispute: %s", one)
		}
		sup, viewer := h.NewOperator("sup", "support"), h.NewOperator("eve", "viewer")
		claim := map[string]any{"supplierClaim": map[string]any{"reference": "CLM-7", "state": "open"}}
		wantCode(t, h.AdminAs(viewer, "PATCH", "/admin/disputes/"+d.Str("disputeId"), claim), 403, "ROLE_FORBIDDEN", "a viewer's claim")
		if r := h.AdminAs(sup, "PATCH", "/admin/disputes/"+d.Str("disputeId"), claim); r.Status != 200 ||
			r.Body["supplierClaim"].(map[string]any)["reference"] != "CLM-7" {
			t.Errorf("support sets the claim: %s", r)
		}
		for what, body := range map[string]map[string]any{
			"no claim":         {},
			"a bad state":      {"supplierClaim": map[string]any{"reference": "x", "state": "pending"}},
			"an empty ref":     {"supplierClaim": map[string]any{"reference": "", "state": "won"}},
			"a ref of 201":     {"supplierClaim": map[string]any{"reference": strings.Repeat("r", 201), "state": "won"}},
			"an unknown field": {"supplierClaim": map[string]any{"reference": "x", "state": "won", "amount": 1}},
		} {
			wantCode(t, h.AdminDo("PATCH", "/admin/disputes/"+d.Str("disputeId"), body), 400, "INVALID_BODY", what)
		}
		wantCode(t, h.AdminDo("PATCH", "/admin/disputes/dsp_nope", claim), 404, "NOT_FOUND", "an unknown dispute")
		if r := h.AdminOK(http.StatusOK, "PATCH", "/admin/disputes/"+d.Str("disputeId"), map[string]any{"supplierClaim": nil}); r.Body["supplierClaim"] != nil {
			t.Errorf("a claim cleared: %s", r)
		}
		acts := h.AdminOK(http.StatusOK, "GET", "/admin/actions?action=dispute.update", nil)
		if n := len(acts.Body["actions"].([]any)); n != 2 {
			t.Errorf("%d dispute.update entries, want 2: %s", n, acts)
		}
		// The claim ratio: 3 live disputes over 4 live orders completed in
		// the last 30 days (the sandbox's apart); none completed: null.
		for _, c := range []struct {
			id, want string
		}{{shop.ID, "0.75"}, {other.ID, "0"}, {h.NewAccount("1", nil).ID, "<nil>"}} {
			if got := num(h.AdminOK(http.StatusOK, "GET", "/admin/accounts/"+c.id, nil).Body["claimRatio30d"]); got != c.want {
				t.Errorf("claimRatio30d of %s: %s, want %s", c.id, got, c.want)
			}
		}
		clock.Advance(24 * time.Hour)
		if got := num(h.AdminOK(http.StatusOK, "GET", "/admin/accounts/"+shop.ID, nil).Body["claimRatio30d"]); got != "0.75" {
			t.Errorf("claimRatio30d a day later: %s", got)
		}
		if _, text := h.AdminText("/metrics", h.MetricsToken); !strings.Contains(text, `topupd_disputes_open{overdue="true"} 3`) ||
			!strings.Contains(text, `topupd_disputes_open{overdue="false"} 0`) {
			t.Errorf("the metric: %s", grepLines(text, "topupd_disputes_open"))
		}
	})
}

// TestSearchByCode, on SQLite and PostgreSQL (back-office.md 5): GET
// /admin/orders?code= finds the one live order that delivered the exact
// code (another case, a space, or a code never delivered finds none),
// with the other filters; support and viewers are refused; every search,
// found or not, is in the action log as order.codes-searched with the
// order found and never the code.
func TestSearchByCode(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		shop := h.NewAccount("100", nil)
		o := h.WaitOrder(shop, h.Place(shop, map[string]any{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 2}).Str("orderId"))
		code := o.Body["codes"].([]any)[1].(string)
		h.WaitOrder(shop, h.Place(shop, map[string]any{"pid": topupdtest.PIDKey, "trxid": h.Trx()}).Str("orderId"))
		search := func(token, query string) topupdtest.Reply {
			if token == "" {
				return h.AdminDo("GET", "/admin/orders?"+query, nil)
			}
			return h.AdminAs(token, "GET", "/admin/orders?"+query, nil)
		}
		q := url.Values{"code": {code}}.Encode()
		r := search("", q)
		if list := r.Body["orders"].([]any); r.Status != 200 || len(list) != 1 || list[0].(map[string]any)["orderId"] != o.Str("orderId") {
			t.Fatalf("GET /admin/orders?code=: %s", r)
		}
		if strings.Contains(string(r.Raw), code) {
			t.Errorf("the answer shows the code unmasked: %s", r)
		}
		fin := h.NewOperator("fin", "finance")
		if r := search(fin, q+"&status=completed&accountId="+shop.ID); len(r.Body["orders"].([]any)) != 1 {
			t.Errorf("finance, with other filters: %s", r)
		}
		for what, query := range map[string]string{
			"another case":    url.Values{"code": {strings.ToLower(code)}}.Encode(),
			"a space":         url.Values{"code": {code + " "}}.Encode(),
			"a code not sold": url.Values{"code": {"NEVER-SOLD"}}.Encode(),
			"another status":  q + "&status=cancelled",
		} {
			if r := search("", query); r.Status != 200 || len(r.Body["orders"].([]any)) != 0 {
				t.Errorf("%s: %s", what, r)
			}
		}
		for _, role := range []string{"support", "viewer"} {
			wantCode(t, search(h.NewOperator(role+"-1", role), q), 403, "ROLE_FORBIDDEN", role+" searches by code")
		}
		acts := h.AdminOK(http.StatusOK, "GET", "/admin/actions?action=order.codes-searched&limit=20", nil)
		list := acts.Body["actions"].([]any)
		found := 0
		for _, a := range list {
			a := a.(map[string]any)
			if a["target"] == o.Str("orderId") {
				found++
			} else if a["target"] != "" {
				t.Errorf("a search logged with target %v", a["target"])
			}
		}
		if len(list) != 6 || found != 2 || strings.Contains(string(acts.Raw), code) || strings.Contains(string(acts.Raw), "NEVER-SOLD") {
			t.Errorf("the searches in the action log (6, 2 found, no code): %s", acts)
		}
	})
}
