package console

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/topupd/topupd"
)

// The Deposits queue (back-office.md, section 3): the live tickets
// pending or awaiting a second approval, oldest first, each with its
// Confirm and Reject forms for a role that may credit; the statement
// import; and the newest final tickets below. The forms are in
// deposits_forms.go.

// depositsPath is the queue's page.
const depositsPath = "/console/deposits"

// queueShown is how many open tickets the queue lists, oldest first;
// recentShown how many final ones it lists below, newest first.
const (
	queueShown  = 100
	recentShown = 20
)

// depositRow is a ticket as the Deposits page shows it.
type depositRow struct {
	topupd.Deposit
	// Name is its account's name ("" when unknown).
	Name string
	// Late says a pending ticket is past its expiresAt, not yet swept:
	// it cannot be confirmed.
	Late bool
	// Confirmable and Rejectable say the signed-in operator may confirm
	// or reject it here; FirstMine that they gave its first confirmation
	// (so another operator gives the second).
	Confirmable, Rejectable, FirstMine bool
}

// Credit is what a confirmation credits, or credited: what was received
// when it was named, else the amount to transfer.
func (d depositRow) Credit() topupd.Money {
	switch {
	case d.Credited != nil:
		return *d.Credited
	case d.Received != nil:
		return *d.Received
	}
	return d.Amount
}

// depositStatusWords are the statuses in words.
var depositStatusWords = map[string]string{
	topupd.DepositPending:        "pending",
	topupd.DepositAwaitingSecond: "awaiting a second confirmation",
	topupd.DepositConfirmed:      "confirmed",
	topupd.DepositRejected:       "rejected",
	topupd.DepositExpired:        "expired",
}

// StatusText is its status in words.
func (d depositRow) StatusText() string {
	if w, ok := depositStatusWords[d.Status]; ok {
		return w
	}
	return d.Status
}

// StatusBadge is its status's badge class.
func (d depositRow) StatusBadge() string {
	switch d.Status {
	case topupd.DepositConfirmed:
		return "ok"
	case topupd.DepositRejected, topupd.DepositExpired:
		return "cancelled"
	case topupd.DepositAwaitingSecond:
		return "alert"
	}
	return "processing"
}

// depositsData is the Deposits page.
type depositsData struct {
	// Queue are the open tickets, oldest first; Open counts them all
	// (pending and awaiting a second approval), More those not listed.
	Queue                 []depositRow
	Open, Pending, Second int
	More                  int
	// Recent are the newest confirmed, rejected and expired tickets;
	// MoreRecent says older ones are kept.
	Recent     []depositRow
	MoreRecent bool
	// Above is the credit above which a second operator confirms; NoBank
	// says resellers cannot open tickets (no deposit bank is set).
	Above  topupd.Money
	NoBank bool
	// Import is a statement's import just made, shown above the queue.
	Import *importResult
}

// deposits shows the Deposits page.
func (c *Console) deposits(w http.ResponseWriter, r *http.Request, s *session) error {
	d, err := c.depositsData(r, s)
	if err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "deposits", "Deposits", d)
	return nil
}

// depositsAgain draws the Deposits page again after a refused form.
func (c *Console) depositsAgain(r *http.Request, s *session) func() (string, any, error) {
	return func() (string, any, error) {
		d, err := c.depositsData(r, s)
		return "Deposits", d, err
	}
}

// depositsData reads the Deposits page: the queue is the oldest of the
// pending tickets and of those awaiting a second approval, merged.
func (c *Console) depositsData(r *http.Request, s *session) (depositsData, error) {
	ctx := r.Context()
	var d depositsData
	st, err := c.Service.Settings(ctx, s.actor)
	if err != nil {
		return d, err
	}
	d.Above, d.NoBank = st.DepositSecondApprovalAbove, st.DepositBank == nil
	open, err := c.Store.OpenDeposits(ctx)
	if err != nil {
		return d, err
	}
	d.Pending, d.Second = open[topupd.DepositPending], open[topupd.DepositAwaitingSecond]
	d.Open = d.Pending + d.Second
	queue, err := c.depositsOf(r, s, true, queueShown, topupd.DepositPending, topupd.DepositAwaitingSecond)
	if err != nil {
		return d, err
	}
	recent, err := c.depositsOf(r, s, false, recentShown+1, topupd.DepositConfirmed, topupd.DepositRejected, topupd.DepositExpired)
	if err != nil {
		return d, err
	}
	d.MoreRecent = len(recent) > recentShown
	recent = recent[:min(len(recent), recentShown)]
	var ids []string
	for _, dep := range append(queue, recent...) {
		ids = append(ids, dep.AccountID)
	}
	names, err := c.Service.AccountNames(ctx, s.actor, ids)
	if err != nil {
		return d, err
	}
	now := c.Now()
	for _, dep := range queue {
		row := depositRow{Deposit: dep, Name: names[dep.AccountID]}
		row.Late = dep.Status == topupd.DepositPending && !dep.ExpiresAt.After(now)
		row.FirstMine = dep.First != nil && dep.First.Operator == s.op.Name
		row.Rejectable = s.may(topupd.PermCredit)
		row.Confirmable = row.Rejectable && !row.Late && !row.FirstMine
		d.Queue = append(d.Queue, row)
	}
	d.More = max(0, d.Open-len(d.Queue))
	for _, dep := range recent {
		d.Recent = append(d.Recent, depositRow{Deposit: dep, Name: names[dep.AccountID]})
	}
	return d, nil
}

// depositsOf reads the live tickets of the statuses, at most limit:
// oldest first, or newest first.
func (c *Console) depositsOf(r *http.Request, s *session, oldest bool, limit int, statuses ...string) ([]topupd.Deposit, error) {
	var all []topupd.Deposit
	for _, st := range statuses {
		list, err := c.Service.Deposits(r.Context(), s.actor, topupd.DepositsQuery{Status: st, Oldest: oldest, Limit: limit})
		if err != nil {
			return nil, err
		}
		all = append(all, list...)
	}
	slices.SortFunc(all, func(a, b topupd.Deposit) int {
		if oldest {
			return cmp.Compare(a.Seq, b.Seq)
		}
		return cmp.Compare(b.Seq, a.Seq)
	})
	return all[:min(len(all), limit)], nil
}

// depositsBadge counts the open tickets beside the menu's Deposits entry.
// A count that cannot be read leaves the entry bare, logged, rather than
// failing the page.
func (c *Console) depositsBadge(r *http.Request, v *view) {
	i := slices.IndexFunc(v.Nav, func(l navLink) bool { return l.Path == depositsPath })
	if i < 0 {
		return
	}
	open, err := c.Store.OpenDeposits(r.Context())
	if err != nil {
		c.Logger.WarnContext(r.Context(), "console: counting the open deposits for the menu", "err", err)
		return
	}
	v.Nav[i].Count = open[topupd.DepositPending] + open[topupd.DepositAwaitingSecond]
}
