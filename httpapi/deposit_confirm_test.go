package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestDepositConfirmations, on SQLite and PostgreSQL: a confirmation
// credits the ticket's amount, or what arrived, once, as a deposit entry
// on the statement with deposit.confirmed and balance.credited; a bank
// reference confirms one ticket; above the threshold a second, different
// operator credits it, on the same reference and amount; a rejection says
// why; a sandbox ticket credits the sandbox; final tickets never change;
// operators confirming one ticket at once credit it once; the audit holds.
func TestDepositConfirmations(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		shop, open := depositShop(t, h)
		fin := h.NewOperator("fin", "finance")
		viewer := h.NewOperator("vic", "viewer")
		confirm := func(token, id string, body map[string]any) topupdtest.Reply {
			return h.AdminAs(token, "POST", "/admin/deposits/"+id+"/confirm", body)
		}
		refused := func(r topupdtest.Reply, status int, code, what string) {
			t.Helper()
			if r.Status != status || r.Str("code") != code {
				t.Errorf("%s: %s; want %d %s", what, r, status, code)
			}
		}
		balance := func(key string) topupd.Money {
			m, _ := topupd.ParseMoney(num(h.Do("GET", "/balance", key, nil).Body["balanceUsd"]))
			return m
		}
		usd := func(v any) topupd.Money { m, _ := topupd.ParseMoney(num(v)); return m }

		// A small ticket: one confirmation credits its amount.
		t1 := open(shop.Key, 50)
		refused(confirm(viewer, t1.Str("depositId"), map[string]any{"bankRef": "BR-1"}), 403, "ROLE_FORBIDDEN", "a viewer confirms")
		refused(confirm(h.Token, t1.Str("depositId"), map[string]any{}), 400, "INVALID_BODY", "no bank reference")
		refused(confirm(h.Token, t1.Str("depositId"), map[string]any{"bankRef": strings.Repeat("r", 201)}), 400, "INVALID_BODY", "a long bank reference")
		refused(confirm(h.Token, t1.Str("depositId"), map[string]any{"bankRef": "x", "receivedUsd": 0}), 400, "INVALID_BODY", "nothing received")
		refused(confirm(h.Token, "dep_nosuch", map[string]any{"bankRef": "x"}), 404, "NOT_FOUND", "an unknown ticket")
		before := balance(shop.Key)
		c1 := confirm(h.Token, t1.Str("depositId"), map[string]any{"bankRef": "BR-1"})
		if c1.Status != 200 || c1.Str("status") != "confirmed" || usd(c1.Body["creditedUsd"]) != usd(t1.Body["amountUsd"]) ||
			c1.Str("bankRef") != "BR-1" || len(c1.Body["confirmations"].([]any)) != 1 || c1.Str("confirmedAt") == "" {
			t.Fatalf("confirmed: %s", c1)
		}
		if got := balance(shop.Key); got != before+usd(t1.Body["amountUsd"]) {
			t.Errorf("balance %s after the credit, want %s + %s", got, before, num(t1.Body["amountUsd"]))
		}
		refused(confirm(h.Token, t1.Str("depositId"), map[string]any{"bankRef": "BR-1"}), 409, "DEPOSIT_FINAL", "confirming twice")
		refused(h.AdminDo("POST", "/admin/deposits/"+t1.Str("depositId")+"/reject", map[string]any{"reason": "late"}), 409, "DEPOSIT_FINAL",
			"rejecting a confirmed ticket")

		// A bank reference confirms one ticket; what arrived is credited.
		t2 := open(shop.Key, 50)
		refused(confirm(h.Token, t2.Str("depositId"), map[string]any{"bankRef": "BR-1"}), 409, "BANK_REF_USED", "a bank reference used")
		c2 := confirm(fin, t2.Str("depositId"), map[string]any{"bankRef": "BR-2", "receivedUsd": 49.5})
		if c2.Status != 200 || num(c2.Body["creditedUsd"]) != "49.5" || num(c2.Body["receivedUsd"]) != "49.5" {
			t.Errorf("confirmed with less received: %s", c2)
		}

		// Above the threshold, two operators.
		t3 := open(shop.Key, 600)
		mid := balance(shop.Key)
		first := confirm(fin, t3.Str("depositId"), map[string]any{"bankRef": "BR-3"})
		if first.Status != 200 || first.Str("status") != "awaiting_second" || first.Body["creditedUsd"] != nil || balance(shop.Key) != mid {
			t.Errorf("the first of two: %s", first)
		}
		refused(confirm(fin, t3.Str("depositId"), map[string]any{"bankRef": "BR-3"}), 409, "SECOND_APPROVAL_REQUIRED", "the first operator again")
		refused(confirm(h.Token, t3.Str("depositId"), map[string]any{"bankRef": "BR-4"}), 409, "CONFIRMATION_MISMATCH", "another bank reference")
		refused(confirm(h.Token, t3.Str("depositId"), map[string]any{"bankRef": "BR-3", "receivedUsd": 599}), 409, "CONFIRMATION_MISMATCH",
			"another amount")
		second := confirm(h.Token, t3.Str("depositId"), map[string]any{"bankRef": "BR-3"})
		if second.Status != 200 || second.Str("status") != "confirmed" || len(second.Body["confirmations"].([]any)) != 2 ||
			balance(shop.Key) != mid+usd(t3.Body["amountUsd"]) {
			t.Errorf("the second of two: %s", second)
		}

		// A rejection.
		t4 := open(shop.Key, 20)
		refused(h.AdminAs(viewer, "POST", "/admin/deposits/"+t4.Str("depositId")+"/reject", map[string]any{"reason": "x"}), 403, "ROLE_FORBIDDEN",
			"a viewer rejects")
		refused(h.AdminDo("POST", "/admin/deposits/"+t4.Str("depositId")+"/reject", map[string]any{"reason": ""}), 400, "INVALID_BODY", "no reason")
		if r := h.AdminDo("POST", "/admin/deposits/"+t4.Str("depositId")+"/reject", map[string]any{"reason": "no transfer came"}); r.Status != 200 ||
			r.Str("status") != "rejected" || r.Str("rejectedBy") == "" {
			t.Errorf("rejected: %s", r)
		}
		if r := h.Do("GET", "/deposits/"+t4.Str("depositId"), shop.Key, nil); r.Str("status") != "rejected" || r.Str("reason") != "no transfer came" {
			t.Errorf("the reseller reads its rejected ticket: %s", r)
		}

		// A sandbox ticket credits the sandbox.
		sb := h.AdminOK(http.StatusCreated, "POST", "/admin/accounts/"+shop.ID+"/keys", map[string]any{"sandbox": true, "label": "tests"}).Str("apiKey")
		h.Logs.Secret(sb, "a sandbox key")
		live, sandbox := balance(shop.Key), balance(sb)
		ts := h.Do("POST", "/deposits", sb, map[string]any{"amountUsd": 30})
		if c := confirm(h.Token, ts.Str("depositId"), map[string]any{"bankRef": "SB-1"}); c.Status != 200 || balance(sb) != sandbox+usd(ts.Body["amountUsd"]) ||
			balance(shop.Key) != live {
			t.Errorf("a sandbox ticket confirmed: %s (sandbox %s, live %s)", c, balance(sb), balance(shop.Key))
		}

		// Operators confirming one ticket at once credit it once.
		t5 := open(shop.Key, 40)
		pre := balance(shop.Key)
		var wg sync.WaitGroup
		var mu sync.Mutex
		answers := map[string]int{}
		for i := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				token := h.Token
				if i%2 == 1 {
					token = fin
				}
				r := confirm(token, t5.Str("depositId"), map[string]any{"bankRef": "BR-5"})
				mu.Lock()
				answers[fmt.Sprintf("%d %s", r.Status, r.Str("code"))]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if answers["200 "] != 1 || answers["409 DEPOSIT_FINAL"] != 5 {
			t.Errorf("six confirmations at once: %v, want one 200 and five 409 DEPOSIT_FINAL", answers)
		}
		if got := balance(shop.Key); got != pre+usd(t5.Body["amountUsd"]) {
			t.Errorf("balance %s after six confirmations at once, want %s + %s", got, pre, num(t5.Body["amountUsd"]))
		}

		// The statement, the events, the action log and the audit.
		from, to := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		var deposits []string
		for _, e := range h.Do("GET", "/statement?from="+from+"&to="+to, shop.Key, nil).Body["entries"].([]any) {
			if e := e.(map[string]any); e["kind"] == "deposit" {
				deposits = append(deposits, fmt.Sprint(e["reference"]))
			}
		}
		if want := []string{t1.Str("depositId"), t2.Str("depositId"), t3.Str("depositId"), t5.Str("depositId")}; fmt.Sprint(deposits) != fmt.Sprint(want) {
			t.Errorf("the statement's deposits %v, want %v", deposits, want)
		}
		var told []string
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			told = nil
			for _, e := range h.Do("GET", "/events", shop.Key, nil).Body["events"].([]any) {
				e := e.(map[string]any)
				switch e["type"] {
				case "deposit.confirmed", "deposit.rejected":
					told = append(told, fmt.Sprintf("%v %v", e["type"], e["data"].(map[string]any)["depositId"]))
				case "balance.credited":
					if ref := fmt.Sprint(e["data"].(map[string]any)["reference"]); strings.HasPrefix(ref, "dep_") {
						told = append(told, "balance.credited "+ref)
					}
				}
			}
			if len(told) >= 9 {
				break
			}
		}
		if len(told) != 9 {
			t.Errorf("the shop's deposit events %v, want 4 confirmed with their credits, 1 rejected", told)
		}
		if n := len(h.AdminOK(http.StatusOK, "GET", "/admin/actions?action=deposit.confirm&limit=100", nil).Body["actions"].([]any)); n != 6 {
			t.Errorf("%d deposit.confirm entries, want 6 (t1, t2, t3 twice, the sandbox's, t5)", n)
		}
		h.AuditClean()
	})
}
