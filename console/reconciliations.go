package console

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/topupd/topupd"
)

// Reconciliations with suppliers (back-office.md, section 2): per
// supplier, its runs with their figures; one run with its mismatch queue;
// closing one. Running one, by pull or from the supplier's file, is in
// reconcile_forms.go.

// reconsShown is how many of a supplier's reconciliations the
// reconciliations page lists, newest first.
const reconsShown = 20

// recon is a reconciliation as the console shows it.
type recon struct{ topupd.Reconciliation }

// Days is its period: "2026-11-24", or "2026-11-01 to 2026-11-30".
func (r recon) Days() string {
	days := r.Period.From.Format(time.DateOnly)
	if !r.Period.To.Equal(r.Period.From) {
		days += " to " + r.Period.To.Format(time.DateOnly)
	}
	return days
}

// SourceText is where their books came from, in words.
func (r recon) SourceText() string {
	if r.Source == topupd.ReconCSV {
		return "their file"
	}
	return "pulled from the upstream"
}

// reconSupplier is one supplier's part of the reconciliations page.
type reconSupplier struct {
	Name string
	// Upstream says it is still an upstream of ours: only then can it be
	// reconciled again.
	Upstream bool
	// Open counts its open mismatches.
	Open int
	Runs []recon
	// More says older runs than those listed are kept.
	More bool
}

// reconsData is the reconciliations page.
type reconsData struct {
	Suppliers []reconSupplier
	// From and To are the days the forms offer: yesterday (UTC), as the
	// nightly run takes it.
	From, To string
}

// reconciliations lists, per supplier (each upstream, and any other
// supplier reconciled once), its runs newest first, with the forms that
// run one (for a role that may).
func (c *Console) reconciliations(w http.ResponseWriter, r *http.Request, s *session) error {
	d, err := c.reconsData(r, s)
	if err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "reconciliations", "Reconciliations", d)
	return nil
}

// reconsData reads the reconciliations page.
func (c *Console) reconsData(r *http.Request, s *session) (reconsData, error) {
	yesterday := c.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	d := reconsData{From: yesterday, To: yesterday}
	ups, err := c.Service.Upstreams(r.Context(), s.actor)
	if err != nil {
		return d, err
	}
	open, err := c.Store.OpenMismatches(r.Context())
	if err != nil {
		return d, err
	}
	isUpstream := map[string]bool{}
	for _, u := range ups {
		isUpstream[u.Name] = true
	}
	var names []string
	for name := range open {
		if !isUpstream[name] {
			names = append(names, name) // reconciled, and no upstream since
		}
	}
	for name := range isUpstream {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		list, err := c.Service.Reconciliations(r.Context(), s.actor, topupd.ReconciliationsQuery{Supplier: name, Limit: reconsShown + 1})
		if err != nil {
			return d, err
		}
		sup := reconSupplier{Name: name, Upstream: isUpstream[name], Open: open[name], More: len(list) > reconsShown}
		for _, rec := range list[:min(len(list), reconsShown)] {
			sup.Runs = append(sup.Runs, recon{rec})
		}
		d.Suppliers = append(d.Suppliers, sup)
	}
	return d, nil
}

// reconsAgain draws the reconciliations page again after a refused form.
func (c *Console) reconsAgain(r *http.Request, s *session) func() (string, any, error) {
	return func() (string, any, error) {
		d, err := c.reconsData(r, s)
		return "Reconciliations", d, err
	}
}

// mismatchRow is one mismatch as the reconciliation's page shows it: its
// State, open or resolved, and its resolution or the form that fixes it
// (reconcile_fix.go).
type mismatchRow struct {
	topupd.Mismatch
	// Fixable says the operator may fix it here: it and its
	// reconciliation are open and the role may reconcile.
	Fixable bool
	// Actions are the fixes its form offers (fixChoices).
	Actions []fixChoice
	// Note is the note typed into its form when a fix was refused;
	// Refusal says why, beside the form.
	Note, Refusal string
}

// kindWords are the mismatches' kinds in words.
var kindWords = map[string]string{
	topupd.MismatchDuplicate:       "Charged more than once",
	topupd.MismatchMissingHere:     "Missing here",
	topupd.MismatchMissingUpstream: "Missing at the supplier",
	topupd.MismatchStatus:          "Statuses differ",
	topupd.MismatchCost:            "Cost differs",
}

