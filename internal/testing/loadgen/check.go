package loadgen

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// LedgerLimit is the most entries one ledger read asks for (the admin API's maximum).
const LedgerLimit = 100_000

// The invariants the checker proves on the books, in report order.
const (
	CheckLedgerSums     = "ledger-sums-to-balance"
	CheckNoNegative     = "no-negative-balance"
	CheckOneCharge      = "one-charge-per-order"
	CheckRefundedOnce   = "refunded-exactly-once"
	CheckRefundCancel   = "refund-only-when-cancelled"
	CheckCodeOnce       = "code-delivered-once"
	CheckKeyCodes       = "key-orders-have-their-codes"
	CheckOrdersFinal    = "orders-final"
	CheckConfirmedKept  = "confirmed-orders-kept"
	CheckReplays        = "idempotent-replays"
	CheckFinalStable    = "final-status-stable"
	CheckAuditPrefix    = "audit:"
	maxExamples         = 5
	defaultCheckWorkers = 16
)

// checkNames are the checker's own invariants, each always reported.
var checkNames = []string{CheckLedgerSums, CheckNoNegative, CheckOneCharge, CheckRefundedOnce, CheckRefundCancel,
	CheckCodeOnce, CheckKeyCodes, CheckOrdersFinal, CheckConfirmedKept}

// Check is the verdict on one invariant.
type Check struct {
	Name       string   `json:"name"`
	OK         bool     `json:"ok"`
	Violations int      `json:"violations"`
	Examples   []string `json:"examples,omitempty"`
	Skipped    bool     `json:"skipped,omitempty"`
	Note       string   `json:"note,omitempty"`
}

// KnownOrder is an order as the generator's client last saw it: the
// checker proves the books agree with what the client was told.
type KnownOrder struct {
	OrderID   string   `json:"orderId"`
	AccountID string   `json:"accountId"`
	TrxID     string   `json:"trxid"`
	PID       string   `json:"pid"`
	Quantity  int      `json:"quantity"`
	Status    string   `json:"status"`
	Codes     []string `json:"codes,omitempty"`
}

// Checker checks the books of some accounts through the admin API, on its
// own: it needs only the admin API, the account ids and, optionally, the
// orders the client saw.
type Checker struct {
	Admin    *client.Admin
	Accounts []string
	// Known are the orders the client got a confirmed answer for.
	Known []KnownOrder
	// WaitFinal is how long to wait for the accounts' processing orders to
	// end before checking (0: do not wait).
	WaitFinal time.Duration
	// Workers is how many admin calls run at once (16 when 0).
	Workers int
	// Log, when set, receives a line about each step.
	Log io.Writer
}

// CheckReport is the checker's verdict.
type CheckReport struct {
	OK            bool     `json:"ok"`
	Checks        []Check  `json:"checks"`
	Notes         []string `json:"notes,omitempty"`
	Accounts      int      `json:"accounts"`
	Orders        int      `json:"orders"`
	LedgerEntries int      `json:"ledgerEntries"`
	Codes         int      `json:"codes"`
	AuditRan      bool     `json:"auditRan"`
}

// Failed lists the checks that failed, with their first example.
func (r *CheckReport) Failed() []string {
	var out []string
	for _, c := range r.Checks {
		if !c.OK && !c.Skipped {
			s := fmt.Sprintf("%s: %d violation(s)", c.Name, c.Violations)
			if len(c.Examples) > 0 {
				s += ", e.g. " + c.Examples[0]
			}
			out = append(out, s)
		}
	}
	return out
}

// Add appends a check and updates OK.
func (r *CheckReport) Add(c Check) {
	c.OK = c.Violations == 0
	r.Checks = append(r.Checks, c)
	r.OK = r.OK && (c.OK || c.Skipped)
}

// violations collects violations by check, safely from many goroutines.
type violations struct {
	mu sync.Mutex
	m  map[string]*Check
}

func (v *violations) add(name, format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	c := v.m[name]
	if c == nil {
		c = &Check{Name: name}
		v.m[name] = c
	}
	c.Violations++
	if len(c.Examples) < maxExamples {
		c.Examples = append(c.Examples, fmt.Sprintf(format, args...))
	}
}

