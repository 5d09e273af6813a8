package postgres_test

import (
	"testing"

	"github.com/topupd/topupd/internal/testing/storetest"
)

// TestSandboxGuards shows that the schema keeps a sandbox apart from the
// live books (see storetest.SandboxGuards).
func TestSandboxGuards(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := openStore(t, f.url, storetest.NewVault(t))
	storetest.SandboxGuards(t, s, rawDB(t, f.url), f.a, pidKey, pidTopup)
}
