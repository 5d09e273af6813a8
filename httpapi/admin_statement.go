package httpapi

import (
	"encoding/csv"
	"net/http"
	"strings"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/service"
)

// statementAnswer is an account's statement; the reseller's own has no
// accountId.
type statementAnswer struct {
	Success           bool                    `json:"success"`
	AccountID         string                  `json:"accountId,omitempty"`
	From              string                  `json:"from"`
	To                string                  `json:"to"`
	OpeningBalanceUsd topupd.Money            `json:"openingBalanceUsd"`
	ClosingBalanceUsd topupd.Money            `json:"closingBalanceUsd"`
	Entries           []client.StatementEntry `json:"entries"`
}

// statement answers an account's statement for [from, to), in JSON or, with
// format=csv, as text/csv.
func (a *admin) statement(w http.ResponseWriter, r *http.Request) error {
	from, to, csvOut, err := reportQuery(r.URL.Query(), "from", "to", "format")
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	st, err := a.Service.Statement(r.Context(), a.actor(r), id, from, to)
	if err != nil {
		return err
	}
	return writeStatement(w, statementAnswer{AccountID: id, From: rfc3339(from), To: rfc3339(to)}, st, csvOut, "statement-"+id+".csv")
}

// writeStatement writes a statement, in JSON on top of head (which names
// the account and period) or, with csvOut, as the CSV file name.
func writeStatement(w http.ResponseWriter, head statementAnswer, st topupd.Statement, csvOut bool, name string) error {
	if csvOut {
		return writeCSV(w, name, service.StatementCSV(st))
	}
	head.Success, head.OpeningBalanceUsd, head.ClosingBalanceUsd, head.Entries = true, st.Opening, st.Closing, viewStatementEntries(st)
	writeJSON(w, http.StatusOK, head)
	return nil
}

// viewStatementEntries are a statement's entries as both APIs show them:
// the client's StatementEntry, so the Go client reads what is written.
func viewStatementEntries(st topupd.Statement) []client.StatementEntry {
	entries := make([]client.StatementEntry, len(st.Entries))
	for i, e := range st.Entries {
		entries[i] = client.StatementEntry{At: e.CreatedAt.UTC(), Kind: string(e.Kind), AmountUSD: e.Amount, BalanceAfterUSD: e.BalanceAfter,
			Reference: e.Reference, OrderID: e.OrderID, TrxID: e.TrxID, PID: e.PID}
	}
	return entries
}

// knownParams refuses a query parameter not named, or one given twice.
func knownParams(v map[string][]string, names ...string) error {
	for name, vals := range v {
		known := false
		for _, n := range names {
			known = known || n == name
		}
		if !known {
			return topupd.Errorf(topupd.EInvalidRequest, "unknown parameter %q", name)
		}
		if len(vals) > 1 {
			return topupd.Errorf(topupd.EInvalidRequest, "%s: given more than once", name)
		}
	}
	return nil
}

// wantCSV reads the format parameter: json (the default) or csv.
func wantCSV(v map[string][]string) (bool, error) {
	switch f := strings.Join(v["format"], ""); f {
	case "", "json":
		return false, nil
	case "csv":
		return true, nil
	}
	return false, topupd.Errorf(topupd.EInvalidRequest, "format: json or csv")
}

// writeCSV answers rows as a CSV download.
func writeCSV(w http.ResponseWriter, filename string, rows [][]string) error {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return cw.Error()
}
