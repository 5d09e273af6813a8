package console_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// reconsNow reads the reconciliations stored with a supplier, newest first.
func reconsNow(t *testing.T, h *topupdtest.T, supplier string) []topupd.Reconciliation {
	t.Helper()
	list, err := h.Store.Reconciliations(context.Background(), topupd.ReconciliationsQuery{Supplier: supplier, Limit: 100})
	if err != nil {
		t.Fatalf("reading the reconciliations with %s: %v", supplier, err)
	}
	return list
}

// mismatchRows are the mismatch queue of the page the tab shows, by
// reference: kind, our order, our cost, their charges, our status, their
// status and state, "|" between them.
func (b *tab) mismatchRows() map[string]string {
	b.t.Helper()
	rows, err := run(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#mismatches tbody tr[data-kind]")].map(r =>
		[2, 1, 3, 5, 6, 7, 8, 9].map(i => r.cells[i].innerText.trim()).join("|"))`))
	if err != nil {
		b.t.Fatalf("reading the mismatches: %v", err)
	}
	out := map[string]string{}
	for _, r := range rows {
		ref, rest, _ := strings.Cut(r, "|")
		out[ref] = rest
	}
	return out
}

// sendFile fills an upstream's file form and sends it with file's text.
func (b *tab) sendFile(upstream string, fields map[string]string, text string) {
	b.t.Helper()
	file := filepath.Join(b.t.TempDir(), "recon.csv")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		b.t.Fatal(err)
	}
	b.open("/console/reconciliations")
	b.fill(fields)
	b.do(chromedp.SetUploadFiles(chromedp.CSS("#file-"+upstream), []string{file}))
	b.click("#send-file-" + upstream)
}

// TestReconciliationsInTheConsole: four orders completed at an upstream
// that charged $0.89 each, recorded at a cost of $0.80, and $10 we sent
// it. Finance reconciles from the supplier's file, which agrees on one
// order, charges another $0.95, lacks one, refunds one, charges one we
// never sent and one twice: the reconciliation's page shows one
// mismatch of each kind with its amounts and statuses and our order
// linked, and the right figures; the reconciliations page lists it, and
// the dashboard counts its mismatches. Refused files, columns and periods
// say why beside the field and store nothing. A pull finds the four
// costs recorded wrong and the balance drift they make. Closing is
// refused while mismatches are open; a file that agrees closes, once
// confirmed. A mismatch is accepted from its form: previewed, confirmed,
// then shown resolved with the note.
func TestReconciliationsInTheConsole(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	if now := b.clock.Now().UTC(); now.Add(15*time.Minute).Day() != now.Day() {
		t.Skip("the UTC day turns within 15 minutes: the period of the runs would be split")
	}
	b.h.LoadCatalog()
	b.h.Settings(map[string]any{"reconcileAt": nil, "upstreamBalancePollMinutes": 0}) // only the test's runs
	up := topupdtest.New(t)
	up.LoadCatalog()
	ours := up.NewAccount("10", nil)
	b.h.Logs.Secret(ours.Key, "our key at the upstream")
	b.h.AdminCall("PUT", "/admin/upstreams/real", map[string]any{"baseUrl": up.API.URL, "apiKey": ours.Key}, nil)
	b.h.PutPack("via-real", map[string]any{"slug": "pubg", "name": "60 UC, real", "priceUsd": topupdtest.USD("1.5"), "status": "active",
		"suppliers": []any{map[string]any{"provider": "upstream", "upstream": "real", "upstreamPid": topupdtest.PIDPubg, "costUsd": topupdtest.USD("0.8")}}})
	shop := b.h.NewAccount("20", nil)
	var ids []string
	for range 4 {
		id := b.h.Place(shop, map[string]any{"pid": "via-real", "userId": "5123456", "trxid": b.h.Trx()}).Str("orderId")
		if r := b.h.WaitOrder(shop, id); r.Str("status") != "completed" {
			t.Fatalf("an order at the upstream: %v", r)
		}
		ids = append(ids, id)
	}
	b.h.AdminCall("POST", "/admin/upstreams/real/deposits", map[string]any{"amountUsd": 10, "reference": "wire-1"}, nil)
	today := b.clock.Now().UTC().Format(time.DateOnly)
	b.signIn(b.setUp("fin", "finance"))

	cols := map[string]string{"#file-from-real": today, "#file-to-real": today, "#col-reference-real": "ref", "#col-amount-real": "CHARGED",
		"#col-status-real": "state", "#col-time-real": "when"}
	line := func(ref, amount, status string) string {
		return fmt.Sprintf("%s,%s,%s,%s 00:00:01\n", ref, amount, status, today)
	}
	ref := func(i int) string { return "topupd-" + ids[i] }
	day := func(n int) string { return b.clock.Now().UTC().AddDate(0, 0, n).Format(time.DateOnly) }
	var fileID string

	t.Run("refused", func(t *testing.T) {
		b.t = t
		bad := "Ref,Charged,State,When\n" + line(ref(0), "0.80", "success") + line(ref(1), "lots", "success")
		b.sendFile("real", cols, bad)
		got := b.fieldError("file-real")
		plain(t, "a bad amount", got)
		if !strings.Contains(got, "line 3") || !strings.Contains(got, "nothing was stored") {
			t.Errorf("a bad amount on line 3: %q", got)
		}
		if got := b.value("#col-amount-real"); got != "CHARGED" {
			t.Errorf("the amount column after the refusal: %q", got)
		}
		for what, c := range map[string]struct {
			fields map[string]string
			field  string
			says   string
		}{
			"a column the file lacks": {map[string]string{"#col-amount-real": "price"}, "col-amount-real", `no column "price"`},
			"32 days":                 {map[string]string{"#file-from-real": day(-40), "#file-to-real": day(-9)}, "file-to-real", "at most 31 days"},
			"a day after today":       {map[string]string{"#file-to-real": day(1)}, "file-to-real", "after today"},
			"from after to":           {map[string]string{"#file-from-real": today, "#file-to-real": day(-1)}, "file-from-real", "first day"},
		} {
			fields := map[string]string{}
			for k, v := range cols {
				fields[k] = v
			}
			for k, v := range c.fields {
				fields[k] = v
			}
			b.sendFile("real", fields, "Ref,Charged,State,When\n"+line(ref(0), "0.80", "success"))
			got := b.fieldError(c.field)
			plain(t, what, got)
			if !strings.Contains(got, c.says) {
				t.Errorf("%s: %q beside %s, want it to say %q", what, got, c.field, c.says)
			}
		}
		if got := reconsNow(t, b.h, "real"); len(got) != 0 {
			t.Fatalf("refused runs stored: %+v", got)
		}
		b.open("/console/")
		if b.has("#open-mismatches") {
			t.Errorf("no reconciliation yet, and the dashboard says %q", b.text("#open-mismatches"))
		}
	})

	t.Run("file", func(t *testing.T) {
		b.t = t
		file := "Ref,Charged,State,When\n" + line(ref(0), "0.80", "success") + line(ref(1), "0.95", "success") +
			line(ref(3), "0.80", "success") + line(ref(3), "-0.80", "refunded") + line("topupd-nosuchorder", "2", "") +
			line("topupd-twice", "1", "completed") + line("topupd-twice", "1", "completed") + "topupd-old,5,,2000-01-01 00:00:00\n"
		b.sendFile("real", cols, file)
		if want, got := "Reconciled with real over "+today+", from recon.csv: 1 matched, 5 mismatches.", b.text("#flash"); got != want {
			t.Errorf("after the run: %q, want %q", got, want)
		}
		stored := reconsNow(t, b.h, "real")
		if len(stored) != 1 {
			t.Fatalf("runs stored: %+v", stored)
		}
		fileID = stored[0].ID
		if got := b.path(); got != "/console/reconciliations/"+fileID {
			t.Errorf("after the run the tab is at %s", got)
		}
		want := map[string]string{
			ref(1):               "Cost differs cost_mismatch|" + ids[1] + "|$0.80|$0.95|completed|completed|open",
			ref(2):               "Missing at the supplier missing_upstream|" + ids[2] + "|$0.80|—|completed|—|open",
			ref(3):               "Statuses differ status_mismatch|" + ids[3] + "|$0.80|$0.00|completed|cancelled|open",
			"topupd-nosuchorder": "Missing here missing_here|—|—|$2.00|—|completed|open",
			"topupd-twice":       "Charged more than once duplicate_upstream|—|—|$2.00|—|completed|open",
		}
		if diff := cmp.Diff(want, b.mismatchRows()); diff != "" {
			t.Errorf("the mismatches (-want +got):\n%s", diff)
		}
		figures := map[string]string{"#recon-supplier": "real", "#recon-days": today, "#recon-source": "their file", "#recon-state": "open",
			"#recon-matched": "1", "#recon-mismatches": "5", "#recon-our-orders": "4", "#recon-their-orders": "5",
			"#recon-our-cost": "$3.20", "#recon-their-cost": "$5.75", "#recon-drift": "—"}
		for sel, want := range figures {
			if got := b.text(sel); got != want {
				t.Errorf("%s: %q, want %q", sel, got, want)
			}
		}
		if got := b.text("#fixes-hint"); !strings.Contains(got, "previewed") {
			t.Errorf("the line about fixes: %q", got)
		}
		b.shots("console-reconciliation")
		b.click(`#mismatches a[href="/console/orders/` + ids[2] + `"]`)
		if got := b.path(); got != "/console/orders/"+ids[2] {
			t.Errorf("the order's link goes to %s", got)
		}

		b.open("/console/reconciliations")
		row, err := run(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#recon-row-`+fileID+` td")].map(c => c.innerText.trim())`))
		if err != nil || len(row) < 10 {
			t.Fatalf("the run's row: %q, %v", row, err)
		}
		if want := []string{fileID, today, "their file", "open", "1", "4", "5", "$3.20", "$5.75", "—"}; !cmp.Equal(row[:10], want) {
			t.Errorf("the run's row: %q, want %q", row[:10], want)
		}
		if got := b.text("#recon-open-real"); got != "5 open mismatches" {
			t.Errorf("real's open mismatches: %q", got)
		}
		b.shots("console-reconciliations")
		b.open("/console/")
		if got := b.text("#open-mismatches"); got != "5 open mismatches between our books and the suppliers'." {
			t.Errorf("the dashboard: %q", got)
		}
		b.click("#open-mismatches a")
		if got := b.path(); got != "/console/reconciliations" {
			t.Errorf("the dashboard's link goes to %s", got)
		}
	})

	t.Run("pull", func(t *testing.T) {
		b.t = t
		if time.Now().UTC().Format(time.DateOnly) != today {
			t.Skip("the upstream's day (its clock is the machine's) is no longer the test's")
		}
		b.open("/console/reconciliations")
		b.fill(map[string]string{"#pull-from-real": today, "#pull-to-real": today})
		b.click("#pull-real")
		if want, got := "Reconciled with real over "+today+", pulled from the upstream: 0 matched, 4 mismatches.", b.text("#flash"); got != want {
			t.Errorf("after the pull: %q, want %q", got, want)
		}
		want := map[string]string{}
		for i := range ids {
			want[ref(i)] = "Cost differs cost_mismatch|" + ids[i] + "|$0.80|$0.89|completed|completed|open"
		}
		if diff := cmp.Diff(want, b.mismatchRows()); diff != "" {
			t.Errorf("the pull's mismatches (-want +got):\n%s", diff)
		}
		// Their balance went from 0 to 10 − 4 × 0.89 = 6.44; our books
		// explain 10 − 4 × 0.80 = 6.80.
		for sel, want := range map[string]string{"#recon-source": "pulled from the upstream", "#recon-drift": "-$0.36",
			"#recon-their-cost": "$3.56", "#recon-our-cost": "$3.20", "#recon-their-orders": "4"} {
			if got := b.text(sel); got != want {
				t.Errorf("%s: %q, want %q", sel, got, want)
			}
		}
		b.open("/console/reconciliations")
		order, err := run(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#recons-real tbody tr")].map(r => r.cells[2].innerText)`))
		if want := []string{"pulled from the upstream", "their file"}; err != nil || !cmp.Equal(order, want) {
			t.Errorf("the runs listed: %q, %v; want %q, newest first", order, err, want)
		}
		b.open("/console/")
		if got := b.text("#open-mismatches a"); got != "9 open mismatches" {
			t.Errorf("the dashboard after the pull: %q", got)
		}
	})

	t.Run("close", func(t *testing.T) {
		b.t = t
		b.open("/console/reconciliations/" + fileID)
		b.click("#close-recon")
		got := b.text("#error")
		plain(t, "closing with mismatches open", got)
		if !strings.Contains(got, "cannot be closed") || !strings.Contains(got, "5 mismatches open") {
			t.Errorf("closing with mismatches open: %q", got)
		}
		if got := b.text("#recon-state"); got != "open" {
			t.Errorf("after the refusal the page says %q", got)
		}
		agree := "reference,amount\n" + fmt.Sprintf("%s,0.80\n%s,0.80\n%s,0.80\n%s,0.80\n", ref(0), ref(1), ref(2), ref(3))
		b.sendFile("real", map[string]string{"#file-from-real": today, "#file-to-real": today}, agree)
		if got := b.text("#recon-mismatches"); got != "0" || b.text("#recon-matched") != "4" {
			t.Fatalf("a file that agrees: %s mismatches, %s matched", got, b.text("#recon-matched"))
		}
		b.confirm("#close-recon")
		if got := b.text("#flash"); !strings.HasSuffix(got, "is closed.") {
			t.Errorf("closing: %q", got)
		}
		if got := b.text("#recon-state"); got != "closed" || b.has("#close-recon") {
			t.Errorf("a closed reconciliation: state %q, close button %v", got, b.has("#close-recon"))
		}
		if got := reconsNow(t, b.h, "real"); len(got) < 2 || got[0].State != topupd.ReconClosed || got[1].State != topupd.ReconOpen {
			t.Errorf("the runs stored: %+v", got)
		}
	})

	t.Run("fix", func(t *testing.T) {
		b.t = t
		rec, err := b.h.Store.Reconciliation(context.Background(), fileID)
		if err != nil {
			t.Fatal(err)
		}
		mid := ""
		for _, m := range rec.Mismatches {
			if m.Reference == "topupd-nosuchorder" {
				mid = fmt.Sprint(m.ID)
			}
		}
		b.open("/console/reconciliations/" + fileID)
		b.fill(map[string]string{"#fix-action-" + mid: "accept", "#fix-note-" + mid: "not ours: their test order"})
		b.click("#fix-" + mid)
		if got := b.text("#question"); !strings.Contains(got, "records the note only") {
			t.Errorf("the preview of accept: %q", got)
		}
		b.click("#confirm")
		if got := b.text("#flash"); !strings.Contains(got, "is resolved") {
			t.Errorf("after the fix: %q", got)
		}
		if got := b.mismatchRows()["topupd-nosuchorder"]; !strings.HasSuffix(got, "|resolved") || b.has("#fix-form-"+mid) {
			t.Errorf("the resolved mismatch: %q, form shown %v", got, b.has("#fix-form-"+mid))
		}
		if got := b.text("#resolution-" + mid); !strings.Contains(got, "not ours: their test order") || !strings.Contains(got, "fin") {
			t.Errorf("the resolution: %q", got)
		}
	})
}
