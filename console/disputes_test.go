package console_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// disputeRows are the disputes a table of the Disputes page lists, in order.
func (b *tab) disputeRows(table string) []string {
	b.t.Helper()
	ids, err := run(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll("`+table+` tbody tr[data-status]")].map(r => r.id.replace("dispute-", ""))`))
	if err != nil {
		b.t.Fatalf("reading the disputes: %v", err)
	}
	return ids
}

// TestDisputesInTheConsole: two disputes opened through the reseller API,
// one of a key order's code and one of a whole top-up, the first past its
// due time. The queue lists the overdue one first, marked, with its code
// masked, its order and account linked, and says resolving is not built
// (no Resolve form); the dashboard counts them. Support sets a supplier
// claim (a blank reference is refused beside the form, which keeps the
// state chosen) and clears it, logged. A viewer sees no form, and its
// forged claim is refused.
func TestDisputesInTheConsole(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	h := b.h
	h.LoadCatalog()
	shop := h.NewAccount("100", nil)
	keys := h.WaitOrder(shop, h.Place(shop, map[string]any{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 2}).Str("orderId"))
	codes, _ := keys.Body["codes"].([]any)
	if keys.Str("status") != "completed" || len(codes) != 2 {
		t.Fatalf("a key order: %s", keys)
	}
	code := codes[0].(string)
	top := h.WaitOrder(shop, h.Place(shop, map[string]any{"pid": topupdtest.PIDFF, "trxid": h.Trx(), "userId": "123456789"}).Str("orderId"))
	open := func(orderID string, body map[string]any) string {
		t.Helper()
		r := h.Do("POST", "/orders/"+url.PathEscape(orderID)+"/disputes", shop.Key, body)
		if r.Status != 201 {
			t.Fatalf("a dispute of %s: %s", orderID, r)
		}
		return r.Str("disputeId")
	}
	late := open(keys.Str("orderId"), map[string]any{"reason": "code_used", "codes": []string{code}, "detail": "redeemed already"})
	b.clock.Advance(47 * time.Hour) // due after 48 hours, by default
	onTime := open(top.Str("orderId"), map[string]any{"reason": "not_credited"})
	b.clock.Advance(2 * time.Hour)
	b.signIn(b.setUp("sup", "support"))

	t.Run("queue", func(t *testing.T) {
		b.t = t
		b.open("/console/disputes")
		if diff := cmp.Diff([]string{late, onTime}, b.disputeRows("#dispute-queue")); diff != "" {
			t.Errorf("the queue, the earliest due first (-want +got):\n%s", diff)
		}
		row := "#dispute-" + late
		if !b.has(row+" .overdue") || b.has("#dispute-"+onTime+" .overdue") {
			t.Errorf("overdue marks: %q and %q", b.text(row), b.text("#dispute-"+onTime))
		}
		if got := b.text(row + " .codes"); got != topupd.MaskCode(code) || strings.Contains(b.page(), code) {
			t.Errorf("the codes: %q, want %q and never the code", got, topupd.MaskCode(code))
		}
		if !b.has(row+` a[href="/console/orders/`+keys.Str("orderId")+`"]`) || !b.has(row+` a[href="/console/accounts/`+shop.ID+`"]`) {
			t.Errorf("the order and account are not linked: %s", b.text(row))
		}
		if got := b.text(row + " .reason"); !strings.Contains(got, "code already used") || !strings.Contains(got, "redeemed already") {
			t.Errorf("the reason: %q", got)
		}
		if got := b.text("#dispute-count"); got != "2 open disputes: 1 overdue." {
			t.Errorf("the count: %q", got)
		}
		if got := b.text("#no-resolve"); !strings.Contains(got, "not available yet") || b.has(`form[action$="/resolve"]`) {
			t.Errorf("resolving: %q, or a Resolve form is offered", got)
		}
		if got := b.text("#dispute-recent tbody"); got != "None yet." {
			t.Errorf("the resolved disputes: %q", got)
		}
		if got := b.text(`header nav a[href="/console/disputes"]`); got != "Disputes" {
			t.Errorf("the menu entry: %q", got)
		}
		b.open("/console/")
		if got := b.text("#overdue-disputes"); !strings.HasPrefix(got, "1 overdue dispute:") || !b.has(`#overdue-disputes a[href="/console/disputes"]`) {
			t.Errorf("the dashboard's overdue disputes: %q", got)
		}
		if got := b.text("#open-disputes"); got != "2" {
			t.Errorf("the dashboard's open disputes: %q", got)
		}
		// The account's claim ratio: 2 disputes over 2 orders completed.
		b.open("/console/accounts/" + shop.ID)
		if got := b.text("#claim-ratio"); got != "100%" {
			t.Errorf("the account's claim ratio: %q, want 100%%", got)
		}
	})

	claim := func(t *testing.T) any {
		t.Helper()
		r := h.AdminOK(200, "GET", "/admin/disputes/"+late, nil)
		return r.Body["supplierClaim"]
	}
	t.Run("claim", func(t *testing.T) {
		b.t = t
		b.open("/console/disputes")
		b.fill(map[string]string{"#claim-ref-" + late: "   ", "#claim-state-" + late: "lost"})
		b.click("#claim-save-" + late)
		msg := b.fieldError("claim-ref-" + late)
		plain(t, "a blank reference", msg)
		if !strings.Contains(msg, "Enter the claim's reference") || b.value("#claim-state-"+late) != "lost" || !b.has("#dispute-queue") {
			t.Errorf("a blank reference: %q, the state kept %q", msg, b.value("#claim-state-"+late))
		}
		if got := claim(t); got != nil {
			t.Errorf("a refused claim was set: %v", got)
		}
		b.fill(map[string]string{"#claim-ref-" + late: "CLM-7", "#claim-state-" + late: "won"})
		b.click("#claim-save-" + late)
		if got := b.text("#claim-" + late); got != "CLM-7 won" {
			t.Errorf("the claim shown: %q (%s)", got, b.text("#flash"))
		}
		if diff := cmp.Diff(map[string]any{"reference": "CLM-7", "state": "won"}, claim(t)); diff != "" {
			t.Errorf("the claim set (-want +got):\n%s", diff)
		}
		b.click("#claim-clear-" + late)
		if got := b.text("#claim-" + late); got != "none" || claim(t) != nil {
			t.Errorf("the claim cleared: %q, %v", got, claim(t))
		}
		acts, err := h.AdminClient.Actions(t.Context(), url.Values{"action": {"dispute.update"}, "operator": {"sup"}})
		if err != nil || len(acts.Actions) != 2 || acts.Actions[0].Target != late {
			t.Errorf("the claims in the action log: %+v, %v", acts, err)
		}
	})

	t.Run("viewer", func(t *testing.T) {
		vb := b.also()
		vb.t = t
		vb.signIn(vb.setUp("vic", "viewer"))
		vb.open("/console/disputes")
		if got := vb.disputeRows("#dispute-queue"); len(got) != 2 {
			t.Errorf("the viewer's queue: %v", got)
		}
		if vb.has("#claim-form-"+late) || vb.has("#claim-clear-form-"+late) {
			t.Error("the viewer is offered the claim's form")
		}
		vb.forge("/console/disputes/"+late+"/claim", map[string]string{"reference": "SNEAK", "state": "open"})
		if got := vb.text("#error"); !strings.Contains(got, "may not") {
			t.Errorf("a viewer's forged claim: %q", got)
		}
		if got := claim(t); got != nil {
			t.Errorf("the viewer's forged claim was set: %v", got)
		}
	})
}

