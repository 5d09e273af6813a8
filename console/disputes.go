package console

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/topupd/topupd"
)

// The Disputes queue (back-office.md, section 5): the live open disputes,
// the most urgent (earliest due) first, overdue ones marked; then the
// newest resolved ones. Each shows its codes masked and its supplier
// claim, with the claim's form for a role that may set it (the form is in
// disputes_forms.go). Resolving a dispute is not built yet.

// disputesPath is the queue's page.
const disputesPath = "/console/disputes"

// disputeRow is a dispute as the Disputes page shows it.
type disputeRow struct {
	topupd.Dispute
	// Name is its account's name ("" when unknown).
	Name string
	// Masked are its codes masked as delivered codes are (topupd.MaskCodes).
	Masked []string
	// Late says it is open past its dueAt.
	Late bool
	// Editable says the signed-in operator may set its supplier claim.
	Editable bool
}

// disputeReasonWords are the reasons in words.
var disputeReasonWords = map[string]string{
	"code_invalid":     "code invalid",
	"code_used":        "code already used",
	"wrong_region":     "wrong region",
	"not_credited":     "not credited",
	"duplicate_charge": "duplicate charge",
	"other":            "other",
}

// ReasonText is its reason in words.
func (d disputeRow) ReasonText() string {
	if w, ok := disputeReasonWords[d.Reason]; ok {
		return w
	}
	return d.Reason
}

// States are a supplier claim's states, as the claim's form offers them.
func (d disputeRow) States() []string { return claimStates }

// disputeLine is what the dispute-row template draws: a row, and the
// page's view for its form (what was typed, the refusals, the CSRF token).
type disputeLine struct {
	Row disputeRow
	V   view
}

// disputesData is the Disputes page.
type disputesData struct {
	// Queue are the open disputes, earliest due first; Overdue and OnTime
	// count them all, More those not listed.
	Queue                 []disputeRow
	Overdue, OnTime, More int
	// Recent are the newest resolved disputes; MoreRecent says older ones
	// are kept.
	Recent     []disputeRow
	MoreRecent bool
}

// Open counts the open disputes.
func (d disputesData) Open() int { return d.Overdue + d.OnTime }

// disputes shows the Disputes page.
func (c *Console) disputes(w http.ResponseWriter, r *http.Request, s *session) error {
	d, err := c.disputesData(r, s)
	if err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "disputes", "Disputes", d)
	return nil
}

// disputesAgain draws the Disputes page again after a refused form.
func (c *Console) disputesAgain(r *http.Request, s *session) func() (string, any, error) {
	return func() (string, any, error) {
		d, err := c.disputesData(r, s)
		return "Disputes", d, err
	}
}

// disputesData reads the Disputes page: the overdue open disputes and the
// newest open ones, merged and sorted by dueAt, so that the overdue ones
// are listed however many are open.
func (c *Console) disputesData(r *http.Request, s *session) (disputesData, error) {
	ctx := r.Context()
	var d disputesData
	var err error
	now := c.Now()
	if d.Overdue, d.OnTime, err = c.Store.OpenDisputes(ctx, now); err != nil {
		return d, err
	}
	late, err := c.Service.Disputes(ctx, s.actor, topupd.DisputesQuery{Status: topupd.DisputeOpen, Overdue: true, Limit: queueShown})
	if err != nil {
		return d, err
	}
	newest, err := c.Service.Disputes(ctx, s.actor, topupd.DisputesQuery{Status: topupd.DisputeOpen, Limit: queueShown})
	if err != nil {
		return d, err
	}
	queue := late
	for _, n := range newest {
		if !slices.ContainsFunc(queue, func(q topupd.Dispute) bool { return q.ID == n.ID }) {
			queue = append(queue, n)
		}
	}
	slices.SortFunc(queue, func(a, b topupd.Dispute) int { return cmp.Or(a.DueAt.Compare(b.DueAt), cmp.Compare(a.Seq, b.Seq)) })
	queue = queue[:min(len(queue), queueShown)]
	recent, err := c.Service.Disputes(ctx, s.actor, topupd.DisputesQuery{Status: topupd.DisputeResolved, Limit: recentShown + 1})
	if err != nil {
		return d, err
	}
	d.MoreRecent = len(recent) > recentShown
	recent = recent[:min(len(recent), recentShown)]
	var ids []string
	for _, dsp := range append(slices.Clone(queue), recent...) {
		ids = append(ids, dsp.AccountID)
	}
	names, err := c.Service.AccountNames(ctx, s.actor, ids)
	if err != nil {
		return d, err
	}
	row := func(dsp topupd.Dispute) disputeRow {
		return disputeRow{Dispute: dsp, Name: names[dsp.AccountID], Masked: topupd.MaskCodes(dsp.Codes), Late: dsp.Overdue(now),
			Editable: s.may(topupd.PermDisputes)}
	}
	for _, dsp := range queue {
		d.Queue = append(d.Queue, row(dsp))
	}
	d.More = max(0, d.Overdue+d.OnTime-len(d.Queue))
	for _, dsp := range recent {
		d.Recent = append(d.Recent, row(dsp))
	}
	return d, nil
}
