package simulation

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/ratelimit"
	"github.com/topupd/topupd/service"
)

// The deposit side (back-office.md, section 3): clients open deposit
// tickets through the reseller API, pay some of them (the exact amount,
// or without the cents, or twice) into the bank, and two operators
// confirm, reject and import the bank's statement, on an admin node that
// crashes and meets faults at the SQL driver. Money in is conserved: a
// deposit is credited only with a transfer the bank holds, at what that
// transfer brought, and a transfer credits one deposit at most, once.
//
// Like the webhook side, it draws from a PCG of its own and reaches the
// store through a service and a reseller API of its own, so that the
// rest of each seed's history is what it was. Its tickets are the books
// no order's balance depends on: shop4's (live, and placing no order)
// and the sandboxes' (1,000 USD each).

// depositProb is the percentage of steps after which the deposit side
// acts once.
const depositProb = 8

// depositAbove is the credit above which a deposit takes two operators:
// tickets for 1 USD take one, for 2 or 3 USD two.
var depositAbove = topupd.USD(2)

// deposits is the deposit side's world.
type deposits struct {
	rng *rand.Rand
	// api is the clients' reseller API, and svc the operators' service.
	api http.Handler
	svc *service.Service
	// ops are the operators who confirm: an owner and finance.
	ops []service.Actor
	// books are the books clients open tickets for: shop4's, then the
	// sandboxes'.
	books   []string
	tickets []*ticket
	rows    []*bankRow
	// byRef finds a transfer by its bank reference; byID a ticket.
	byRef map[string]*bankRow
	byID  map[string]*ticket
}

// ticket is a deposit ticket a client was answered with.
type ticket struct {
	n         int // t<n> in the trace: the ids are random
	id, books string
	requested topupd.Money
	amount    topupd.Money
	memo      string
	// credited is what the store says it credited, once seen confirmed.
	credited *topupd.Money
}

// bankRow is a transfer the bank received: the statement's row.
type bankRow struct {
	n      int
	ref    string
	amount topupd.Money
	// reference is the transfer's text: the ticket's memo, or not.
	reference string
	t         *ticket
	// creditedTo is the deposit it credited, once seen.
	creditedTo *ticket
}

// setupDeposits makes shop4 and the finance operator, and sets the
// deposit bank, through a service of the deposit side's own.
func (w *World) setupDeposits(ctx context.Context) error {
	d := &deposits{rng: rand.New(rand.NewPCG(w.cfg.Seed, 0x64657073)), byRef: map[string]*bankRow{}, byID: map[string]*ticket{}}
	svc, err := service.New(service.Deps{Store: depStore{w.store, w}, Now: w.clk.Now, Deadline: deadline, Logger: quiet})
	if err != nil {
		return err
	}
	d.svc = svc
	windows := []ratelimit.Window{{Limit: topupd.DefaultRatePerSecond, Period: time.Second}, {Limit: topupd.DefaultRatePerMinute, Period: time.Minute}}
	limiter := ratelimit.NewMemory(windows, w.clk.Now)
	if d.api, err = httpapi.NewReseller(httpapi.Deps{Store: w.store, Service: svc, Limiter: limiter, Orders: ratelimit.NewMemoryOrders(limiter, w.clk.Now),
		Logger: quiet, Now: w.clk.Now}); err != nil {
		return err
	}
	w.deps = d
	owner := service.Actor{Operator: "sim-operator", Role: topupd.RoleOwner}
	if _, _, err := svc.CreateOperator(ctx, owner, "sim-finance", topupd.RoleFinance); err != nil {
		return err
	}
	d.ops = []service.Actor{owner, {Operator: "sim-finance", Role: topupd.RoleFinance}}
	bank := &topupd.DepositBank{BankName: "Sim Bank", AccountNumber: "000111", AccountHolder: "Sim Topups"}
	hours := 1
	if _, err := svc.UpdateSettings(ctx, owner, topupd.SettingsPatch{DepositBank: &bank, DepositTicketHours: &hours,
		DepositSecondApprovalAbove: &depositAbove}); err != nil {
		return err
	}
	name := "shop4"
	a, err := svc.CreateAccount(ctx, owner, topupd.AccountPatch{Name: &name})
	if err != nil {
		return err
	}
	k, err := svc.CreateKey(ctx, owner, a.ID, "sim")
	if err != nil {
		return err
	}
	w.model.keys[a.ID] = k.Secret
	w.model.depositor = a.ID
	d.books = append([]string{a.ID}, w.model.sandboxes...)
	return nil
}

