package httpapi

import (
	"net/http"
)

// statement answers the caller's statement for [from, to), at most 31
// days, in JSON or, with format=csv, as text/csv: the operator's statement
// of the caller's account, read by the same store call.
func (a *reseller) statement(w http.ResponseWriter, r *http.Request) error {
	from, to, csvOut, err := reportQuery(r.URL.Query(), "from", "to", "format")
	if err != nil {
		return err
	}
	st, err := a.Service.CallerStatement(r.Context(), callerOf(r.Context()).caller(), from, to)
	if err != nil {
		return err
	}
	return writeStatement(w, statementAnswer{From: rfc3339(from), To: rfc3339(to)}, st, csvOut, "statement.csv")
}
