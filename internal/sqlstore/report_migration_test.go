package sqlstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMarginMigrationAsTheAuditCounts: 00042, which added the revenue
// without cost to sales_daily, refills it on both databases with exactly
// the query the audit recounts it with.
func TestMarginMigrationAsTheAuditCounts(t *testing.T) {
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	want := words(`DELETE FROM sales_daily; INSERT INTO sales_daily (` + SalesDailyColumns + `) ` + SalesDailyFromOrders + `;`)
	for _, db := range []string{"sqlite", "postgres"} {
		b, err := os.ReadFile(filepath.Join("..", "..", db, "migrations", "00042_one_margin.sql"))
		if err != nil {
			t.Fatal(err)
		}
		up, _, _ := strings.Cut(string(b), "-- +goose Down")
		if !strings.Contains(words(up), want) {
			t.Errorf("%s 00042 does not refill sales_daily with\n%s", db, want)
		}
	}
}