// depositStep is one act of the deposit side.
func (w *World) depositStep(ctx context.Context) error {
	d := w.deps
	switch r := d.rng.IntN(100); {
	case r < 25:
		return w.openTicket(ctx)
	case r < 45:
		w.pay()
	case r < 70:
		w.confirmTicket(ctx)
	case r < 78:
		w.rejectTicket(ctx)
	case r < 92:
		return w.importStatement(ctx)
	default:
		n, err := w.store.ExpireDeposits(ctx, w.clk.Now()) // as the watch does
		if err != nil {
			return err
		}
		w.logf("deposits: %d tickets expired", n)
	}
	return nil
}

// openTicket has a client open a ticket for 1, 2 or 3 USD through the
// reseller API: answered with its exact amount (plus 1 to 99 cents) and
// a memo, or refused as its books' fourth pending ticket.
func (w *World) openTicket(ctx context.Context) error {
	d := w.deps
	books := d.books[d.rng.IntN(len(d.books))]
	requested := topupd.USD(int64(1 + d.rng.IntN(3)))
	status, body, err := d.call(ctx, w.model.keys[books], map[string]any{"amountUsd": json.Number(requested.String())})
	if err != nil {
		return err
	}
	if status != http.StatusCreated {
		code := fmt.Sprint(body["code"])
		w.logf("deposits: %s asks for %s USD: %d %s", w.shop(books), requested.Dollars(), status, code)
		if code != string(topupd.EDepositLimit) && code != string(topupd.EDepositAmountTaken) {
			w.fail("POST /deposits of %s USD for %s answered %d %v", requested.Dollars(), w.shop(books), status, body)
		}
		return nil
	}
	amount, err := topupd.ParseMoney(fmt.Sprint(body["amountUsd"]))
	memo, _ := body["memo"].(string)
	if err != nil || amount <= requested || amount >= requested+topupd.USD(1) || len(topupd.MemosIn(memo)) != 1 {
		w.fail("a ticket for %s USD asks for %v with memo %q", requested.Dollars(), body["amountUsd"], memo)
		return nil
	}
	t := &ticket{n: len(d.tickets) + 1, id: fmt.Sprint(body["depositId"]), books: books, requested: requested, amount: amount, memo: memo}
	d.tickets = append(d.tickets, t)
	d.byID[t.id] = t
	w.logf("deposits: %s opens t%d for %s USD", w.shop(books), t.n, requested.Dollars())
	return nil
}

// call sends POST /deposits to the deposit side's reseller API.
func (d *deposits) call(ctx context.Context, key string, body any) (int, map[string]any, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, nil, err
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, "/deposits", bytes.NewReader(b))
	if err != nil {
		return 0, nil, err
	}
	r.Header.Set("Authorization", "Bearer "+key)
	r.Header.Set("Content-Type", "application/json")
	r.RemoteAddr = "192.0.2.4:40000"
	rec := &recorder{header: http.Header{}}
	d.api.ServeHTTP(rec, r)
	var out map[string]any
	dec := json.NewDecoder(&rec.body)
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return rec.status, nil, fmt.Errorf("POST /deposits answered %d: %w", rec.status, err)
	}
	return rec.status, out, nil
}

// pay has a client transfer money for one of its tickets: the exact
// amount with the memo, or (one in five) without the cents, or (one in
// six) without the memo; a ticket may be paid twice, or late.
func (w *World) pay() {
	d := w.deps
	if len(d.tickets) == 0 {
		return
	}
	t := d.tickets[d.rng.IntN(len(d.tickets))]
	row := &bankRow{n: len(d.rows) + 1, amount: t.amount, reference: "transfer " + strings.ToLower(t.memo) + " thanks", t: t}
	row.ref = fmt.Sprintf("BNK-%d", row.n)
	what := "the exact amount"
	if d.rng.IntN(5) == 0 {
		row.amount, what = t.requested, "without the cents"
	}
	if d.rng.IntN(6) == 0 {
		row.reference, what = "top-up", what+", no memo"
	}
	d.rows = append(d.rows, row)
	d.byRef[row.ref] = row
	w.logf("deposits: r%d pays t%d, %s", row.n, t.n, what)
}

// confirmTicket has an operator confirm a ticket with a transfer: the
// ticket's own, or (one in four) another's, a mistake that still credits
// only what that transfer brought, once.
func (w *World) confirmTicket(ctx context.Context) {
	d := w.deps
	if len(d.rows) == 0 {
		return
	}
	row := d.rows[d.rng.IntN(len(d.rows))]
	t := row.t
	if d.rng.IntN(4) == 0 {
		t = d.tickets[d.rng.IntN(len(d.tickets))]
	}
	op := d.ops[d.rng.IntN(len(d.ops))]
	var received *topupd.Money
	if row.amount != t.amount || d.rng.IntN(3) == 0 {
		received = &row.amount
	}
	got, _, err := untilAnswered(func() (topupd.Deposit, error) { return d.svc.ConfirmDeposit(ctx, op, t.id, row.ref, received) })
	w.logf("deposits: %s confirms t%d with r%d: %s", op.Operator, t.n, row.n, depositResult(got, err))
	if err == nil {
		return
	}
	switch topupd.CodeOf(err) {
	case topupd.EDepositFinal, topupd.ESecondApprovalRequired, topupd.EConfirmationMismatch, topupd.EBankRefUsed:
	default:
		w.fail("confirming t%d with r%d: %v", t.n, row.n, err)
	}
}

