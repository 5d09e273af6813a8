package postgres_test

import (
	"testing"

	"github.com/topupd/topupd/internal/testing/storetest"
)

// TestFailoverGuards: the schema keeps each order on one supplier (see
// storetest.FailoverGuards).
func TestFailoverGuards(t *testing.T) {
	t.Parallel()
	url := newDB(t)
	s := openStore(t, url, storetest.NewVault(t))
	storetest.FailoverGuards(t, s, rawDB(t, url), "order_attempts_one_holder")
}