// KindText is its kind in words.
func (m mismatchRow) KindText() string {
	if w, ok := kindWords[m.Kind]; ok {
		return w
	}
	return m.Kind
}

// reconData is one reconciliation's page.
type reconData struct {
	R          recon
	Mismatches []mismatchRow
	// Open counts its open mismatches.
	Open int
}

// reconciliation shows one reconciliation: its figures and its mismatch
// queue, with each open mismatch's fix and the Close button for a role
// that may.
func (c *Console) reconciliation(w http.ResponseWriter, r *http.Request, s *session) error {
	return c.reconciliationPage(w, r, s, http.StatusOK, "")
}

// reconciliationPage draws a reconciliation's page with status and, when
// not "", a refusal in words.
func (c *Console) reconciliationPage(w http.ResponseWriter, r *http.Request, s *session, status int, refusal string) error {
	return c.reconPage(w, r, s, status, refusal, fixForm{})
}

// reconPage draws a reconciliation's page with status, a refusal in
// words (when not "") above it, and fix, a refused fix's form (when its
// MID is not 0) with the refusal beside it.
func (c *Console) reconPage(w http.ResponseWriter, r *http.Request, s *session, status int, refusal string, fix fixForm) error {
	rec, err := c.Service.Reconciliation(r.Context(), s.actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	d := reconData{R: recon{rec}}
	for _, m := range rec.Mismatches {
		if m.State == "" {
			m.State = topupd.MismatchOpen // as the domain counts it
		}
		row := mismatchRow{Mismatch: m}
		if m.State == topupd.MismatchOpen {
			d.Open++
			row.Fixable = rec.State == topupd.ReconOpen && s.may(topupd.PermReconcile)
		}
		action := ""
		if fix.MID == m.ID {
			action, row.Note, row.Refusal = fix.Action, fix.Note, fix.Refusal
		}
		if row.Fixable {
			row.Actions = fixChoices(&row.Mismatch, rec.Supplier, action)
		}
		d.Mismatches = append(d.Mismatches, row)
	}
	title := "Reconciliation " + rec.ID
	if refusal == "" {
		c.render(w, r, s, status, "reconciliation", title, d)
		return nil
	}
	c.renderView(w, r, status, "reconciliation", view{Title: title, S: s, Nav: navFor(s, r.URL.Path), Data: d, Error: refusal})
	return nil
}

// reconBack is a reconciliation's page.
func reconBack(id string) string { return "/console/reconciliations/" + url.PathEscape(id) }

// closeReconciliation closes a reconciliation, once the operator confirms
// it (closed is final). While a mismatch is open the service refuses it
// (MISMATCHES_OPEN), without a question first, and the page says so.
func (c *Console) closeReconciliation(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	rec, err := c.Service.Reconciliation(r.Context(), s.actor, id)
	if err != nil {
		return err
	}
	open := openMismatches(rec)
	q := fmt.Sprintf("Close reconciliation %s with %s (%s)? A closed reconciliation is final.", id, rec.Supplier, recon{rec}.Days())
	if rec.State == topupd.ReconOpen && open == 0 && !c.confirmed(w, r, s, q, reconBack(id)) {
		return nil
	}
	_, err = c.Service.CloseReconciliation(r.Context(), s.actor, id)
	var de *topupd.Error
	switch {
	case err == nil:
		return c.done(w, r, reconBack(id), "Reconciliation "+id+" is closed.")
	case !errors.As(err, &de):
		return err
	case de.Code == topupd.EMismatchesOpen:
		return c.reconciliationPage(w, r, s, c.StatusOf(err), fmt.Sprintf("Reconciliation %s cannot be closed while a mismatch is open, and it has %s open: nothing was changed.",
			id, mismatchesText(open)))
	case de.Code == topupd.EReconciliationClosed:
		return c.reconciliationPage(w, r, s, c.StatusOf(err), "Reconciliation "+id+" was closed already: closing is final.")
	}
	return err
}

// mismatchesText counts mismatches in words: "1 mismatch", "3 mismatches".
func mismatchesText(n int) string {
	if n == 1 {
		return "1 mismatch"
	}
	return strconv.Itoa(n) + " mismatches"
}

// openMismatches counts a reconciliation's open mismatches.
func openMismatches(rec topupd.Reconciliation) int {
	n := 0
	for _, m := range rec.Mismatches {
		if m.State != topupd.MismatchResolved {
			n++
		}
	}
	return n
}
