package sqlite_test

import (
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/sqlite"
)

// TestAuditCatchesDamage: the audit finds damage made behind the store's
// back where the schema has no guard (the stock counter, a sales roll-up,
// a roll-up of durations), and names it: a changed roll-up row differs
// from its orders both ways.
func TestAuditCatchesDamage(t *testing.T) {
	// A year after the fixture's orders, its two processing ones are past
	// their deadline: orders-final names them.
	au := auditAfter(t,
		`UPDATE stock_levels SET available = available + 5 WHERE pid = 'key-1'`,
		`UPDATE sales_daily SET revenue = revenue + 1 WHERE rowid = (SELECT MIN(rowid) FROM sales_daily)`,
		`UPDATE durations_daily SET orders = orders + 1 WHERE rowid = (SELECT MIN(rowid) FROM durations_daily)`)
	got := map[string]int{}
	for _, c := range au.Checks {
		got[c.Name] = c.Violations
	}
	if got["stock-levels-match-codes"] != 1 || got["orders-final"] != 2 || got["ledger-sums-to-balance"] != 0 ||
		got["sales-roll-ups-match-orders"] != 2 || got["duration-roll-ups-match-orders"] != 2 {
		t.Errorf("audit after damage: %v", got)
	}
	if au.OK() {
		t.Error("audit OK after damage")
	}
}

// TestAuditCatchesLimitsBroken: limits set behind the store's back, over
// orders already placed, break orders-within-spending-limits: a limit per
// order names the orders above it, a daily limit the account's days.
func TestAuditCatchesLimitsBroken(t *testing.T) {
	for _, c := range []struct {
		name, damage string
		orders, days bool // which the check must name
	}{
		{"per order", `UPDATE accounts SET max_order = 1, limits_from_seq = 0`, true, false},
		{"per day", `UPDATE accounts SET daily_limit = 1, limits_from_seq = 0 WHERE sandbox_of IS NULL`, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, check := range auditAfter(t, c.damage).Checks {
				if check.Name != "orders-within-spending-limits" {
					continue
				}
				var orders, days bool
				for _, ex := range check.Examples {
					orders = orders || strings.HasPrefix(ex, "ord_")
					days = days || strings.Contains(ex, " ")
				}
				if check.Violations == 0 || orders != c.orders || days != c.days {
					t.Errorf("%d violations, e.g. %v; want orders named %v, days named %v", check.Violations, check.Examples, c.orders, c.days)
				}
				return
			}
			t.Fatal("no check orders-within-spending-limits")
		})
	}
}

// auditAfter damages a copy of the fixture with raw SQL, behind the
// store's back, and audits it a year after the fixture's orders.
func auditAfter(t *testing.T, damage ...string) topupd.Audit {
	t.Helper()
	f := newFixture(t)
	db := rawDB(t, f.path)
	for _, d := range damage {
		if _, err := db.Exec(d); err != nil {
			t.Fatal(err)
		}
	}
	s, err := sqlite.Open(t.Context(), f.path, f.vault)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	au, err := s.Audit(t.Context(), time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return au
}