// forEach runs fn on every item with at most n at once and returns the
// first error.
func forEach[T any](ctx context.Context, n int, items []T, fn func(ctx context.Context, item T) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, max(1, n))
	var wg sync.WaitGroup
	for _, it := range items {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fn(ctx, it); err != nil {
				cancel(err)
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && err != context.Canceled {
		return err
	}
	return ctx.Err()
}

func (c *Checker) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}

// ledgerFacts are what the ledgers say about one order.
type ledgerFacts struct {
	account string
	charges []client.Money
	refunds []client.Money
}

// Check proves the invariants. An error means the books could not be read
// (the admin API failed); a broken invariant is a failed Check in the report.
func (c *Checker) Check(ctx context.Context) (*CheckReport, error) {
	rep := &CheckReport{OK: true, Accounts: len(c.Accounts)}
	v := &violations{m: map[string]*Check{}}
	ours := make(map[string]bool, len(c.Accounts))
	for _, id := range c.Accounts {
		ours[id] = true
	}
	workers := c.Workers
	if workers <= 0 {
		workers = defaultCheckWorkers
	}

	// Every order must end: wait for the accounts' processing orders.
	if note, err := c.waitFinal(ctx, ours, v); err != nil {
		return nil, err
	} else if note != "" {
		rep.Notes = append(rep.Notes, note)
	}

	// Which packs draw from stock, so their completed orders must carry codes.
	stocked, err := c.stockedPIDs(ctx)
	if err != nil {
		return nil, err
	}

	// Every ledger sums to its balance, and no balance is negative.
	facts := map[string]*ledgerFacts{}
	var factsMu sync.Mutex
	err = forEach(ctx, workers, c.Accounts, func(ctx context.Context, id string) error {
		acct, err := c.Admin.Account(ctx, id)
		if err != nil {
			return err
		}
		entries, err := c.Admin.Ledger(ctx, id, LedgerLimit)
		if err != nil {
			return err
		}
		checkLedger(id, acct.BalanceUSD, entries, v)
		factsMu.Lock()
		defer factsMu.Unlock()
		rep.LedgerEntries += len(entries)
		for _, e := range entries {
			if e.OrderID == "" {
				continue
			}
			f := facts[e.OrderID]
			if f == nil {
				f = &ledgerFacts{account: id}
				facts[e.OrderID] = f
			}
			if f.account != id {
				v.add(CheckOneCharge, "order %s has entries in accounts %s and %s", e.OrderID, f.account, id)
			}
			switch e.Kind {
			case string(topupd.EntryCharge):
				f.charges = append(f.charges, e.AmountUSD)
			case string(topupd.EntryRefund):
				f.refunds = append(f.refunds, e.AmountUSD)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the ledgers: %w", err)
	}
	c.logf("checked %d ledgers (%d entries)", len(c.Accounts), rep.LedgerEntries)

	// Every order the ledgers or the client know of.
	known := map[string]KnownOrder{}
	for _, k := range c.Known {
		known[k.OrderID] = k
	}
	ids := make([]string, 0, len(facts)+len(known))
	for id := range facts {
		ids = append(ids, id)
	}
	for id := range known {
		if facts[id] == nil {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	orders := make(map[string]*client.AdminOrder, len(ids))
	var ordersMu sync.Mutex
	err = forEach(ctx, workers, ids, func(ctx context.Context, id string) error {
		o, err := c.Admin.Order(ctx, id)
		if client.StatusCode(err) == http.StatusNotFound {
			v.add(CheckConfirmedKept, "order %s is gone (404)", id)
			return nil
		}
		if err != nil {
			return err
		}
		if len(o.Codes) > 0 {
			// The order shows its codes masked: the checks compare them in
			// full, read as the owner (each read is in the action log).
			if o.Codes, err = c.Admin.OrderCodes(ctx, id); err != nil {
				return fmt.Errorf("the codes of order %s: %w", id, err)
			}
		}
		ordersMu.Lock()
		orders[id] = &o
		ordersMu.Unlock()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the orders: %w", err)
	}
	rep.Orders = len(orders)
	c.logf("checked %d orders", len(orders))

	codes := map[string]string{} // code -> the order it went to
	for _, id := range ids {
		o := orders[id]
		if o == nil {
			continue
		}
		f := facts[id]
		if f == nil {
			f = &ledgerFacts{account: o.AccountID}
		}
		checkOrder(o, f, ours, stocked, codes, v)
		if k, ok := known[id]; ok {
			checkKnown(k, o, v)
		}
	}
	rep.Codes = len(codes)

	for _, name := range checkNames {
		ch := Check{Name: name}
		if got := v.m[name]; got != nil {
			ch = *got
		}
		rep.Add(ch)
	}

	// The server's own audit over every account, when it has one.
	au, err := c.Admin.Audit(ctx)
	found := client.StatusCode(err) != http.StatusNotFound
	if !found {
		err = nil
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("GET /admin/audit: %w", err)
	case !found:
		rep.Notes = append(rep.Notes, "GET /admin/audit answered 404: the server has no audit endpoint, skipped")
		rep.Add(Check{Name: CheckAuditPrefix + "*", Skipped: true, Note: "GET /admin/audit is 404 on this server"})
	default:
		rep.AuditRan = true
		for _, ac := range au.Checks {
			n := ac.Violations
			if !ac.OK && n == 0 {
				n = 1
			}
			rep.Add(Check{Name: CheckAuditPrefix + ac.Name, Violations: n, Examples: ac.Examples})
		}
		if !au.Success {
			bad := false
			for _, ac := range au.Checks {
				bad = bad || !ac.OK || ac.Violations > 0
			}
			if !bad {
				rep.Add(Check{Name: CheckAuditPrefix + "success", Violations: 1, Examples: []string{"GET /admin/audit answered success false"}})
			}
		}
	}
	return rep, nil
}

// waitFinal waits until none of our accounts has a processing order, up to
// WaitFinal; what is still processing then is a violation.
func (c *Checker) waitFinal(ctx context.Context, ours map[string]bool, v *violations) (string, error) {
	start := time.Now()
	deadline := start.Add(c.WaitFinal)
	first, firstFull := -1, false
	for {
		page, err := c.Admin.Orders(ctx, client.AdminOrdersQuery{Status: string(client.StatusProcessing), Limit: 500})
		list := page.Orders
		if err != nil {
			return "", fmt.Errorf("GET /admin/orders?status=processing: %w", err)
		}
		var mine []client.AdminOrder
		for _, o := range list {
			if ours[o.AccountID] {
				mine = append(mine, o)
			}
		}
		if first < 0 {
			first, firstFull = len(mine), len(list) >= 500
		}
		if len(mine) == 0 {
			if first == 0 {
				return "", nil
			}
			more := ""
			if firstFull {
				more = "at least " // one page of the admin list holds 500
			}
			return fmt.Sprintf("waited %.1fs for %s%d processing order(s) to end", time.Since(start).Seconds(), more, first), nil
		}
		if !time.Now().Before(deadline) {
			for _, o := range mine {
				v.add(CheckOrdersFinal, "order %s of %s still processing after %v", o.OrderID, o.AccountID, c.WaitFinal)
			}
			return "", nil
		}
		select {
		case <-time.After(250 * time.Millisecond):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// stockedPIDs lists the packs that draw from stock: those of gamekey and
// giftcard lines, and stock-based ones.
func (c *Checker) stockedPIDs(ctx context.Context) (map[string]bool, error) {
	lines, err := c.Admin.Services(ctx)
	if err != nil {
		return nil, err
	}
	packs, err := c.Admin.Products(ctx)
	if err != nil {
		return nil, err
	}
	kind := map[string]string{}
	for _, l := range lines {
		kind[l.Slug] = l.Kind
	}
	out := map[string]bool{}
	for _, p := range packs {
		k := kind[p.Slug]
		out[p.PID] = p.StockBased || k == string(topupd.KindGamekey) || k == string(topupd.KindGiftcard)
	}
	return out, nil
}

// checkLedger proves one account's ledger: newest first, it must chain
// (each entry's balance after is the one before plus its amount), sum to the
// balance, and never go below zero.
func checkLedger(id string, balance client.Money, entries []client.LedgerEntry, v *violations) {
	if len(entries) >= LedgerLimit {
		v.add(CheckLedgerSums, "account %s: the ledger has %d entries or more, too many to sum through the admin API", id, LedgerLimit)
		return
	}
	if balance < 0 {
		v.add(CheckNoNegative, "account %s: balance %s", id, balance)
	}
	var sum client.Money
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		sum += e.AmountUSD
		if e.BalanceAfterUSD != sum {
			v.add(CheckLedgerSums, "account %s: entry %s says balance after %s, the entries up to it sum to %s", id, e.ID, e.BalanceAfterUSD, sum)
		}
		if e.BalanceAfterUSD < 0 {
			v.add(CheckNoNegative, "account %s: entry %s leaves %s", id, e.ID, e.BalanceAfterUSD)
		}
		switch e.Kind {
		case string(topupd.EntryCharge), string(topupd.EntryRefund):
			if e.OrderID == "" {
				v.add(CheckOneCharge, "account %s: %s entry %s names no order", id, e.Kind, e.ID)
			}
		}
	}
	if sum != balance {
		v.add(CheckLedgerSums, "account %s: the ledger sums to %s, the balance is %s", id, sum, balance)
	}
}

// checkOrder proves one order against its ledger entries.
func checkOrder(o *client.AdminOrder, f *ledgerFacts, ours, stocked map[string]bool, codes map[string]string, v *violations) {
	id := o.OrderID
	if !ours[o.AccountID] || o.AccountID != f.account {
		v.add(CheckOneCharge, "order %s belongs to %s but its entries are in %s", id, o.AccountID, f.account)
	}
	final := o.Status.Final()
	if !final {
		v.add(CheckOrdersFinal, "order %s is %s", id, o.Status)
	}
	if len(f.charges) != 1 {
		v.add(CheckOneCharge, "order %s has %d charge entries", id, len(f.charges))
	} else if f.charges[0] != -o.AmountUSD {
		v.add(CheckOneCharge, "order %s costs %s but was charged %s", id, o.AmountUSD, -f.charges[0])
	}
	refunded := o.Refunded
	want := 0
	if refunded {
		want = 1
	}
	if len(f.refunds) != want {
		v.add(CheckRefundedOnce, "order %s (%s, refunded %v) has %d refund entries", id, o.Status, refunded, len(f.refunds))
	}
	for _, r := range f.refunds {
		if r != o.AmountUSD {
			v.add(CheckRefundedOnce, "order %s costs %s but was refunded %s", id, o.AmountUSD, r)
		}
	}
	if (refunded || len(f.refunds) > 0) && o.Status != client.StatusCancelled {
		v.add(CheckRefundCancel, "order %s is %s yet refunded", id, o.Status)
	}
	if o.Status == client.StatusCompleted && stocked[o.PID] && len(o.Codes) != o.Quantity {
		v.add(CheckKeyCodes, "order %s of %d × %s carries %d codes", id, o.Quantity, o.PID, len(o.Codes))
	}
	if o.Status != client.StatusCompleted && len(o.Codes) > 0 {
		v.add(CheckKeyCodes, "order %s is %s yet carries %d codes", id, o.Status, len(o.Codes))
	}
	seen := map[string]bool{}
	for _, code := range o.Codes {
		if seen[code] {
			v.add(CheckCodeOnce, "code %s appears twice in order %s", code, id)
			continue
		}
		seen[code] = true
		if other, dup := codes[code]; dup {
			v.add(CheckCodeOnce, "code %s delivered to orders %s and %s", code, other, id)
			continue
		}
		codes[code] = id
	}
}

// checkKnown proves that what the client was told still holds: the order
// exists in its account, a final status never changed, and the codes the
// client received are the order's.
func checkKnown(k KnownOrder, o *client.AdminOrder, v *violations) {
	if k.AccountID != "" && k.AccountID != o.AccountID {
		v.add(CheckConfirmedKept, "order %s was confirmed to account %s but belongs to %s", k.OrderID, k.AccountID, o.AccountID)
	}
	if k.TrxID != "" && k.TrxID != o.TrxID {
		v.add(CheckConfirmedKept, "order %s was confirmed for trxid %s but carries %s", k.OrderID, k.TrxID, o.TrxID)
	}
	if (k.Status == "completed" || k.Status == "cancelled") && k.Status != string(o.Status) {
		v.add(CheckConfirmedKept, "order %s was %s to the client, the books say %s", k.OrderID, k.Status, o.Status)
	}
	if len(k.Codes) > 0 {
		a, b := slices.Clone(k.Codes), slices.Clone(o.Codes)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			v.add(CheckConfirmedKept, "order %s: the client received %d codes, the books hold %d others", k.OrderID, len(a), len(b))
		}
	}
}
