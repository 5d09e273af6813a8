package httpapi_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// memoPattern is a deposit memo's form.
var memoPattern = regexp.MustCompile(`^TPD-[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{6}$`)

// TestDepositTickets, on SQLite and PostgreSQL: the deposit settings and
// their refusals; no ticket opens without a bank; a ticket asks for its
// amount plus 1 to 99 cents, unique among the pending (the 100th ticket
// of one amount is refused), with a memo and the bank, for
// depositTicketHours; at most 3 pending an account; bad amounts are
// refused; a reseller reads its own tickets alone, in both modes; a
// sandbox key's are the sandbox's; a ticket past its time expires, told by
// deposit.expired; operators list and read them.
func TestDepositTickets(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		clock := topupdtest.NewClock() // each store's own: they run at once
		h := topupdtest.New(t, append(db, topupdtest.WithClock(clock), topupdtest.WithWatchEvery(20*time.Millisecond))...)
		shop := h.NewAccount("1", nil)
		open := func(a topupdtest.Account, body any) topupdtest.Reply { return h.Do("POST", "/deposits", a.Key, body) }
		refused := func(r topupdtest.Reply, status int, code, what string) {
			t.Helper()
			if r.Status != status || r.Str("code") != code {
				t.Errorf("%s: %s; want %d %s", what, r, status, code)
			}
		}
		set := h.AdminOK(http.StatusOK, "GET", "/admin/settings", nil)
		if set.Body["depositBank"] != nil || num(set.Body["depositTicketHours"]) != "24" || num(set.Body["depositSecondApprovalAboveUsd"]) != "1000" {
			t.Errorf("the default deposit settings: %s", set)
		}
		r := open(shop, map[string]any{"amountUsd": 50})
		refused(r, 409, "DEPOSITS_DISABLED", "a ticket without a bank")
		if r.Str("error") != "DEPOSITS_DISABLED" {
			t.Errorf("the error of DEPOSITS_DISABLED: %s", r)
		}
		bank := map[string]any{"bankName": "BCA", "accountNumber": "0123456789", "accountHolder": "PT Topup Jaya"}
		for what, patch := range map[string]map[string]any{
			"a bank without its holder":   {"depositBank": map[string]any{"bankName": "BCA", "accountNumber": "1"}},
			"a bank with another field":   {"depositBank": map[string]any{"bankName": "BCA", "accountNumber": "1", "accountHolder": "x", "swift": "y"}},
			"a bank name of 201":          {"depositBank": map[string]any{"bankName": strings.Repeat("b", 201), "accountNumber": "1", "accountHolder": "x"}},
			"an empty account number":     {"depositBank": map[string]any{"bankName": "BCA", "accountNumber": "", "accountHolder": "x"}},
			"a bank as a string":          {"depositBank": "BCA"},
			"0 hours":                     {"depositTicketHours": 0},
			"721 hours":                   {"depositTicketHours": 721},
			"a negative threshold":        {"depositSecondApprovalAboveUsd": -1},
			"a threshold of three places": {"depositSecondApprovalAboveUsd": 10.125},
		} {
			if r := h.AdminDo("PATCH", "/admin/settings", patch); r.Status != 400 || r.Str("code") != "INVALID_BODY" {
				t.Errorf("%s: %s; want 400 INVALID_BODY", what, r)
			}
		}
		set = h.AdminOK(http.StatusOK, "PATCH", "/admin/settings", map[string]any{"depositBank": bank, "depositTicketHours": 48,
			"depositSecondApprovalAboveUsd": 500})
		if got := set.Body["depositBank"].(map[string]any); got["accountHolder"] != "PT Topup Jaya" || num(set.Body["depositTicketHours"]) != "48" ||
			num(set.Body["depositSecondApprovalAboveUsd"]) != "500" {
			t.Errorf("the deposit settings set: %s", set)
		}

		// Refused amounts open nothing.
		for what, body := range map[string]any{
			"under 1":          map[string]any{"amountUsd": 0.99},
			"over 100,000":     map[string]any{"amountUsd": 100000.01},
			"three decimals":   map[string]any{"amountUsd": 10.125},
			"a string":         map[string]any{"amountUsd": "10"},
			"no amount":        map[string]any{},
			"an unknown field": map[string]any{"amountUsd": 10, "memo": "mine"},
		} {
			r := open(shop, body)
			refused(r, 400, "INVALID_BODY", what)
			if r.Str("error") != "INVALID BODY" {
				t.Errorf("%s: the error is %q, want INVALID BODY", what, r.Str("error"))
			}
		}

		// A ticket.
		r = open(shop, map[string]any{"amountUsd": 50})
		if r.Status != 201 || r.Body["success"] != true || num(r.Body["requestedUsd"]) != "50" || r.Str("status") != "pending" ||
			!memoPattern.MatchString(r.Str("memo")) || !strings.HasPrefix(r.Str("depositId"), "dep_") || r.Body["sandbox"] != nil {
			t.Fatalf("a ticket: %s", r)
		}
		amount, _ := topupd.ParseMoney(num(r.Body["amountUsd"]))
		if extra := amount - topupd.USD(50); extra < topupd.MoneyScale/100 || extra > 99*topupd.MoneyScale/100 || extra%(topupd.MoneyScale/100) != 0 {
			t.Errorf("amount %s for 50: want 50.01 to 50.99", num(r.Body["amountUsd"]))
		}
		created, _ := time.Parse(time.RFC3339Nano, r.Str("createdAt"))
		expires, _ := time.Parse(time.RFC3339Nano, r.Str("expiresAt"))
		if expires.Sub(created) != 48*time.Hour || r.Body["bank"].(map[string]any)["bankName"] != "BCA" {
			t.Errorf("the ticket's time and bank: %s", r)
		}
		first := r.Str("depositId")

		// At most 3 pending an account; 99 pending of one amount, then no more.
		amounts := map[string]bool{num(r.Body["amountUsd"]): true}
		accounts := []topupdtest.Account{shop}
		for len(amounts) < 99 {
			a := accounts[len(accounts)-1]
			r := open(a, map[string]any{"amountUsd": 50})
			if r.Status == 409 && r.Str("code") == "DEPOSIT_LIMIT" {
				accounts = append(accounts, h.NewAccount("1", nil))
				continue
			}
			if r.Status != 201 || amounts[num(r.Body["amountUsd"])] {
				t.Fatalf("ticket %d of 50: %s (amounts so far %d)", len(amounts)+1, r, len(amounts))
			}
			amounts[num(r.Body["amountUsd"])] = true
		}
		if n := len(accounts); n != 33 {
			t.Errorf("99 tickets took %d accounts, want 33 (3 each)", n)
		}
		refused(open(h.NewAccount("1", nil), map[string]any{"amountUsd": 50}), 409, "DEPOSIT_AMOUNT_TAKEN", "the 100th ticket of 50")
		if r := open(accounts[1], map[string]any{"amountUsd": 50}); r.Status != 409 || r.Str("code") != "DEPOSIT_LIMIT" {
			t.Errorf("a fourth pending ticket: %s", r)
		}

		// A reseller reads its own.
		other := accounts[1]
		if r := h.Do("GET", "/deposits/"+first, shop.Key, nil); r.Status != 200 || r.Str("depositId") != first || r.Body["success"] != true {
			t.Errorf("its own ticket: %s", r)
		}
		refused(h.Do("GET", "/deposits/"+first, other.Key, nil), 404, "NOT_FOUND", "another account's ticket")
		refused(h.Do("GET", "/deposits/dep_nosuch", shop.Key, nil), 404, "NOT_FOUND", "an unknown ticket")
		list := h.Do("GET", "/deposits?limit=2", other.Key, nil)
		if list.Status != 200 || num(list.Body["count"]) != "2" || len(list.Body["deposits"].([]any)) != 2 {
			t.Errorf("simple mode: %s", list)
		}
		page := h.Do("GET", "/deposits?page=2&pageSize=2", other.Key, nil)
		if page.Status != 200 || num(page.Body["total"]) != "3" || page.Body["hasMore"] != false || num(page.Body["count"]) != "1" {
			t.Errorf("paged mode: %s", page)
		}
		refused(h.Do("GET", "/deposits?page=", other.Key, nil), 400, "INVALID_REQUEST", "an empty page")

		// A sandbox key's tickets are its sandbox's.
		sb := h.AdminOK(http.StatusCreated, "POST", "/admin/accounts/"+shop.ID+"/keys", map[string]any{"sandbox": true, "label": "tests"}).Str("apiKey")
		h.Logs.Secret(sb, "a sandbox key")
		r = h.Do("POST", "/deposits", sb, map[string]any{"amountUsd": 50})
		if r.Status != 201 || r.Body["sandbox"] != true {
			t.Fatalf("a sandbox ticket: %s", r)
		}
		sandboxDep := r.Str("depositId")
		if r := h.Do("GET", "/deposits", sb, nil); num(r.Body["count"]) != "1" {
			t.Errorf("the sandbox's tickets: %s", r)
		}
		refused(h.Do("GET", "/deposits/"+sandboxDep, shop.Key, nil), 404, "NOT_FOUND", "the live key reads the sandbox's ticket")

		// Operators list and read them.
		viewer := h.NewOperator("vic", "viewer")
		one := h.AdminAs(viewer, "GET", "/admin/deposits/"+first, nil)
		if one.Status != 200 || one.Str("accountId") != shop.ID || one.Body["bankRef"] != nil || len(one.Body["confirmations"].([]any)) != 0 {
			t.Errorf("an operator reads a ticket: %s", one)
		}
		all := h.AdminOK(http.StatusOK, "GET", "/admin/deposits?limit=500", nil)
		if n := len(all.Body["deposits"].([]any)); n != 99 {
			t.Errorf("the live tickets: %d, want 99", n)
		}
		mine := h.AdminOK(http.StatusOK, "GET", "/admin/deposits?accountId="+shop.ID, nil)
		if n := len(mine.Body["deposits"].([]any)); n != 3 {
			t.Errorf("the shop's tickets: %d, want 3", n)
		}
		sandboxes := h.AdminOK(http.StatusOK, "GET", "/admin/deposits?sandbox=true", nil)
		if rows := sandboxes.Body["deposits"].([]any); len(rows) != 1 || rows[0].(map[string]any)["depositId"] != sandboxDep {
			t.Errorf("the sandboxes' tickets: %s", sandboxes)
		}
		if _, text := h.AdminText("/metrics", h.MetricsToken); !strings.Contains(text, `topupd_deposits_open{status="pending"} 99`) ||
			!strings.Contains(text, `topupd_deposits_open{status="awaiting_second"} 0`) {
			t.Errorf("the metric of open deposits is not 99 pending, 0 awaiting a second approval")
		}
		refused(h.AdminDo("GET", "/admin/deposits?status=lost", nil), 400, "INVALID_REQUEST", "an unknown status")
		refused(h.AdminDo("GET", "/admin/deposits/dep_nosuch", nil), 404, "NOT_FOUND", "an unknown ticket (admin)")

		// Past its time, a pending ticket expires, told once.
		clock.Advance(49 * time.Hour)
		waitStatus := func(key, id, want string) {
			t.Helper()
			for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				r := h.Do("GET", "/deposits/"+id, key, nil)
				if r.Str("status") == want {
					return
				}
				if time.Now().After(end) {
					t.Fatalf("ticket %s: %s, want %s", id, r, want)
				}
			}
		}
		waitStatus(shop.Key, first, "expired")
		waitStatus(sb, sandboxDep, "expired")
		expired := h.AdminOK(http.StatusOK, "GET", "/admin/deposits?status=expired&limit=500", nil)
		if n := len(expired.Body["deposits"].([]any)); n != 99 {
			t.Errorf("expired live tickets: %d, want 99", n)
		}
		var told []string
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			told = nil
			for _, e := range h.Do("GET", "/events", shop.Key, nil).Body["events"].([]any) {
				if e := e.(map[string]any); strings.HasPrefix(fmt.Sprint(e["type"]), "deposit.") {
					told = append(told, fmt.Sprintf("%v %v %v", e["type"], e["data"].(map[string]any)["depositId"], e["data"].(map[string]any)["status"]))
				}
			}
			if len(told) >= 3 {
				break
			}
		}
		if len(told) != 3 || !strings.Contains(strings.Join(told, ","), "deposit.expired "+first+" expired") {
			t.Errorf("the shop's deposit events: %v, want its 3 tickets' deposit.expired", told)
		}
		// The amounts are free again.
		if r := open(accounts[5], map[string]any{"amountUsd": 50}); r.Status != 201 {
			t.Errorf("a ticket once the others expired: %s", r)
		}
	})
}

// depositShop sets a deposit bank and a second-approval threshold of
// 500 USD, and returns a shop and a way to open a ticket with a key.
func depositShop(t *testing.T, h *topupdtest.T) (topupdtest.Account, func(key string, usd float64) topupdtest.Reply) {
	h.Settings(map[string]any{"depositBank": map[string]any{"bankName": "BCA", "accountNumber": "0123", "accountHolder": "PT Jaya"},
		"depositSecondApprovalAboveUsd": 500})
	return h.NewAccount("1", nil), func(key string, usd float64) topupdtest.Reply {
		t.Helper()
		r := h.Do("POST", "/deposits", key, map[string]any{"amountUsd": usd})
		if r.Status != 201 {
			t.Fatalf("a ticket of %v: %s", usd, r)
		}
		return r
	}
}
