package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/console"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// mismatchesByRef reads a reconciliation's mismatches from the store, by
// reference.
func mismatchesByRef(t *testing.T, h *topupdtest.T, id string) map[string]topupd.Mismatch {
	t.Helper()
	rec, err := h.Store.Reconciliation(context.Background(), id)
	if err != nil {
		t.Fatalf("reading reconciliation %s: %v", id, err)
	}
	out := map[string]topupd.Mismatch{}
	for _, m := range rec.Mismatches {
		out[m.Reference] = m
	}
	return out
}

// fixOptions are the actions a page's form for mismatch mid offers, nil
// when it has no such form.
func fixOptions(page string, mid int) []string {
	sel := regexp.MustCompile(fmt.Sprintf(`(?s)<select name="action" id="fix-action-%d">(.*?)</select>`, mid)).FindStringSubmatch(page)
	if sel == nil {
		return nil
	}
	var out []string
	for _, o := range regexp.MustCompile(`<option value="([^"]+)"`).FindAllStringSubmatch(sel[1], -1) {
		out = append(out, o[1])
	}
	return out
}

// usd formats a dollar amount as the console shows it.
func usd(t *testing.T, dollars string) string {
	t.Helper()
	return console.USDText(money(t, dollars))
}

// TestFixMismatchesInTheConsole, against a real topupd as the upstream
// (B, whose orders wait for its operator), reconciles from B's file: an
// order our operator completed that B does not list (missing_upstream),
// one still processing at both that the file says completed
// (status_mismatch), one completed that B charged $0.95 for, not $0.80
// (cost_mismatch), and a reference we never sent (missing_here). Each
// open mismatch's form offers the fixes that could apply. A preview says
// the effect in words and changes nothing; the confirmation refunds once,
// and the page shows the resolution; confirming again is refused in words
// as resolved. A bad note, a fix that does not apply and an upstream that
// cannot be reached are refused beside the form, which keeps what was
// typed. A viewer sees the queue and the resolution but no form, and its
// post is refused. Once every mismatch is resolved, closing asks first;
// a closed reconciliation takes no fix.
func TestFixMismatchesInTheConsole(t *testing.T) {
	t.Parallel()
	b := topupdtest.New(t)
	b.LoadCatalog()
	b.Settings(map[string]any{"simDelayMs": 3_600_000}) // B's orders wait for its operator
	clock := topupdtest.NewClock()
	h := topupdtest.New(t, topupdtest.WithClock(clock))
	h.LoadCatalog()
	h.Settings(map[string]any{"reconcileAt": nil, "upstreamBalancePollMinutes": 0})
	ours := b.NewAccount("50", nil)
	h.Logs.Secret(ours.Key, "our key at B")
	h.AdminOK(http.StatusOK, "PUT", "/admin/upstreams/b", map[string]any{"baseUrl": b.API.URL, "apiKey": ours.Key})
	h.PutPack("b-pubg", map[string]any{"slug": "pubg", "name": "60 UC from B", "priceUsd": 1.5, "costUsd": json.Number("0.80"),
		"status": "active", "provider": "upstream", "upstream": "b", "upstreamPid": topupdtest.PIDPubg})
	shop := h.NewAccount("50", nil)
	place := func() string {
		t.Helper()
		id := h.Place(shop, map[string]any{"pid": "b-pubg", "trxid": h.Trx(), "userId": "5123456"}).Str("orderId")
		for end := time.Now().Add(5 * time.Second); h.AdminOrder(id).SupplierRef == ""; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("order %s never reached B", id)
			}
		}
		return id
	}
	// undelivered: our operator completes it, and B never does. waiting:
	// processing at both. costly: B completes it; we ask again and record
	// its cost, $0.80.
	undelivered, waiting, costly := place(), place(), place()
	h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+undelivered+"/complete", map[string]any{})
	found, err := b.Client(ours.Key).History(context.Background(), client.HistoryQuery{TrxID: "topupd-" + costly})
	if err != nil || len(found) != 1 {
		t.Fatalf("order %s at B: %v %v", costly, found, err)
	}
	b.AdminOK(http.StatusOK, "POST", "/admin/orders/"+found[0].OrderID+"/complete", map[string]any{})
	clock.Advance(time.Minute)
	if r := h.WaitOrder(shop, costly); r.Str("status") != "completed" {
		t.Fatalf("order %s after B completed it: %v", costly, r)
	}

	fin, vic := consoleAs(t, h, "fin", "finance"), consoleAs(t, h, "vic", "viewer")
	today := h.Now().UTC().Format(time.DateOnly)
	file := fmt.Sprintf("reference,amount,status\ntopupd-%s,0.89,completed\ntopupd-%s,0.95,completed\ntopupd-stranger,2,completed\n", waiting, costly)
	status, page, loc := filePoster(t, h, "fin")("b", url.Values{"from": {today}, "to": {today}, "reference": {"reference"}, "amount": {"amount"},
		"status": {"status"}}, file)
	stored := reconsNow(t, h, "b")
	if status != http.StatusSeeOther || len(stored) != 1 {
		t.Fatalf("finance sending B's file: %d to %q; %.500s", status, loc, page)
	}
	id := stored[0].ID
	ms := mismatchesByRef(t, h, id)
	kinds := map[string]string{}
	for ref, m := range ms {
		kinds[ref] = m.Kind
	}
	want := map[string]string{"topupd-" + undelivered: topupd.MismatchMissingUpstream, "topupd-" + waiting: topupd.MismatchStatus,
		"topupd-" + costly: topupd.MismatchCost, "topupd-stranger": topupd.MismatchMissingHere}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Fatalf("the mismatches (-want +got):\n%s", diff)
	}
	mid := func(ref string) int { return ms["topupd-"+ref].ID }
	path := func(ref string) string {
		return fmt.Sprintf("/console/reconciliations/%s/mismatches/%d/resolve", id, mid(ref))
	}
	fix := func(post func(string, string, url.Values) (int, string), ref, action, note string, confirmed bool) (int, string) {
		t.Helper()
		form := url.Values{"action": {action}, "note": {note}}
		if confirmed {
			form.Set("confirmed", "yes")
		}
		return post("POST", path(ref), form)
	}
	recPage := "/console/reconciliations/" + id
	before := h.Balance(shop)
	costBefore := *h.AdminOrder(costly).CostUSD
	stillOpen := func(what string) {
		t.Helper()
		for ref, m := range mismatchesByRef(t, h, id) {
			if m.State == topupd.MismatchResolved {
				t.Errorf("%s: mismatch %s is resolved: %+v", what, ref, m.Resolution)
			}
		}
	}

	t.Run("forms", func(t *testing.T) {
		_, one := fin("GET", recPage, nil)
		for ref, want := range map[string][]string{
			undelivered: {topupd.FixAccept, topupd.FixRefundReseller},
			waiting:     {topupd.FixAccept, topupd.FixCompleteOrder},
			costly:      {topupd.FixAccept, topupd.FixRecordCost},
			"stranger":  {topupd.FixAccept},
		} {
			if diff := cmp.Diff(want, fixOptions(one, mid(ref))); diff != "" {
				t.Errorf("the fixes offered for %s (-want +got):\n%s", ref, diff)
			}
		}
		status, page := vic("GET", recPage, nil)
		if status != http.StatusOK || strings.Contains(page, `id="fix-form-`) || strings.Count(page, `<td class="state">open</td>`) != 4 {
			t.Errorf("the viewer's page: %d, a fix form %v; %.500s", status, strings.Contains(page, `id="fix-form-`), page)
		}
		status, page = fix(vic, "stranger", topupd.FixAccept, "a viewer's note", true)
		if status != http.StatusForbidden || !strings.Contains(page, "may not do this") {
			t.Errorf("a viewer's fix: %d %.300s", status, page)
		}
		stillOpen("after the viewer's fix")
	})

	t.Run("previews", func(t *testing.T) {
		for _, c := range []struct{ ref, action, says string }{
			{undelivered, topupd.FixRefundReseller, fmt.Sprintf("by refunding %s to the reseller of order %s? Their balance becomes %s; the order stays completed.",
				usd(t, "1.50"), undelivered, console.USDText(money(t, before)+money(t, "1.50")))},
			{costly, topupd.FixRecordCost, fmt.Sprintf("by recording %s as the cost of order %s, instead of %s?", usd(t, "0.95"), costly, usd(t, "0.80"))},
			{"stranger", topupd.FixAccept, "This records the note only"},
		} {
			status, page := fix(fin, c.ref, c.action, "checked with B", false)
			if status != http.StatusOK || !strings.Contains(page, `id="question"`) || !strings.Contains(page, c.says) ||
				!strings.Contains(page, `name="confirmed" value="yes"`) || !strings.Contains(page, `name="note" value="checked with B"`) {
				t.Errorf("previewing %s of %s: %d, want %q in %.1500s", c.action, c.ref, status, c.says, page)
			}
		}
		if got := h.Balance(shop); got != before {
			t.Errorf("the balance after the previews: %s, was %s", got, before)
		}
		if got := h.AdminOrder(costly).CostUSD; got == nil || *got != costBefore {
			t.Errorf("the cost after its preview: %v, was %v", got, costBefore)
		}
		stillOpen("after the previews")
	})

	t.Run("refused", func(t *testing.T) {
		long := strings.Repeat("n", topupd.MaxFixNote+1)
		for _, c := range []struct {
			what, ref, action, note string
			status                  int
			says                    string
		}{
			{"a blank note", undelivered, topupd.FixRefundReseller, "   ", http.StatusBadRequest, "Write a note of 1 to 1000 characters"},
			{"a long note", costly, topupd.FixRecordCost, long, http.StatusBadRequest, "Write a note of 1 to 1000 characters"},
			{"an unknown fix", costly, "write-off", "x", http.StatusBadRequest, "Choose one of the fixes"},
			{"a fix not offered", "stranger", topupd.FixRefundReseller, "x", http.StatusConflict, "does not fit mismatch"},
			{"B still processing it", waiting, topupd.FixCompleteOrder, "B says done", http.StatusConflict, "b lists order " + waiting + " as"},
		} {
			status, page := fix(fin, c.ref, c.action, c.note, false)
			beside := regexp.MustCompile(fmt.Sprintf(`id="fix-%d-error"[^>]*>([^<]*)<`, mid(c.ref))).FindStringSubmatch(page)
			if status != c.status || beside == nil || !strings.Contains(beside[1], c.says) {
				t.Errorf("%s: %d, beside the form %q; want %d saying %q", c.what, status, beside, c.status, c.says)
				continue
			}
			plain(t, c.what, beside[1])
			if !strings.Contains(page, fmt.Sprintf("Mismatch %d was not resolved", mid(c.ref))) {
				t.Errorf("%s: the page does not say which mismatch was refused", c.what)
			}
			if c.note != "   " && !strings.Contains(page, `value="`+c.note+`"`) {
				t.Errorf("%s: the note typed is not kept", c.what)
			}
			if sel := fmt.Sprintf(`<option value="%s" selected>`, c.action); c.status == http.StatusBadRequest && c.action != "write-off" &&
				!strings.Contains(page, sel) {
				t.Errorf("%s: the fix chosen is not kept", c.what)
			}
		}
		// B cannot be reached: the complete-order that reads it first is
		// refused, in words, as a 502.
		ctx := context.Background()
		up, err := h.Store.Upstream(ctx, "b")
		if err != nil {
			t.Fatal(err)
		}
		gone := up
		gone.BaseURL = "http://127.0.0.1:1"
		if err := h.Store.PutUpstream(ctx, nil, gone); err != nil {
			t.Fatal(err)
		}
		status, page := fix(fin, waiting, topupd.FixCompleteOrder, "B says done", false)
		if status != http.StatusBadGateway || !strings.Contains(page, "b could not be reached to read order "+waiting) {
			t.Errorf("B unreachable: %d %.1500s", status, page)
		}
		if err := h.Store.PutUpstream(ctx, nil, up); err != nil {
			t.Fatal(err)
		}
		if got := h.Balance(shop); got != before {
			t.Errorf("the balance after the refusals: %s, was %s", got, before)
		}
		stillOpen("after the refusals")
	})

	t.Run("confirm", func(t *testing.T) {
		status, page := fix(fin, undelivered, topupd.FixRefundReseller, "B never delivered it", true)
		if status != http.StatusSeeOther {
			t.Fatalf("confirming the refund: %d %.500s", status, page)
		}
		after := money(t, before) + money(t, "1.50")
		if got := money(t, h.Balance(shop)); got != after {
			t.Errorf("the balance after the refund: %s, want %s", got.Dollars(), after.Dollars())
		}
		m := mismatchesByRef(t, h, id)["topupd-"+undelivered]
		if m.State != topupd.MismatchResolved || m.Resolution == nil || m.Resolution.Action != topupd.FixRefundReseller ||
			m.Resolution.Operator != "fin" || m.Resolution.Note != "B never delivered it" || m.Resolution.EntryID == 0 {
			t.Fatalf("the mismatch after the refund: %+v %+v", m, m.Resolution)
		}
		for name, get := range map[string]func(string, string, url.Values) (int, string){"finance": fin, "viewer": vic} {
			_, one := get("GET", recPage, nil)
			res := regexp.MustCompile(fmt.Sprintf(`(?s)id="resolution-%d">(.*?)</p>`, m.ID)).FindStringSubmatch(one)
			if res == nil || !strings.Contains(res[1], "Refund the reseller") || !strings.Contains(res[1], "by fin") ||
				!strings.Contains(res[1], "B never delivered it") || !strings.Contains(res[1], fmt.Sprintf("ledger entry <span class=\"entry\">%d</span>", m.Resolution.EntryID)) {
				t.Errorf("the resolution %s sees: %q", name, res)
			}
			if fixOptions(one, m.ID) != nil || strings.Count(one, `<td class="state">resolved</td>`) != 1 {
				t.Errorf("%s sees a form for the resolved mismatch, or not one resolved", name)
			}
		}
		status, page = fix(fin, undelivered, topupd.FixRefundReseller, "B never delivered it", true)
		beside := regexp.MustCompile(fmt.Sprintf(`id="fix-%d-error"[^>]*>([^<]*)<`, m.ID)).FindStringSubmatch(page)
		if status != http.StatusConflict || beside == nil || !strings.Contains(beside[1], "was resolved already by fin (Refund the reseller)") {
			t.Errorf("confirming again: %d, %q", status, beside)
		}
		if got := money(t, h.Balance(shop)); got != after {
			t.Errorf("the balance after confirming again: %s, want %s", got.Dollars(), after.Dollars())
		}
	})

	t.Run("close", func(t *testing.T) {
		for _, ref := range []string{waiting, costly, "stranger"} {
			if status, page := fix(fin, ref, topupd.FixAccept, "looked into", true); status != http.StatusSeeOther {
				t.Fatalf("accepting %s: %d %.500s", ref, status, page)
			}
		}
		status, page := fin("POST", recPage+"/close", url.Values{})
		if status != http.StatusOK || !strings.Contains(page, `id="question"`) || !strings.Contains(page, "A closed reconciliation is final") {
			t.Errorf("closing with every mismatch resolved asks first: %d %.500s", status, page)
		}
		if status, page := fin("POST", recPage+"/close", url.Values{"confirmed": {"yes"}}); status != http.StatusSeeOther {
			t.Fatalf("closing: %d %.500s", status, page)
		}
		status, page = fix(fin, "stranger", topupd.FixAccept, "again", false)
		if status != http.StatusConflict || !strings.Contains(page, "is closed, and a closed reconciliation is final") {
			t.Errorf("a fix after closing: %d %.800s", status, page)
		}
		if _, one := fin("GET", recPage, nil); strings.Contains(one, `id="fix-form-`) {
			t.Errorf("a closed reconciliation shows a fix form")
		}
	})
}
