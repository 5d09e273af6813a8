package sqlstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrationsBucketAsTheStoreDoes: the migration that made
// durations_daily fills it, on both databases, with exactly the query the
// audit recounts it with, whose buckets are written from
// topupd.DurationBuckets: the Go list is the one source of the edges.
func TestMigrationsBucketAsTheStoreDoes(t *testing.T) {
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	want := words(`INSERT INTO durations_daily (day, slug, bucket, orders) ` + DurationsDailyFromOrders + `;`)
	for _, db := range []string{"sqlite", "postgres"} {
		files, err := filepath.Glob(filepath.Join("..", "..", db, "migrations", "00009_*.sql"))
		if err != nil || len(files) != 1 {
			t.Fatalf("%s: migration 00009: %v, %v", db, files, err)
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(words(string(b)), want) {
			t.Errorf("%s does not fill durations_daily with\n%s", files[0], want)
		}
	}
}

// TestLiveMigrationAsTheAuditCounts: 00026, which took sandbox orders out
// of durations_daily, refills it on both databases with exactly the query
// the audit recounts it with.
func TestLiveMigrationAsTheAuditCounts(t *testing.T) {
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	want := words(`-- +goose Up DELETE FROM durations_daily; INSERT INTO durations_daily (day, slug, bucket, orders) ` + DurationsDailyFromLiveOrders + `;`)
	for _, db := range []string{"sqlite", "postgres"} {
		b, err := os.ReadFile(filepath.Join("..", "..", db, "migrations", "00026_durations_live.sql"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(words(string(b)), want) {
			t.Errorf("%s 00026 does not refill durations_daily with\n%s", db, want)
		}
	}
}
