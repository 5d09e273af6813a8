package console_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// eval runs script in the tab.
func (b *tab) eval(js string) {
	b.t.Helper()
	if _, err := run(b, chromedp.Evaluate[any](js)); err != nil {
		b.t.Fatalf("running %s: %v", js, err)
	}
}

// confirm clicks a form's button, then the confirmation page's "Yes".
func (b *tab) confirm(sel string) {
	b.t.Helper()
	b.click(sel)
	if !b.has("#confirm") {
		b.t.Fatalf("no confirmation after %s: %s", sel, b.page())
	}
	b.click("#confirm")
}

// TestCreditEndToEnd: a finance operator credits an account from its
// page; the balance the reseller sees changes, the ledger shows the entry,
// and the action log has the credit under the operator's name. A large
// amount asks to be confirmed, and going back credits nothing; a credit
// without a reference, or with a bad amount, is refused and moves nothing.
func TestCreditEndToEnd(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	fin := b.setUp("fin", "finance")
	b.signIn(fin)
	a := b.h.NewAccount("", nil)
	b.open("/console/accounts?q=" + url.QueryEscape(a.ID))
	b.click("#accounts a[href='/console/accounts/" + a.ID + "']")
	if got := b.text("#balance"); got != "0.00" {
		t.Fatalf("a new account's balance: %q", got)
	}
	b.fill(map[string]string{"[name=amount]": "25.50", "[name=reference]": "bank-1"})
	b.click("#credit")
	if got := b.text("#flash"); got != "Credited $25.50; the balance is $25.50." {
		t.Errorf("after the credit: %q", got)
	}
	if got := b.h.Balance(a); got != "25.5" {
		t.Errorf("the reseller's balance: %s", got)
	}
	if got := b.text("#ledger tbody tr"); !strings.Contains(got, "credit") || !strings.Contains(got, "25.50") || !strings.Contains(got, "bank-1") {
		t.Errorf("the ledger's newest row: %q", got)
	}
	b.fill(map[string]string{"[name=amount]": "1500", "[name=reference]": "bank-2"})
	b.click("#credit")
	if got := b.text("#question"); !strings.Contains(got, "$1,500.00") || !strings.Contains(got, "$1,525.50") {
		t.Errorf("a large credit's question: %q", got)
	}
	b.click("a.button.plain")
	if got := b.h.Balance(a); got != "25.5" {
		t.Errorf("after going back from a large credit: %s", got)
	}
	for _, bad := range [][2]string{{"10", ""}, {"ten dollars", "bank-3"}, {"-100", "bank-4"}} {
		b.open("/console/accounts/" + a.ID)
		b.fill(map[string]string{"[name=amount]": bad[0], "[name=reference]": bad[1]})
		b.eval(`document.querySelectorAll("#credit-form [required]").forEach(e => e.required = false), true`)
		b.click("#credit")
		if !b.has(".field-error") {
			t.Errorf("a credit of %q with reference %q: %s", bad[0], bad[1], b.page())
		}
	}
	if got := b.h.Balance(a); got != "25.5" {
		t.Errorf("after refused credits: %s", got)
	}
	acts, err := b.h.AdminClient.Actions(t.Context(), url.Values{"action": {"account.credit"}, "accountId": {a.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if len(acts.Actions) != 1 || acts.Actions[0].Operator != "fin" {
		t.Errorf("the credits in the action log: %+v", acts.Actions)
	}
	b.open("/console/actions?operator=fin&action=account.credit")
	if got := b.text("#actions tbody tr"); !strings.Contains(got, "fin") || !strings.Contains(got, a.ID) {
		t.Errorf("the action log page: %q", got)
	}
	topupdtest.Screenshot(t, b.ctx, "console-account.png")
}

// TestOrderCancelRefund: a support operator finds a processing order by
// its trxid, cancels it with a refund behind a confirmation, and the
// reseller's balance is back; the order's page shows the refund in its
// ledger entries and history.
func TestOrderCancelRefund(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	sup := b.setUp("sup", "support")
	b.signIn(sup)
	a := b.h.NewAccount("10", nil)
	trx := b.h.Trx()
	placed := b.h.Place(a, map[string]any{"pid": topupdtest.PIDPubgManual, "userId": "5123456789", "trxid": trx})
	if got := b.h.Balance(a); got != "8" {
		t.Fatalf("after the order: %s", got)
	}
	b.open("/console/orders")
	b.fill(map[string]string{"#find": trx})
	b.click("form[role=search] button")
	b.click("table.orders a[href^='/console/orders/']")
	if got := b.text("#order-trxid"); got != trx {
		t.Fatalf("the order found by trxid: %q", got)
	}
	if got := b.text("#order-status"); got != "processing" {
		t.Fatalf("status: %q", got)
	}
	b.confirm("#cancel")
	if got := b.text("#flash"); got != "The order is cancelled and 2.00 refunded." {
		t.Errorf("after cancelling: %q", got)
	}
	if got := b.text("#order-status"); got != "cancelled" || !b.has("#refunded") {
		t.Errorf("the order after cancelling: %q", b.text("main"))
	}
	if got := b.h.Balance(a); got != "10" {
		t.Errorf("the balance after the refund: %s", got)
	}
	ledger := b.text("#order-ledger")
	if !strings.Contains(ledger, "charge") || !strings.Contains(ledger, "refund") {
		t.Errorf("the order's ledger entries: %q", ledger)
	}
	o := b.h.AdminOrder(placed.Str("orderId"))
	if o.Status != "cancelled" || !o.Refunded {
		t.Errorf("the order in the admin API: %+v", o)
	}
	if got := b.text("#history"); !strings.Contains(got, "placed") || !strings.Contains(got, "cancelled") {
		t.Errorf("the order's history: %q", got)
	}
	if b.has("#cancel") {
		t.Errorf("a cancelled order still offers to cancel")
	}
	topupdtest.Screenshot(t, b.ctx, "console-order.png")
}

// TestStockUpload: a 10,000-code CSV with duplicates in it (within the
// file, and of codes already in stock) is uploaded with the page's script
// in one request; the counts are right, and so is the stock the reseller
// catalog shows. The same upload without the script (the plain form) adds
// nothing more and starts no batch. Each upload is one stock.add in the
// action log. A file without codes says so, beside the pack's real count,
// with the script and without.
func TestStockUpload(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	own := b.setUp("own", "owner")
	b.signIn(own)
	pid := topupdtest.PIDGift
	a := b.h.NewAccount("", nil)
	before := b.h.Stock(a)[pid]
	old := b.h.Codes[pid][:2]
	var sb strings.Builder
	sb.WriteString("code,note\n")
	for i := range 9990 {
		fmt.Fprintf(&sb, "GIFT-%05d-%s,batch 7\n", i, t.Name())
	}
	for i := range 8 { // 8 repeats within the file
		fmt.Fprintf(&sb, "GIFT-%05d-%s,again\n", i, t.Name())
	}
	for _, c := range old { // 2 codes already in stock
		fmt.Fprintf(&sb, "%s,old\n", c)
	}
	file := filepath.Join(t.TempDir(), "codes.csv")
	if err := os.WriteFile(file, []byte(sb.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	b.open("/console/stock")
	b.eval(fmt.Sprintf(`document.getElementById("upload-pid").value = %q`, pid))
	b.do(chromedp.SetUploadFiles(chromedp.CSS("#upload-file"), []string{file}), chromedp.Click(chromedp.CSS("#upload")))
	// The whole upload, 10,000 codes in one request: bounded far above what a
	// busy machine takes, not by one step's time.
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#upload-result[data-done]"))); err != nil {
		t.Fatalf("waiting for the upload: %v", err)
	}
	if got := b.text("#upload-result"); got != "Done: 9990 added, 10 duplicates, 9995 available." {
		t.Errorf("the upload's result: %q", got)
	}
	// The upload makes one batch (batches_test.go tests batches).
	if bs, err := b.h.AdminClient.Batches(t.Context(), pid); err != nil || len(bs) != 2 || bs[0].Added != 9990 ||
		b.text("#upload-batch") != fmt.Sprintf("In batch %d of %s.", bs[0].ID, pid) {
		t.Errorf("the upload's batches, the newest of 9990 codes: %+v, %v; the page says %q", bs, err, b.text("#upload-batch"))
	}
	topupdtest.Screenshot(t, b.ctx, "console-stock.png")
	if before != "5" {
		t.Fatalf("the catalog's stock before: %s", before)
	}
	if got := b.h.Stock(a)[pid]; got != "9995" {
		t.Errorf("the catalog's stock after: %s", got)
	}
	b.open("/console/stock")
	b.eval(`document.getElementById("stock-upload").removeAttribute("data-chunk-url")`) // the script leaves the form alone
	b.eval(fmt.Sprintf(`document.querySelector("[name=pid]").value = %q`, pid))
	b.do(chromedp.SetUploadFiles(chromedp.CSS("[name=file]"), []string{file}))
	// The plain form posts all 10,000 codes at once and its answer comes
	// when they are in: bounded like the script's upload above, not by
	// one step's time (under -race on a loaded machine it took over 30 s).
	plain, cancelPlain := context.WithTimeout(b.ctx, 10*time.Minute)
	defer cancelPlain()
	if _, err := chromedp.RunResponse(plain, chromedp.Click(chromedp.CSS("form[enctype] button"))); err != nil {
		t.Fatalf("sending the plain form: %v (at %s)", err, b.url())
	}
	if got := b.text("#upload-result"); got != "Done: 0 added, 10000 duplicates, 9995 available." {
		t.Errorf("the plain form's result: %q", got)
	}
	if got := b.text("#available-" + pid); got != "9995" {
		t.Errorf("the stock page's count: %q", got)
	}
	// Nothing but duplicates: no batch; each upload one entry in the log.
	if bs, err := b.h.AdminClient.Batches(t.Context(), pid); err != nil || len(bs) != 2 {
		t.Errorf("the batches after an upload of duplicates: %d, %v", len(bs), err)
	}
	acts, err := b.h.AdminClient.Actions(t.Context(), url.Values{"action": {"stock.add"}, "operator": {"own"}, "limit": {"500"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(acts.Actions) != 2 || acts.Actions[0].After["added"] != float64(0) || acts.Actions[1].After["added"] != float64(9990) ||
		acts.Actions[0].After["duplicates"] != float64(10000) || acts.Actions[1].After["duplicates"] != float64(10) {
		t.Errorf("two uploads in the action log: %d entries, want 2: %+v", len(acts.Actions), acts.Actions)
	}

	// A file without codes, with the script, then with the plain form.
	empty := filepath.Join(t.TempDir(), "empty.csv")
	if err := os.WriteFile(empty, []byte("code\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := "The file had no codes: nothing was added; " + pid + " holds 9995 available."
	b.open("/console/stock")
	b.eval(fmt.Sprintf(`document.getElementById("upload-pid").value = %q`, pid))
	b.do(chromedp.SetUploadFiles(chromedp.CSS("#upload-file"), []string{empty}), chromedp.Click(chromedp.CSS("#upload")),
		chromedp.WaitVisible(chromedp.CSS("#upload-result[data-done]")))
	if got := b.text("#upload-result"); got != want {
		t.Errorf("an empty file, with the script: %q, want %q", got, want)
	}
	b.open("/console/stock")
	b.eval(`document.getElementById("stock-upload").removeAttribute("data-chunk-url")`)
	b.eval(fmt.Sprintf(`document.getElementById("upload-pid").value = %q`, pid))
	b.do(chromedp.SetUploadFiles(chromedp.CSS("#upload-file"), []string{empty}))
	if _, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.CSS("#upload"))); err != nil {
		t.Fatalf("sending the plain form: %v", err)
	}
	if got := b.text("#upload-result"); got != want {
		t.Errorf("an empty file, with the plain form: %q, want %q", got, want)
	}
}

// TestRolesInConsole: each role sees only the menu entries and forms it
// may use, and a post it may not make is refused by the console (and the
// admin API under it) and changes nothing.
func TestRolesInConsole(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	a := b.h.NewAccount("5", nil)
	want := map[string]string{
		"owner":   "Dashboard Orders Accounts Deposits Disputes Catalog Stock Suppliers Reconciliations Reports Operators Action log Settings",
		"finance": "Dashboard Orders Accounts Deposits Disputes Catalog Stock Suppliers Reconciliations Reports Action log Settings",
		"support": "Dashboard Orders Accounts Deposits Disputes Catalog Stock Suppliers Reconciliations Action log Settings",
		"viewer":  "Dashboard Orders Accounts Deposits Disputes Catalog Stock Suppliers Reconciliations Action log Settings",
	}
	forms := map[string]string{"credit": "#credit", "accounts": "#create-key", "catalog": "#new-pack", "settings": "#setting-maintenance button"}
	pages := map[string]string{"credit": "/console/accounts/" + a.ID, "accounts": "/console/accounts/" + a.ID, "catalog": "/console/catalog", "settings": "/console/settings"}
	may := map[string][]string{"owner": {"credit", "accounts", "catalog", "settings"}, "finance": {"credit"}, "support": {"accounts"}, "viewer": nil}
	for _, role := range []string{"owner", "finance", "support", "viewer"} {
		tb := b.also()
		o := tb.setUp("op-"+role, role)
		tb.signIn(o)
		if got := strings.Join(strings.Fields(strings.ReplaceAll(tb.text("header nav"), "\n", " ")), " "); got != strings.Join(strings.Fields(want[role]), " ") {
			t.Errorf("%s's menu: %q", role, got)
		}
		for perm, sel := range forms {
			allowed := false
			for _, p := range may[role] {
				allowed = allowed || p == perm
			}
			tb.open(pages[perm])
			if got := tb.has(sel); got != allowed {
				t.Errorf("%s on %s: form %s shown %v, want %v", role, pages[perm], sel, got, allowed)
			}
		}
		if role != "owner" {
			tb.open("/console/operators")
			if got := tb.text("#error"); !strings.Contains(got, "may not") {
				t.Errorf("%s opening the operators page: %q", role, got)
			}
		}
		if role == "viewer" || role == "support" {
			// Post the credit form as if it were there: refused, and nothing moves.
			csrf, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`document.querySelector("meta[name=csrf-token]").content`))
			if err != nil {
				t.Fatal(err)
			}
			tb.open("/console/accounts/" + a.ID)
			tb.eval(fmt.Sprintf(`(() => { const f = document.createElement("form"); f.method = "post";
				f.action = "/console/accounts/%s/credit"; for (const [k, v] of [["csrf", %q], ["amount", "100"], ["reference", "sneaky"]]) {
				const i = document.createElement("input"); i.name = k; i.value = v; f.appendChild(i) } document.body.appendChild(f); f.id = "sneak"; return true })()`, a.ID, csrf))
			tb.eval(`document.getElementById("sneak").submit()`)
			tb.do(chromedp.WaitVisible(chromedp.CSS("#error")))
			if got := tb.text("#error"); !strings.Contains(got, "may not") {
				t.Errorf("%s posting a credit: %q", role, got)
			}
		}
	}
	if got := b.h.Balance(a); got != "5" {
		t.Errorf("the balance after refused credits: %s", got)
	}
}

// TestOwnerTour: an owner opens every page of the menu and uses the
// catalog, settings, operators and reports forms: a price edit changes
// the price and nothing else, orders-off is confirmed and takes effect,
// an operator added gets a setup link, and the report's CSV downloads.
// Screenshots of the dashboard are saved.
func TestOwnerTour(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	own := b.setUp("own", "owner")
	b.signIn(own)
	a := b.h.NewAccount("20", nil)
	r := b.h.Place(a, map[string]any{"pid": topupdtest.PIDKey, "quantity": 2, "trxid": b.h.Trx()})
	b.h.WaitOrder(a, r.Str("orderId"))
	for _, path := range []string{"/console/", "/console/orders", "/console/accounts", "/console/catalog", "/console/stock",
		"/console/suppliers", "/console/reports", "/console/operators", "/console/actions", "/console/settings",
		"/console/orders/" + r.Str("orderId"), "/console/accounts/" + a.ID, "/console/catalog/packs/" + topupdtest.PIDPubg,
		"/console/catalog/lines/pubg", "/console/catalog/packs/new", "/console/catalog/lines/new"} {
		b.open(path)
		if b.has("#error") {
			t.Errorf("%s: %s", path, b.text("#error"))
		}
	}
	b.open("/console/")
	if got := b.text("#periods"); !strings.Contains(got, "2.40") {
		t.Errorf("today's revenue on the dashboard: %q", got)
	}
	if got := b.text("#owed"); got != "$17.60" {
		t.Errorf("owed to resellers: %q", got)
	}
	if got := b.text("#durations"); !strings.Contains(got, "gamekey") {
		t.Errorf("the dashboard's times to a final state: %q", got)
	}
	topupdtest.Screenshot(t, b.ctx, "console-dashboard.png")

	b.open("/console/catalog/packs/" + topupdtest.PIDPubg)
	b.fill(map[string]string{"#price": "0.95"})
	b.click("#save-pack")
	packs, err := b.h.AdminClient.Products(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range packs {
		if p.PID == topupdtest.PIDPubg && (p.PriceUSD.String() != "0.95" || p.Provider != "sim" || p.Status != "active" || p.Name == "") {
			t.Errorf("the pack after a price edit: %+v", p)
		}
	}
	acts, err := b.h.AdminClient.Actions(t.Context(), url.Values{"action": {"pack.update"}})
	if err != nil || len(acts.Actions) != 1 || fmt.Sprint(acts.Actions[0].After) != "map[priceUsd:0.95]" {
		t.Errorf("the price edit in the action log: %+v %v", acts.Actions, err)
	}

	// A line's edit keeps its choices; a new line gets those typed.
	b.open("/console/catalog/lines/wutheringwaves")
	b.fill(map[string]string{"[name=productName]": "Wuthering Waves Lunite (new)"})
	b.click("#save-line")
	b.open("/console/catalog/lines/new")
	b.fill(map[string]string{"[name=slug]": "genshin", "[name=productName]": "Genesis Crystals", "[name=gameName]": "Genshin Impact",
		"[name=game]": "genshin", "[name=required]": "userId | UID | ^[0-9]{9}$\nserverId | Server", "[name=serverIdOptions]": "os_euro | Europe\nos_asia"})
	b.click("#save-line")
	lines, err := b.h.AdminClient.Services(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		switch l.Slug {
		case "wutheringwaves":
			if l.ProductName != "Wuthering Waves Lunite (new)" || len(l.ServerIDOptions) != 2 || len(l.Required) != 2 {
				t.Errorf("the edited line: %+v", l)
			}
		case "genshin":
			if fmt.Sprint(l.ServerIDOptions) != "[{os_euro Europe} {os_asia os_asia}]" || len(l.Required) != 2 || l.Required[0].Pattern != "^[0-9]{9}$" || l.Kind != "topup" {
				t.Errorf("the new line: %+v", l)
			}
		}
	}

	b.open("/console/settings")
	b.confirm("#setting-ordersDisabled button")
	if got := b.text("#setting-ordersDisabled .value"); got != "stopped" {
		t.Errorf("orders-off after turning it on: %q", got)
	}
	if rr := b.h.Do("POST", "/orders", a.Key, map[string]any{"pid": topupdtest.PIDPubg, "userId": "5123456789", "trxid": b.h.Trx()}); rr.Status != 503 {
		t.Errorf("an order with orders off: %v", rr)
	}

	b.open("/console/operators")
	b.fill(map[string]string{"form [name=name]": "newbie"})
	b.click("#add-operator")
	if got := b.text("#setup-url"); !strings.Contains(got, "/console/setup/") {
		t.Errorf("the new operator's setup link: %q", got)
	}
	b.h.Logs.Secret(b.text("#setup-url")[strings.LastIndex(b.text("#setup-url"), "/")+1:], "newbie's setup link")

	b.open("/console/reports?groupBy=pack")
	if got := b.text("#report tbody"); !strings.Contains(got, topupdtest.PIDKey) {
		t.Errorf("the report by pack: %q", got)
	}
	href, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById("report-csv").href`))
	if err != nil {
		t.Fatal(err)
	}
	csv, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](fmt.Sprintf(`fetch(%q).then(r => r.text())`, href), chromedp.EvalAwaitPromise))
	if err != nil || !strings.Contains(csv, topupdtest.PIDKey) || !strings.Contains(csv, ",2.4,") {
		t.Errorf("the report's CSV: %q %v", csv, err)
	}
}
