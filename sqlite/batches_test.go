package sqlite_test

import (
	"testing"

	"github.com/topupd/topupd/internal/testing/storetest"
)

// TestBatchGuards shows that the schema refuses what would undo a batch's
// void or falsify its counts (see storetest.BatchGuards).
func TestBatchGuards(t *testing.T) {
	f := newFixture(t)
	s := openAt(t, f.path, f.vault)
	storetest.BatchGuards(t, s, rawDB(t, f.path), "key-1", "ff-1", f.processing)
}
