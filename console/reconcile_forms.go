package console

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// The reconciliations page's forms (back-office.md, section 2): reconcile
// with an upstream over a period, by pulling its books or from the
// supplier's file. Each refusal shows the form again with what was typed
// and the refusal beside its field; nothing is stored then.

// reconcilePull reconciles with an upstream over a period from the books
// it answers (service.ReconcilePull), and shows the reconciliation.
func (c *Console) reconcilePull(w http.ResponseWriter, r *http.Request, s *session) error {
	err := c.runPull(w, r, s, r.PathValue("name"))
	return c.formFailed(w, r, s, err, "reconciliations", c.reconsAgain(r, s))
}

// runPull is reconcilePull's work; refusals are fieldErrors.
func (c *Console) runPull(w http.ResponseWriter, r *http.Request, s *session, name string) error {
	p, err := c.reconPeriod(r)
	if err != nil {
		return err
	}
	rec, err := c.Service.ReconcilePull(r.Context(), s.actor, name, p)
	var de *topupd.Error
	if errors.As(err, &de) && (de.Code == topupd.EUpstreamRefused || de.Code == topupd.EUpstreamUnreachable) {
		// The supplier's failure, not ours: say so, with what it answered.
		return pageError{http.StatusBadGateway, fmt.Sprintf("Upstream %s did not answer with its books (%s): %s. Nothing was stored.",
			name, de.Code, de.Detail)}
	} else if err != nil {
		return err
	}
	return c.reconciled(w, r, rec, "pulled from the upstream")
}

// reconcileFile reconciles with an upstream over a period from the
// supplier's file, read by the column names the form gives
// (service.ReconcileCSV), and shows the reconciliation.
func (c *Console) reconcileFile(w http.ResponseWriter, r *http.Request, s *session) error {
	err := c.runFile(w, r, s, r.PathValue("name"))
	return c.formFailed(w, r, s, err, "reconciliations", c.reconsAgain(r, s))
}

// runFile is reconcileFile's work; refusals are fieldErrors.
func (c *Console) runFile(w http.ResponseWriter, r *http.Request, s *session, name string) error {
	if r.MultipartForm != nil && !cleanValues(r.MultipartForm.Value) {
		return pageError{http.StatusBadRequest, badTextMsg}
	}
	p, err := c.reconPeriod(r)
	if err != nil {
		return err
	}
	cols := topupd.CSVColumns{Reference: strings.TrimSpace(r.PostFormValue("reference")), Amount: strings.TrimSpace(r.PostFormValue("amount")),
		Status: strings.TrimSpace(r.PostFormValue("status")), Time: strings.TrimSpace(r.PostFormValue("time"))}
	switch {
	case cols.Reference == "":
		return fieldError{"reference", "Name the file's column that holds the reference (topupd- and our order's id)."}
	case cols.Amount == "":
		return fieldError{"amount", "Name the file's column that holds what they charged."}
	}
	file, head, err := r.FormFile("file")
	if err != nil {
		return fieldError{"file", "Choose the supplier's file: a .csv with a header row, at most 64 MiB."}
	}
	defer file.Close()
	rec, err := c.Service.ReconcileCSV(r.Context(), s.actor, name, p, cols, file)
	if err != nil {
		return fileRefusal(err, head.Filename)
	}
	return c.reconciled(w, r, rec, "from "+head.Filename)
}

// fileRefusal says in plain words why the service refused a supplier's
// file: a row it cannot read beside the file (its detail names the line),
// a column its header lacks beside that column's field.
func fileRefusal(err error, filename string) error {
	var de *topupd.Error
	if !errors.As(err, &de) {
		return err
	}
	switch de.Code {
	case topupd.EInvalidBody:
		return fieldError{"file", fmt.Sprintf("%s was refused, and nothing was stored: %s. Correct the file and send it again.",
			filename, strings.TrimSuffix(de.Detail, "."))}
	case topupd.EInvalidRequest:
		param, why, _ := strings.Cut(de.Detail, ": ")
		switch param {
		case "reference", "amount", "status", "time":
			return fieldError{param, sentence(why)}
		}
		return fieldError{"", sentence(de.Detail)}
	}
	return err
}

// reconciled sends the browser to a new reconciliation's page, saying
// what it found.
func (c *Console) reconciled(w http.ResponseWriter, r *http.Request, rec topupd.Reconciliation, how string) error {
	return c.done(w, r, reconBack(rec.ID), fmt.Sprintf("Reconciled with %s over %s, %s: %d matched, %s.",
		rec.Supplier, recon{rec}.Days(), how, rec.Matched, mismatchesText(len(rec.Mismatches))))
}

// reconPeriod reads a form's period, its first and last days (UTC), as
// topupd.ParseReconPeriod takes it; a refusal is said beside the field
// at fault.
func (c *Console) reconPeriod(r *http.Request) (topupd.ReconPeriod, error) {
	var days [2]time.Time
	for i, f := range []struct{ name, label string }{{"from", "the first day"}, {"to", "the last day"}} {
		v := strings.TrimSpace(r.PostFormValue(f.name))
		d, err := time.Parse(time.DateOnly, v)
		switch {
		case v == "":
			return topupd.ReconPeriod{}, fieldError{f.name, "Enter " + f.label + " of the period, such as 2026-11-24."}
		case err != nil:
			return topupd.ReconPeriod{}, fieldError{f.name, "“" + v + "” is not a day such as 2026-11-24."}
		}
		days[i] = d
	}
	now := c.Now()
	p, err := topupd.ParseReconPeriod(days[0].Format(time.DateOnly), days[1].Format(time.DateOnly), now, topupd.EInvalidBody)
	var de *topupd.Error
	switch today := now.UTC().Truncate(24 * time.Hour); {
	case err == nil:
		return p, nil
	case days[1].Before(days[0]):
		return p, fieldError{"from", "The first day must not be after the last."}
	case days[1].After(today):
		return p, fieldError{"to", "The last day cannot be after today, " + today.Format(time.DateOnly) + " (UTC)."}
	case days[1].Sub(days[0]) >= topupd.MaxReconDays*24*time.Hour:
		return p, fieldError{"to", fmt.Sprintf("A period is at most %d days, both included.", topupd.MaxReconDays)}
	case errors.As(err, &de) && de.Code == topupd.EInvalidBody:
		return p, fieldError{"to", sentence(de.Detail)}
	}
	return p, err
}
