package httpapi

import (
	"encoding/csv"
	"net/http"
	"strings"

	"github.com/topupd/topupd"
)

// statementEntry is one entry of a statement as the API shows it.
type statementEntry struct {
	At              string       `json:"at"`
	Kind            string       `json:"kind"`
	AmountUsd       topupd.Money `json:"amountUsd"`
	BalanceAfterUsd topupd.Money `json:"balanceAfterUsd"`
	Reference       string       `json:"reference,omitempty"`
	OrderID         string       `json:"orderId,omitempty"`
	TrxID           string       `json:"trxid,omitempty"`
	PID             string       `json:"pid,omitempty"`
}

// statement answers an account's statement for [from, to), in JSON or, with
// format=csv, as text/csv.
func (a *admin) statement(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	if err := knownParams(v, "from", "to", "format"); err != nil {
		return err
	}
	from, to, err := parseSpan(v)
	if err != nil {
		return err
	}
	switch {
	case from.IsZero() || to.IsZero():
		return topupd.Errorf(topupd.EInvalidRequest, "from and to: both are required")
	case !from.Before(to):
		return topupd.Errorf(topupd.EInvalidRequest, "from: must be before to")
	}
	csvOut, err := wantCSV(v)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	if _, err := a.Store.Account(r.Context(), id); err != nil {
		return err
	}
	st, err := a.Store.Statement(r.Context(), id, from, to)
	if err != nil {
		return err
	}
	entries := make([]statementEntry, len(st.Entries))
	for i, e := range st.Entries {
		entries[i] = statementEntry{At: rfc3339(e.CreatedAt), Kind: string(e.Kind), AmountUsd: e.Amount, BalanceAfterUsd: e.BalanceAfter,
			Reference: e.Reference, OrderID: e.OrderID, TrxID: e.TrxID, PID: e.PID}
	}
	if csvOut {
		rows := [][]string{{"at", "kind", "amountUsd", "balanceAfterUsd", "reference", "orderId", "trxid", "pid"},
			{rfc3339(from), "opening", "", st.Opening.String(), "", "", "", ""}}
		for _, e := range entries {
			rows = append(rows, []string{e.At, e.Kind, e.AmountUsd.String(), e.BalanceAfterUsd.String(), cell(e.Reference), e.OrderID, cell(e.TrxID), e.PID})
		}
		rows = append(rows, []string{rfc3339(to), "closing", "", st.Closing.String(), "", "", "", ""})
		return writeCSV(w, "statement-"+id+".csv", rows)
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "accountId": id, "from": rfc3339(from), "to": rfc3339(to),
		"openingBalanceUsd": st.Opening, "closingBalanceUsd": st.Closing, "entries": entries})
	return nil
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

// cell makes a text cell safe to open in a spreadsheet: one that starts as
// a formula would is quoted with a leading apostrophe.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
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
