package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/topupd/topupd"
)

// pastedCodes reads the codes pasted into a text box, one a line, as an
// uploaded file's lines are read (codeOf): the first column of a CSV line,
// blank lines and a "code" header skipped.
func pastedCodes(text string) []string {
	var codes []string
	for _, line := range strings.Split(text, "\n") {
		if code := codeOf(line); code != "" {
			codes = append(codes, code)
		}
	}
	return codes
}

// pasteStock adds the codes pasted into the stock page's text box to a
// pack's stock, in one batch with the form's cost and note, through the
// same service call as a file upload (duplicates are counted, not added).
// A refused box or cost shows the form again with what was typed.
func (c *Console) pasteStock(w http.ResponseWriter, r *http.Request, s *session) error {
	err := c.pasteCodes(w, r, s)
	return c.formFailed(w, r, s, err, "stock", func() (string, any, error) {
		d, err := c.stockPage(r, s)
		return "Stock", d, err
	})
}

// pasteCodes is pasteStock's work; refusals are fieldErrors.
func (c *Console) pasteCodes(w http.ResponseWriter, r *http.Request, s *session) error {
	pid := r.PostFormValue("pid")
	codes := pastedCodes(r.PostFormValue("codes"))
	if len(codes) == 0 {
		return fieldError{"codes", "Paste at least one code, one a line."}
	}
	for i, code := range codes {
		if len(code) > 1000 {
			return fieldError{"codes", "Code " + strconv.Itoa(i+1) + " (“" + cut(code, 20) + "…”) is longer than 1,000 characters: is it two codes on one line?"}
		}
	}
	u := topupd.StockUpload{Note: strings.TrimSpace(r.PostFormValue("note"))}
	if len(u.Note) > topupd.MaxBatchNote {
		return fieldError{"note", "A note is at most " + strconv.Itoa(topupd.MaxBatchNote) + " characters."}
	}
	if v := strings.TrimSpace(r.PostFormValue("costUsd")); v != "" {
		cost, problem := parseAmount(v, pricePlaces)
		if problem == "" && cost < 0 {
			problem = "A cost cannot be negative."
		}
		if problem != "" {
			return fieldError{"costUsd", problem + " Leave it empty for the pack's cost."}
		}
		u.Cost = &cost
	}
	res, err := c.addCodes(r, s, pid, codes, u) // one transaction: all or nothing
	if err != nil {
		return err
	}
	msg := "Pasted " + plural(len(codes), "code") + ": " + strconv.Itoa(res.Added) + " added, " + plural(res.Duplicates, "duplicate") + ", " +
		strconv.Itoa(res.Available) + " available"
	if res.Added > 0 {
		msg += ", in batch " + strconv.FormatInt(res.BatchID, 10)
	}
	return c.done(w, r, "/console/stock/"+url.PathEscape(pid), msg+".")
}

// cut is s cut to at most n runes.
func cut(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
