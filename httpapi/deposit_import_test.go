package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestDepositImport, on SQLite and PostgreSQL: a bank statement's rows
// find their pending tickets (the exact amount, the memo in the
// reference in any case, not dated before the ticket's day) and confirm
// them as the importing operator, the first of two above the threshold;
// the other rows say why not; the same statement imported again credits
// nothing more; a sandbox ticket is never matched; bad files are refused
// naming the line or the column, and change nothing.
func TestDepositImport(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		shop, open := depositShop(t, h)
		small, big, other := open(shop.Key, 50), open(shop.Key, 800), open(shop.Key, 20)
		sb := h.AdminOK(http.StatusCreated, "POST", "/admin/accounts/"+shop.ID+"/keys", map[string]any{"sandbox": true, "label": "t"}).Str("apiKey")
		h.Logs.Secret(sb, "a sandbox key")
		sandbox := open(sb, 30)
		today := small.Str("createdAt")[:10]
		row := func(r topupdtest.Reply, ref, date, bankRef string) string {
			return fmt.Sprintf("%s,\"%s\",%s,%s\n", num(r.Body["amountUsd"]), ref, date, bankRef)
		}
		file := "Amount,Description,Date,Ref\n" +
			row(small, "topup "+strings.ToLower(small.Str("memo")), today, "BNK-1") + // line 2: matched, credited
			row(big, "from shop "+big.Str("memo"), today+"T09:00:00Z", "BNK-2") + // line 3: matched, the first of two
			row(other, "no memo here", today, "BNK-3") + // line 4: no ticket
			row(other, other.Str("memo"), "2000-01-01", "BNK-4") + // line 5: dated before the ticket: no ticket
			fmt.Sprintf("21,%s,%s,BNK-5\n", other.Str("memo"), today) + // line 6: another amount (its own is 20.01 to 20.99): no ticket
			row(sandbox, sandbox.Str("memo"), today, "BNK-6") // line 7: a sandbox ticket: no ticket
		q := "/admin/deposits/import?amount=amount&reference=DESCRIPTION&date=date&bankRef=ref"
		before := h.Balance(shop)
		res := csvPost(t, h, q, file)
		if res.Status != 200 {
			t.Fatalf("the import: %s", res)
		}
		matched := fmt.Sprint(res.Body["matched"])
		if want := fmt.Sprintf("[map[depositId:%s line:2 status:confirmed] map[depositId:%s line:3 status:awaiting_second]]",
			small.Str("depositId"), big.Str("depositId")); matched != want {
			t.Errorf("matched %s, want %s", matched, want)
		}
		var whys []string
		for _, u := range res.Body["unmatched"].([]any) {
			u := u.(map[string]any)
			whys = append(whys, fmt.Sprintf("%v %v", num(u["line"]), u["why"]))
		}
		if want := "[4 no ticket 5 no ticket 6 no ticket 7 no ticket]"; fmt.Sprint(whys) != want {
			t.Errorf("unmatched %v, want %s", whys, want)
		}
		if !sameUSD(json.Number(before), num(small.Body["amountUsd"]), h.Balance(shop)) {
			t.Errorf("balance %s after the import, want %s + %s", h.Balance(shop), before, num(small.Body["amountUsd"]))
		}
		// Again: nothing more is credited.
		again := csvPost(t, h, q, file)
		whys = nil
		for _, u := range again.Body["unmatched"].([]any) {
			u := u.(map[string]any)
			whys = append(whys, fmt.Sprintf("%v %v", num(u["line"]), u["why"]))
		}
		if again.Status != 200 || len(again.Body["matched"].([]any)) != 0 ||
			fmt.Sprint(whys) != "[2 bank ref used 3 bank ref used 4 no ticket 5 no ticket 6 no ticket 7 no ticket]" {
			t.Errorf("the same statement again: %s (%v)", again, whys)
		}
		if !sameUSD(json.Number(before), num(small.Body["amountUsd"]), h.Balance(shop)) {
			t.Errorf("balance %s after the second import", h.Balance(shop))
		}
		// A new bank reference for a ticket no longer pending.
		late := "amount,description,date,ref\n" + row(small, small.Str("memo"), today, "BNK-9")
		if r := csvPost(t, h, q, late); r.Status != 200 || !strings.Contains(fmt.Sprint(r.Body["unmatched"]), "ticket not pending") {
			t.Errorf("a confirmed ticket's row: %s", r)
		}
		// The second approval is an operator's.
		fin := h.NewOperator("fin", "finance")
		if r := h.AdminAs(fin, "POST", "/admin/deposits/"+big.Str("depositId")+"/confirm", map[string]any{"bankRef": "BNK-2"}); r.Status != 200 ||
			r.Str("status") != "confirmed" {
			t.Errorf("the second approval: %s", r)
		}
		// Bad files change nothing.
		n := len(h.AdminOK(http.StatusOK, "GET", "/admin/actions?action=deposit.confirm&limit=100", nil).Body["actions"].([]any))
		for what, c := range map[string]struct{ path, body, code, says string }{
			"a bad amount":     {q, "amount,description,date,ref\n" + row(other, other.Str("memo"), today, "B-7") + "lots,x,2026-01-01,B-8\n", "INVALID_BODY", "line 3"},
			"a bad date":       {q, "amount,description,date,ref\n1,x,yesterday,B-8\n", "INVALID_BODY", "line 2"},
			"no bank ref":      {q, "amount,description,date,ref\n1,x,2026-01-01,\n", "INVALID_BODY", "line 2"},
			"a missing column": {"/admin/deposits/import?amount=amount&reference=memo&date=date&bankRef=ref", "amount,description,date,ref\n", "INVALID_REQUEST", `"memo"`},
			"an unknown param": {q + "&sep=x", "amount,description,date,ref\n", "INVALID_REQUEST", "sep"},
		} {
			if r := csvPost(t, h, c.path, c.body); r.Status != 400 || r.Str("code") != c.code || !strings.Contains(r.Str("detail"), c.says) {
				t.Errorf("%s: %s; want 400 %s saying %s", what, r, c.code, c.says)
			}
		}
		if r := h.Do("GET", "/deposits/"+other.Str("depositId"), shop.Key, nil); r.Str("status") != "pending" {
			t.Errorf("a refused file confirmed a ticket: %s", r)
		}
		if m := len(h.AdminOK(http.StatusOK, "GET", "/admin/actions?action=deposit.confirm&limit=100", nil).Body["actions"].([]any)); m != n {
			t.Errorf("refused files wrote %d confirmations", m-n)
		}
		viewer := h.NewOperator("vic", "viewer")
		if r, err := h.Call(h.Admin.URL, "POST", q, topupdtest.Headers{"Authorization": "Bearer " + viewer, "Content-Type": "text/csv"},
			topupdtest.RawBody(file)); err != nil || r.Status != 403 {
			t.Errorf("a viewer imports: %v %v", r, err)
		}
		imports := h.AdminOK(http.StatusOK, "GET", "/admin/actions?action=deposit.import", nil).Body["actions"].([]any)
		if len(imports) != 3 {
			t.Errorf("%d deposit.import entries, want 3", len(imports))
		}
		h.AuditClean()
	})
}
