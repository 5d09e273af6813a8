package httpapi_test

import (
	"encoding/csv"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestStatementMonth: over a month of credits, corrections, charges and
// refunds on a clock the test moves, every statement's closing balance is
// the ledger's balance at its end, each period opens where the one before
// closed, each order entry names its trxid and pid, and the CSV says the
// same as the JSON.
func TestStatementMonth(t *testing.T) {
	t.Parallel()
	clock := topupdtest.NewClock()
	h := topupdtest.New(t, topupdtest.WithClock(clock))
	h.LoadCatalog()
	a := h.NewAccount("", nil)
	start := clock.Now()
	rng := mrand.New(mrand.NewPCG(1, 2))
	type event struct {
		at     time.Time
		amount topupd.Money
	}
	var events []event
	credit := func(usd string) {
		h.AdminOK(http.StatusOK, "POST", "/admin/accounts/"+a.ID+"/credits", map[string]any{"amountUsd": topupdtest.USD(usd), "reference": h.Trx()})
		events = append(events, event{clock.Now(), topupdtest.ParseUSD(t, usd)})
	}
	credit("50")
	for range 30 {
		for range 1 + rng.IntN(4) {
			clock.Advance(time.Duration(1+rng.IntN(300)) * time.Minute)
			switch rng.IntN(5) {
			case 0:
				credit(fmt.Sprintf("%d.25", 5+rng.IntN(20)))
			case 1:
				credit("-0.5") // a correction
			case 2: // refused by sim: charged, then refunded
				h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "99990001"})
				events = append(events, event{clock.Now(), 0})
			default:
				h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"})
				events = append(events, event{clock.Now(), -topupdtest.ParseUSD(t, "0.89")})
			}
		}
	}
	balanceAt := func(at time.Time) topupd.Money {
		var sum topupd.Money
		for _, e := range events {
			if e.at.Before(at) {
				sum += e.amount
			}
		}
		return sum
	}
	statement := func(from, to time.Time) topupdtest.Reply {
		t.Helper()
		return h.AdminOK(http.StatusOK, "GET", fmt.Sprintf("/admin/accounts/%s/statement?from=%s&to=%s", a.ID,
			from.UTC().Format(time.RFC3339Nano), to.UTC().Format(time.RFC3339Nano)), nil)
	}
	end := clock.Now().Add(time.Minute)
	var prevClosing string
	for from := start; from.Before(end); from = from.Add(7 * 24 * time.Hour) {
		to := from.Add(7 * 24 * time.Hour)
		if to.After(end) {
			to = end
		}
		st := statement(from, to)
		if want := balanceAt(to).String(); st.Num("closingBalanceUsd") != want {
			t.Errorf("[%v, %v): closing %s, want the balance at its end %s", from, to, st.Num("closingBalanceUsd"), want)
		}
		if prevClosing != "" && st.Num("openingBalanceUsd") != prevClosing {
			t.Errorf("[%v, %v): opens at %s, the week before closed at %s", from, to, st.Num("openingBalanceUsd"), prevClosing)
		}
		prevClosing = st.Num("closingBalanceUsd")
		for _, e := range st.Body["entries"].([]any) {
			e := e.(map[string]any)
			if e["kind"] != "credit" && (e["trxid"] == nil || e["pid"] != topupdtest.PIDPubg || e["orderId"] == nil) {
				t.Errorf("an order entry without its order: %v", e)
			}
		}
	}
	if prevClosing != h.Balance(a) {
		t.Errorf("the month closes at %s, the balance is %s", prevClosing, h.Balance(a))
	}
	whole := statement(start, end)
	_, body := h.AdminText(fmt.Sprintf("/admin/accounts/%s/statement?from=%s&to=%s&format=csv", a.ID,
		start.UTC().Format(time.RFC3339Nano), end.UTC().Format(time.RFC3339Nano)), h.Token)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	entries := whole.Body["entries"].([]any)
	if len(rows) != len(entries)+3 || strings.Join(rows[0], ",") != "at,kind,amountUsd,balanceAfterUsd,reference,orderId,trxid,pid" ||
		rows[1][1] != "opening" || rows[len(rows)-1][1] != "closing" || rows[len(rows)-1][3] != whole.Num("closingBalanceUsd") {
		t.Errorf("CSV of %d rows for %d entries: %v … %v", len(rows), len(entries), rows[:2], rows[len(rows)-1])
	}
	for _, q := range []string{"", "?from=2026-01-01T00:00:00Z", "?from=x&to=y", "?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z",
		"?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z&format=xml", "?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z&page=2"} {
		if r := h.AdminDo("GET", "/admin/accounts/"+a.ID+"/statement"+q, nil); r.Status != 400 || r.Str("code") != "INVALID_REQUEST" {
			t.Errorf("statement%s: %v, want 400", q, r)
		}
	}
}
