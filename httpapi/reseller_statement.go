package httpapi

import (
	"net/http"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// resellerStatement is the caller's own statement.
type resellerStatement struct {
	Success           bool             `json:"success"`
	From              string           `json:"from"`
	To                string           `json:"to"`
	OpeningBalanceUsd topupd.Money     `json:"openingBalanceUsd"`
	ClosingBalanceUsd topupd.Money     `json:"closingBalanceUsd"`
	Entries           []statementEntry `json:"entries"`
}

// statement answers the caller's statement for [from, to), at most 31
// days, in JSON or, with format=csv, as text/csv: the operator's statement
// of the caller's account, read by the same store call.
func (a *reseller) statement(w http.ResponseWriter, r *http.Request) error {
	from, to, csvOut, err := reportQuery(r.URL.Query(), "from", "to", "format")
	if err != nil {
		return err
	}
	if err := service.CheckAccountStatement(from, to); err != nil {
		return err
	}
	st, err := a.Store.Statement(r.Context(), callerOf(r.Context()).account.Books(), from, to)
	if err != nil {
		return err
	}
	if csvOut {
		return writeCSV(w, "statement.csv", service.StatementCSV(st))
	}
	writeJSON(w, http.StatusOK, resellerStatement{Success: true, From: rfc3339(from), To: rfc3339(to),
		OpeningBalanceUsd: st.Opening, ClosingBalanceUsd: st.Closing, Entries: viewStatementEntries(st)})
	return nil
}
