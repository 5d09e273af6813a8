package console_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/console"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// ticket is a deposit ticket a test opened through the reseller API.
type ticket struct {
	id, memo string
	amount   topupd.Money
	acct     topupdtest.Account
}

// openTicket opens a deposit ticket of usd dollars for an account.
func openTicket(t *testing.T, h *topupdtest.T, a topupdtest.Account, usd int) ticket {
	t.Helper()
	r := h.Do("POST", "/deposits", a.Key, map[string]any{"amountUsd": usd})
	if r.Status != 201 {
		t.Fatalf("a ticket of %d: %s", usd, r)
	}
	return ticket{id: r.Str("depositId"), memo: r.Str("memo"), amount: money(t, r.Num("amountUsd")), acct: a}
}

// queueIDs are the tickets the Deposits page's queue lists, in order.
func (b *tab) queueIDs() []string {
	b.t.Helper()
	ids, err := run(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#deposit-queue tbody tr[data-status]")].map(r => r.id.replace("deposit-", ""))`))
	if err != nil {
		b.t.Fatalf("reading the queue: %v", err)
	}
	return ids
}

// forge posts a form the page does not offer, with the session's CSRF
// token, as a hand-made request from the browser would.
func (b *tab) forge(path string, fields map[string]string) {
	b.t.Helper()
	var pairs []string
	for k, v := range fields {
		pairs = append(pairs, fmt.Sprintf("[%q, %q]", k, v))
	}
	b.eval(fmt.Sprintf(`(() => { const f = document.createElement("form"); f.method = "post"; f.action = %q;
		const csrf = document.querySelector("meta[name=csrf-token]").content;
		for (const [k, v] of [["csrf", csrf], %s]) { const i = document.createElement("input"); i.type = "hidden"; i.name = k; i.value = v; f.appendChild(i) }
		const s = document.createElement("button"); s.type = "submit"; s.id = "forged-send"; s.textContent = "send"; f.appendChild(s);
		document.body.prepend(f); return true })()`, path, strings.Join(pairs, ", ")))
	b.click("#forged-send")
}

// TestDepositsInTheConsole: four tickets, the queue lists them oldest
// first with their amounts and accounts, and the menu counts them. A
// viewer sees the queue without a form, and its forged confirmation is
// refused. Finance confirms one below the threshold (asked first, with
// the balance after) and it is credited once; an amount of three decimal
// places, and a bank reference used already, are refused beside the
// form, which keeps what was typed. Above
// the threshold finance's confirmation is the first of two: the page
// names finance, offers finance no Confirm, and refuses its forged one;
// another operator's mismatching reference is refused in words, and the
// same reference credits it once. A rejection tells the reseller its
// reason. A statement imported with one row that finds the last ticket
// and one that finds none credits the one and says why not the other.
func TestDepositsInTheConsole(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	h := b.h
	h.Settings(map[string]any{"depositBank": map[string]any{"bankName": "BCA", "accountNumber": "0123", "accountHolder": "PT Jaya"},
		"depositSecondApprovalAboveUsd": 500})
	shop, other := h.NewAccount("1", nil), h.NewAccount("1", nil)
	var tickets []ticket
	for _, o := range []struct {
		a   topupdtest.Account
		usd int
	}{{shop, 50}, {other, 600}, {shop, 20}, {other, 40}} {
		tickets = append(tickets, openTicket(t, h, o.a, o.usd))
		b.clock.Advance(time.Minute)
	}
	small, big, dropped, last := tickets[0], tickets[1], tickets[2], tickets[3]
	balance := func(a topupdtest.Account) topupd.Money { return money(t, h.Balance(a)) }
	b.signIn(b.setUp("fin", "finance"))

	t.Run("queue", func(t *testing.T) {
		b.t = t
		b.open("/console/deposits")
		if diff := cmp.Diff([]string{small.id, big.id, dropped.id, last.id}, b.queueIDs()); diff != "" {
			t.Errorf("the queue, oldest first (-want +got):\n%s", diff)
		}
		row := "#deposit-" + big.id
		if got, want := b.text(row+" .amount"), console.USDText(big.amount); got != want {
			t.Errorf("the amount to transfer: %q, want %q", got, want)
		}
		if got := b.text(row + " .requested"); got != "$600.00" {
			t.Errorf("the amount requested: %q", got)
		}
		if got := b.text(row + " .memo"); got != big.memo {
			t.Errorf("the memo: %q, want %q", got, big.memo)
		}
		if !b.has(row + ` a[href="/console/accounts/` + other.ID + `"]`) {
			t.Errorf("the account is not linked: %s", b.text(row))
		}
		if got := b.text(`header nav a[href="/console/deposits"]`); got != "Deposits 4" {
			t.Errorf("the menu entry: %q, want it to count 4 open tickets", got)
		}
		if got := b.text("#queue-count"); !strings.Contains(got, "4 open tickets: 4 pending") {
			t.Errorf("the count: %q", got)
		}
	})

	t.Run("viewer", func(t *testing.T) {
		vb := b.also()
		vb.t = t
		vb.signIn(vb.setUp("vic", "viewer"))
		vb.open("/console/deposits")
		if got := vb.queueIDs(); len(got) != 4 {
			t.Errorf("the viewer's queue: %v", got)
		}
		for _, sel := range []string{"#confirm-form-" + small.id, "#reject-form-" + small.id, "#import-form"} {
			if vb.has(sel) {
				t.Errorf("the viewer is offered %s", sel)
			}
		}
		vb.forge("/console/deposits/"+small.id+"/confirm", map[string]string{"bankRef": "SNEAK", "confirmed": "yes"})
		if got := vb.text("#error"); !strings.Contains(got, "may not") {
			t.Errorf("a viewer's forged confirmation: %q", got)
		}
		if got := balance(shop); got != topupd.USD(1) {
			t.Errorf("the balance after the viewer's confirmation: %s", got.Dollars())
		}
	})

	t.Run("confirm", func(t *testing.T) {
		b.t = t
		b.open("/console/deposits")
		b.fill(map[string]string{"#bank-ref-" + small.id: "BR-1"})
		b.click("#confirm-" + small.id)
		want := fmt.Sprintf("credit %s? The balance goes from $1.00 to %s.", console.USDText(small.amount), console.USDText(topupd.USD(1)+small.amount))
		if q := b.text("#question"); !strings.Contains(q, want) || !strings.Contains(q, "BR-1") {
			t.Errorf("the question: %q, want %q in it", q, want)
		}
		if got := balance(shop); got != topupd.USD(1) {
			t.Errorf("the balance before the answer: %s", got.Dollars())
		}
		b.click("#confirm")
		plain(t, "a confirmation", b.text("#flash"))
		if got, want := balance(shop), topupd.USD(1)+small.amount; got != want {
			t.Errorf("the balance after the confirmation: %s, want %s", got.Dollars(), want.Dollars())
		}
		if slices.Contains(b.queueIDs(), small.id) || !strings.Contains(b.text("#closed-"+small.id), "credited") {
			t.Errorf("the confirmed ticket: queue %v, closed %q", b.queueIDs(), b.text("#deposit-recent"))
		}
		// Once: the same confirmation sent again credits nothing.
		b.forge("/console/deposits/"+small.id+"/confirm", map[string]string{"bankRef": "BR-1", "confirmed": "yes"})
		got := b.text("#error")
		plain(t, "confirming twice", got)
		if !strings.Contains(got, "confirmed already") {
			t.Errorf("confirming twice: %q", got)
		}
		if got, want := balance(shop), topupd.USD(1)+small.amount; got != want {
			t.Errorf("the balance after confirming twice: %s, want %s", got.Dollars(), want.Dollars())
		}
	})

	t.Run("bank ref used", func(t *testing.T) {
		b.t = t
		b.open("/console/deposits")
		b.fill(map[string]string{"#bank-ref-" + last.id: "BR-9", "#received-" + last.id: "40.505"})
		b.click("#confirm-" + last.id)
		got := b.fieldError("received-" + last.id)
		plain(t, "three decimal places", got)
		if !strings.Contains(got, "decimal places") || b.has("#question") || b.value("#received-"+last.id) != "40.505" {
			t.Errorf("a received amount of three decimal places: %q, the field %q", got, b.value("#received-"+last.id))
		}
		b.fill(map[string]string{"#bank-ref-" + last.id: "BR-1", "#received-" + last.id: "40.5"})
		b.click("#confirm-" + last.id)
		b.click("#confirm")
		got = b.fieldError("bank-ref-" + last.id)
		plain(t, "a bank reference used", got)
		if !strings.Contains(got, "“BR-1” confirmed another deposit") {
			t.Errorf("a bank reference used: %q", got)
		}
		if ref, rec := b.value("#bank-ref-"+last.id), b.value("#received-"+last.id); ref != "BR-1" || rec != "40.5" {
			t.Errorf("the form after the refusal: %q and %q", ref, rec)
		}
		if b.has("#bank-ref-"+small.id+"-error") || b.value("#bank-ref-"+big.id) != "" {
			t.Errorf("the refusal shows beside another ticket's form")
		}
		b.shots("console-deposits-refused")
		if got := balance(other); got != topupd.USD(1) {
			t.Errorf("the balance after the refusal: %s", got.Dollars())
		}
	})

	t.Run("two operators", func(t *testing.T) {
		b.t = t
		b.open("/console/deposits")
		b.fill(map[string]string{"#bank-ref-" + big.id: "BR-600"})
		b.click("#confirm-" + big.id)
		if q := b.text("#question"); !strings.Contains(q, "first of two") || !strings.Contains(q, "above $500.00") {
			t.Errorf("the first of two's question: %q", q)
		}
		b.click("#confirm")
		plain(t, "the first of two", b.text("#flash"))
		if got := balance(other); got != topupd.USD(1) {
			t.Errorf("the balance after the first of two: %s", got.Dollars())
		}
		if got := b.text("#first-" + big.id); !strings.Contains(got, "First confirmed by fin") || !strings.Contains(got, "BR-600") {
			t.Errorf("the ticket awaiting its second: %q", got)
		}
		if b.has("#confirm-form-"+big.id) || !b.has("#second-needed-"+big.id) {
			t.Errorf("the first operator is offered the second confirmation: %s", b.text("#deposit-"+big.id))
		}
		b.forge("/console/deposits/"+big.id+"/confirm", map[string]string{"bankRef": "BR-600", "confirmed": "yes"})
		if got := b.fieldError("deposit-" + big.id); !strings.Contains(got, "another operator must give the second") {
			t.Errorf("the first operator's forged second: %q", got)
		}

		sb := b.also()
		sb.t = t
		sb.signIn(sb.setUp("fin2", "finance"))
		sb.open("/console/deposits")
		if got := sb.text("#deposit-" + big.id + " .status"); !strings.Contains(got, "awaiting a second confirmation") || !strings.Contains(got, "fin") {
			t.Errorf("the second operator sees %q", got)
		}
		sb.fill(map[string]string{"#bank-ref-" + big.id: "BR-601"})
		sb.click("#confirm-" + big.id)
		got := sb.fieldError("bank-ref-" + big.id)
		plain(t, "another reference", got)
		if !strings.Contains(got, "fin confirmed it first with bank reference “BR-600”") || sb.value("#bank-ref-"+big.id) != "BR-601" {
			t.Errorf("another reference: %q, the field %q", got, sb.value("#bank-ref-"+big.id))
		}
		sb.fill(map[string]string{"#bank-ref-" + big.id: "BR-600"})
		sb.click("#confirm-" + big.id)
		want := fmt.Sprintf("credit %s? The balance goes from $1.00 to %s.", console.USDText(big.amount), console.USDText(topupd.USD(1)+big.amount))
		if q := sb.text("#question"); !strings.Contains(q, want) || !strings.Contains(q, "fin confirmed it first") {
			t.Errorf("the second's question: %q, want %q in it", q, want)
		}
		sb.click("#confirm")
		if got, want := balance(other), topupd.USD(1)+big.amount; got != want {
			t.Errorf("the balance after the second: %s, want %s", got.Dollars(), want.Dollars())
		}
		sb.forge("/console/deposits/"+big.id+"/confirm", map[string]string{"bankRef": "BR-600", "confirmed": "yes"})
		if got, want := balance(other), topupd.USD(1)+big.amount; got != want {
			t.Errorf("the balance after a third confirmation: %s, want %s", got.Dollars(), want.Dollars())
		}
	})

	t.Run("reject", func(t *testing.T) {
		b.t = t
		b.open("/console/deposits")
		b.fill(map[string]string{"#reason-" + dropped.id: "no transfer came"})
		b.click("#reject-" + dropped.id)
		if q := b.text("#question"); !strings.Contains(q, "“no transfer came”") {
			t.Errorf("the rejection's question: %q", q)
		}
		b.click("#confirm")
		plain(t, "a rejection", b.text("#flash"))
		r := h.Do("GET", "/deposits/"+dropped.id, shop.Key, nil)
		if r.Str("status") != "rejected" || r.Str("reason") != "no transfer came" {
			t.Errorf("the reseller reads the rejected ticket: %s", r)
		}
		if slices.Contains(b.queueIDs(), dropped.id) {
			t.Errorf("the rejected ticket is still in the queue")
		}
	})

	t.Run("import", func(t *testing.T) {
		b.t = t
		today := b.clock.Now().UTC().Format(time.DateOnly)
		text := "Date,Description,Amount,Ref\n" +
			fmt.Sprintf("%s,transfer %s thanks,%s,BR-IMP-1\n", today, strings.ToLower(last.memo), last.amount.Dollars()) +
			fmt.Sprintf("%s,transfer TPD-ZZZZZZ,12.34,BR-IMP-2\n", today)
		file := filepath.Join(t.TempDir(), "statement.csv")
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		cols := map[string]string{"#col-amount": "amount", "#col-reference": "Description", "#col-date": "DATE", "#col-bank-ref": "Reference"}
		send := func() {
			b.open("/console/deposits")
			b.fill(cols)
			b.do(chromedp.SetUploadFiles(chromedp.CSS("#statement-file"), []string{file}))
			b.click("#import-statement")
		}
		send()
		got := b.fieldError("col-bank-ref")
		plain(t, "a column the file lacks", got)
		if !strings.Contains(got, "Reference") || b.value("#col-bank-ref") != "Reference" || b.value("#col-reference") != "Description" {
			t.Errorf("a column the file lacks: %q, the field %q", got, b.value("#col-bank-ref"))
		}
		if got := balance(other); got != topupd.USD(1)+big.amount {
			t.Errorf("the balance after a refused import: %s", got.Dollars())
		}
		cols["#col-bank-ref"] = "ref"
		send()
		if got := b.text("#import-summary"); !strings.HasPrefix(got, "1 row matched a ticket (1 credited") || !strings.Contains(got, "1 row matched none") {
			t.Errorf("the import's summary: %q", got)
		}
		if got := b.text("#import-matched tbody"); !strings.Contains(got, last.id) || !strings.Contains(got, "credited") {
			t.Errorf("the matched rows: %q", got)
		}
		if got := b.text("#import-unmatched tbody"); !strings.Contains(got, "TPD-ZZZZZZ") || !strings.Contains(got, "no pending ticket") {
			t.Errorf("the unmatched rows: %q", got)
		}
		if got, want := balance(other), topupd.USD(1)+big.amount+last.amount; got != want {
			t.Errorf("the balance after the import: %s, want %s", got.Dollars(), want.Dollars())
		}
		if got := b.queueIDs(); len(got) != 0 {
			t.Errorf("the queue after the import: %v", got)
		}
		b.shots("console-deposits-import")
		b.open("/console/deposits")
		if got := b.text(`header nav a[href="/console/deposits"]`); got != "Deposits" {
			t.Errorf("the menu entry with no ticket open: %q", got)
		}
	})
}
