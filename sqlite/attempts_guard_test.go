package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/topupd/topupd/internal/testing/storetest"
)

// TestFailoverGuards: the schema keeps each order on one supplier (see
// storetest.FailoverGuards).
func TestFailoverGuards(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	s := openAt(t, path, storetest.NewVault(t))
	storetest.FailoverGuards(t, s, rawDB(t, path), "UNIQUE")
}