// TestSearchByCodeInTheConsole: the owner finds the order that delivered
// a code with a POST that leaves the code out of the address, and is told
// no order delivered an unknown one; each search is in the action log
// without the code. Support is not offered the search, and its forged
// search is refused.
func TestSearchByCodeInTheConsole(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	h := b.h
	h.LoadCatalog()
	shop := h.NewAccount("100", nil)
	order := h.WaitOrder(shop, h.Place(shop, map[string]any{"pid": topupdtest.PIDKey, "trxid": h.Trx()}).Str("orderId"))
	codes, _ := order.Body["codes"].([]any)
	if len(codes) != 1 {
		t.Fatalf("a key order: %s", order)
	}
	code, id := codes[0].(string), order.Str("orderId")
	h.Logs.Secret(code, "the code searched")
	b.signIn(b.setUp("own", "owner"))

	t.Run("owner", func(t *testing.T) {
		b.t = t
		b.open("/console/orders")
		b.fill(map[string]string{"#code-search": code})
		b.click("#code-search-go")
		if got := b.text("#code-result"); !strings.Contains(got, id) || !strings.Contains(got, topupd.MaskCode(code)) || strings.Contains(got, code) {
			t.Errorf("the order found: %q, want %s and the code masked", got, id)
		}
		if got := b.path(); got != "/console/orders" {
			t.Errorf("the address after a search: %q", got)
		}
		b.fill(map[string]string{"#code-search": "NO-SUCH-CODE-1234"})
		b.click("#code-search-go")
		if got := b.text("#code-none"); !strings.HasPrefix(got, "No order delivered this code") || b.has("#code-result table") {
			t.Errorf("an unknown code: %q", got)
		}
		acts, err := h.AdminClient.Actions(t.Context(), url.Values{"action": {"order.codes-searched"}, "operator": {"own"}})
		if err != nil || len(acts.Actions) != 2 {
			t.Fatalf("the searches in the action log: %+v, %v", acts, err)
		}
		raw, _ := json.Marshal(acts)
		if acts.Actions[1].Target != id || acts.Actions[0].Target != "" || strings.Contains(string(raw), code) || strings.Contains(string(raw), "NO-SUCH") {
			t.Errorf("the searches in the action log: %s", raw)
		}
	})

	t.Run("support", func(t *testing.T) {
		sb := b.also()
		sb.t = t
		sb.signIn(sb.setUp("sup", "support"))
		sb.open("/console/orders")
		if sb.has("#code-search-form") {
			t.Error("support is offered the search by code")
		}
		sb.forge("/console/orders", map[string]string{"code": code})
		if got := sb.text("#error"); !strings.Contains(got, "may not") {
			t.Errorf("support's forged search: %q", got)
		}
	})
}
