package console

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// ordersCSV downloads the orders list, with the filters of its page, as
// CSV: every page of it, newest first (a trxid-prefix search: its first
// service.MaxPage matches, in trxid order), money as exact decimals, and
// each cell that a spreadsheet would take for a formula quoted.
func (c *Console) ordersCSV(w http.ResponseWriter, r *http.Request, s *session) error {
	var d ordersData
	oq, ok, err := c.ordersQuery(w, r, s, &d)
	if err != nil || !ok {
		return err
	}
	if d.NoAccount || len(d.Accounts) > 0 {
		return pageError{http.StatusBadRequest, "The account name matches no single account: choose one on the orders page."}
	}
	oq.Limit = service.MaxPage
	page, err := c.Service.Orders(r.Context(), s.actor, oq)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="orders-`+c.Now().UTC().Format(time.DateOnly)+`.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"placedAt", "orderId", "trxid", "accountId", "accountName", "sandbox", "playerId", "zoneId", "pid", "pack", "quantity", "amountUsd", "status", "refunded", "finishedAt"}); err != nil {
		return err
	}
	for {
		if err := c.nameAccounts(r.Context(), s, &page); err != nil {
			return err // the download is cut short; the status is already sent
		}
		for _, o := range page.Orders {
			acc, _ := topupd.LiveID(o.AccountID)
			finished := ""
			if !o.FinishedAt.IsZero() {
				finished = o.FinishedAt.UTC().Format(time.RFC3339)
			}
			row := []string{o.CreatedAt.UTC().Format(time.RFC3339), o.ID, o.TrxID, acc, page.Names[acc], strconv.FormatBool(o.Sandbox),
				o.Fields.UserID, o.Fields.ZoneID, o.PID, o.PackName, strconv.Itoa(o.Quantity), o.Amount.Dollars(), string(o.Status),
				strconv.FormatBool(o.Refunded), finished}
			for i := range row {
				row[i] = csvCell(row[i])
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
		if page.Next == nil {
			break
		}
		oq.Before = page.Next
		if page, err = c.Service.Orders(r.Context(), s.actor, oq); err != nil {
			return err // the download is cut short; the status is already sent
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvCell quotes a cell a spreadsheet would read as a formula (one starting
// with = + - @, a tab or a carriage return) with a leading apostrophe.
func csvCell(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}
