package console

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/topupd/topupd"
)

// Importing a bank statement on the Deposits page (back-office.md,
// section 3): the file and the names of its columns, as the admin API's
// import takes them (service.ImportDeposits); the answer is the page with
// the rows matched and unmatched, and the queue as it is after them.

// importShown is how many matched, and how many unmatched, rows of an
// import the page lists.
const importShown = 200

// importColumns are the import form's column fields, each with the
// service's name for it and what it holds, in words.
var importColumns = []struct{ field, param, holds string }{
	{"amountColumn", "amount", "the amount received"},
	{"referenceColumn", "reference", "the transfer's description, with the ticket's memo"},
	{"dateColumn", "date", "the transfer's date"},
	{"bankRefColumn", "bankRef", "the bank's reference of the transfer"},
}

// importResult is an import as the page shows it.
type importResult struct {
	// File is the statement's file name.
	File string
	// Matched and Unmatched are the rows listed (importShown of each at
	// most); MatchedN and UnmatchedN count them all, Credited and
	// Awaiting the matched by what they did.
	Matched               []importMatch
	Unmatched             []importMiss
	MatchedN, UnmatchedN  int
	Credited, AwaitingTwo int
}

// importMiss is an unmatched row as the page shows it.
type importMiss struct{ topupd.ImportMiss }

// whyWords are the reasons a row matched no ticket, in words.
var whyWords = map[string]string{
	topupd.WhyNoTicket:      "no pending ticket has its memo and exactly its amount, opened on or before its date",
	topupd.WhyBankRefUsed:   "its bank reference confirmed a deposit already",
	topupd.WhyTicketPending: "its ticket is no longer pending (awaiting a second confirmation, confirmed, rejected or expired)",
}

// WhyText is why the row matched no ticket, in words.
func (m importMiss) WhyText() string {
	if w, ok := whyWords[m.Why]; ok {
		return w
	}
	return m.Why
}

// importMatch is a matched row as the page shows it.
type importMatch struct{ topupd.ImportMatch }

// ResultText is what the row did to its ticket, in words.
func (m importMatch) ResultText() string {
	if m.Status == topupd.DepositAwaitingSecond {
		return "first confirmation given: it awaits another operator's"
	}
	return "credited"
}

// importStatement imports a bank statement from the page's form.
func (c *Console) importStatement(w http.ResponseWriter, r *http.Request, s *session) error {
	err := c.runImport(w, r, s)
	return c.formFailed(w, r, s, err, "deposits", c.depositsAgain(r, s))
}

// runImport is importStatement's work; refusals are fieldErrors.
func (c *Console) runImport(w http.ResponseWriter, r *http.Request, s *session) error {
	if r.MultipartForm != nil && !cleanValues(r.MultipartForm.Value) {
		return pageError{http.StatusBadRequest, badTextMsg}
	}
	var names [4]string
	for i, col := range importColumns {
		names[i] = strings.TrimSpace(r.PostFormValue(col.field))
		if names[i] == "" {
			return fieldError{col.field, "Name the statement's column that holds " + col.holds + "."}
		}
	}
	cols := topupd.BankColumns{Amount: names[0], Reference: names[1], Date: names[2], BankRef: names[3]}
	file, head, err := r.FormFile("file")
	if err != nil {
		return fieldError{"file", "Choose the bank statement: a .csv with a header row, at most 64 MiB."}
	}
	defer file.Close()
	res, err := c.Service.ImportDeposits(r.Context(), s.actor, cols, file)
	if err != nil {
		return statementRefusal(err, head.Filename)
	}
	d, err := c.depositsData(r, s)
	if err != nil {
		return err
	}
	imp := &importResult{File: head.Filename, MatchedN: len(res.Matched), UnmatchedN: len(res.Unmatched)}
	for i, m := range res.Matched {
		if m.Status == topupd.DepositAwaitingSecond {
			imp.AwaitingTwo++
		} else {
			imp.Credited++
		}
		if i < importShown {
			imp.Matched = append(imp.Matched, importMatch{m})
		}
	}
	for _, m := range res.Unmatched[:min(len(res.Unmatched), importShown)] {
		imp.Unmatched = append(imp.Unmatched, importMiss{m})
	}
	d.Import = imp
	c.render(w, r, s, http.StatusOK, "deposits", "Deposits", d)
	return nil
}

// statementRefusal says in plain words why the service refused a bank
// statement: a row it cannot read beside the file (its detail names the
// line), a column its header lacks beside that column's field.
func statementRefusal(err error, filename string) error {
	var de *topupd.Error
	if !errors.As(err, &de) {
		return err
	}
	switch de.Code {
	case topupd.EInvalidBody:
		return fieldError{"file", fmt.Sprintf("%s was refused, and nothing was confirmed: %s. Correct the file and send it again.",
			filename, strings.TrimSuffix(de.Detail, "."))}
	case topupd.EInvalidRequest:
		param, why, _ := strings.Cut(de.Detail, ": ")
		for _, col := range importColumns {
			if col.param == param {
				return fieldError{col.field, sentence(why)}
			}
		}
		return fieldError{"", sentence(de.Detail)}
	}
	return err
}
