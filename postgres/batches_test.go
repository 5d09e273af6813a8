package postgres_test

import (
	"testing"

	"github.com/topupd/topupd/internal/storetest"
)

// TestBatchGuards shows that the schema refuses what would undo a batch's
// void or falsify its counts (see storetest.BatchGuards).
func TestBatchGuards(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := openStore(t, f.url, storetest.NewVault(t))
	storetest.BatchGuards(t, s, rawDB(t, f.url), pidKey, pidTopup, f.processing)
}
