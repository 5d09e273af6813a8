package sqlite_test

import (
	"testing"

	"github.com/topupd/topupd/internal/testing/storetest"
)

// TestSandboxGuards shows that the schema keeps a sandbox apart from the
// live books (see storetest.SandboxGuards).
func TestSandboxGuards(t *testing.T) {
	f := newFixture(t)
	s := openAt(t, f.path, f.vault)
	storetest.SandboxGuards(t, s, rawDB(t, f.path), f.a, "key-1", "ff-1")
}
