package console_test

import (
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// consolePolish checks, on TestConsoleForms's server with its owner
// signed in, the small points of issue 22 (in the polish_*_test.go files).
func consolePolish(t *testing.T, b *tab, a topupdtest.Account) {
	polishOwed(t, b)
	polishIcon(t, b)
	polishOrders(t, b, a)
	polishPhone(t, b, a)
}