// rejectTicket has an operator reject a ticket.
func (w *World) rejectTicket(ctx context.Context) {
	d := w.deps
	if len(d.tickets) == 0 {
		return
	}
	t := d.tickets[d.rng.IntN(len(d.tickets))]
	op := d.ops[d.rng.IntN(len(d.ops))]
	got, _, err := untilAnswered(func() (topupd.Deposit, error) { return d.svc.RejectDeposit(ctx, op, t.id, "no transfer found") })
	w.logf("deposits: %s rejects t%d: %s", op.Operator, t.n, depositResult(got, err))
	if err != nil && topupd.CodeOf(err) != topupd.EDepositFinal {
		w.fail("rejecting t%d: %v", t.n, err)
	}
}

// importStatement has an operator import the bank's statement: some of
// its rows, or (one in four) all of them again.
func (w *World) importStatement(ctx context.Context) error {
	d := w.deps
	var b strings.Builder
	b.WriteString("Amount,Description,Date,Ref\n")
	n := 0
	all := d.rng.IntN(4) == 0
	for _, r := range d.rows {
		if all || d.rng.IntN(2) == 0 {
			fmt.Fprintf(&b, "%s,%s,%s,%s\n", r.amount, r.reference, w.clk.Now().UTC().Format(time.DateOnly), r.ref)
			n++
		}
	}
	op := d.ops[d.rng.IntN(len(d.ops))]
	cols := topupd.BankColumns{Amount: "Amount", Reference: "Description", Date: "Date", BankRef: "Ref"}
	text := b.String()
	got, _, err := untilAnswered(func() (topupd.DepositImport, error) {
		return d.svc.ImportDeposits(ctx, op, cols, strings.NewReader(text))
	})
	if err != nil {
		w.fail("importing a statement of %d rows: %v", n, err)
		return nil
	}
	w.logf("deposits: %s imports %d rows: %d matched, %d not", op.Operator, n, len(got.Matched), len(got.Unmatched))
	return nil
}

// depositResult says a confirmation's or rejection's outcome in the trace.
func depositResult(d topupd.Deposit, err error) string {
	if err != nil {
		return string(topupd.CodeOf(err))
	}
	return d.Status
}

// settleDeposits ends the deposit side once the faults stop: the other
// operator confirms each ticket awaiting a second approval, the whole
// statement is imported once more, and the clock passes every ticket's
// expiry, which the watch then expires.
func (w *World) settleDeposits(ctx context.Context) error {
	d := w.deps
	for _, books := range d.books {
		list, _, err := w.store.Deposits(ctx, topupd.DepositsQuery{AccountID: books, Status: topupd.DepositAwaitingSecond, Limit: 10_000})
		if err != nil {
			return err
		}
		for _, dep := range list {
			op := d.ops[0]
			if dep.First != nil && dep.First.Operator == op.Operator {
				op = d.ops[1]
			}
			got, err := d.svc.ConfirmDeposit(ctx, op, dep.ID, dep.BankRef, nil)
			w.logf("deposits: %s confirms t%d second: %s", op.Operator, d.byID[dep.ID].n, depositResult(got, err))
			if err != nil {
				w.fail("the second confirmation of t%d: %v", d.byID[dep.ID].n, err)
			}
		}
	}
	var b strings.Builder
	b.WriteString("Amount,Description,Date,Ref\n")
	for _, r := range d.rows {
		fmt.Fprintf(&b, "%s,%s,%s,%s\n", r.amount, r.reference, w.clk.Now().UTC().Format(time.DateOnly), r.ref)
	}
	cols := topupd.BankColumns{Amount: "Amount", Reference: "Description", Date: "Date", BankRef: "Ref"}
	got, err := d.svc.ImportDeposits(ctx, d.ops[1], cols, strings.NewReader(b.String()))
	if err != nil {
		w.fail("importing the whole statement: %v", err)
		return nil
	}
	w.logf("deposits: the whole statement, %d rows: %d matched, %d not", len(d.rows), len(got.Matched), len(got.Unmatched))
	w.clk.Advance(time.Hour + time.Minute)
	n, err := w.store.ExpireDeposits(ctx, w.clk.Now())
	if err != nil {
		return err
	}
	w.logf("deposits: an hour on, %d tickets expired", n)
	return w.check(ctx, false, false)
}
