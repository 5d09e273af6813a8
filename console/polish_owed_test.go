package console_test

import (
	"strings"
	"testing"
)

// polishOwed: support does not see what resellers are owed, a finance
// figure; the owner does.
func polishOwed(t *testing.T, b *tab) {
	t.Run("support and balances", func(t *testing.T) {
		b.t = t
		b.open("/console/")
		if !b.has("#owed") {
			t.Errorf("the owner does not see what resellers are owed")
		}
		s := b.also()
		s.t = t
		s.signIn(s.setUp("sup-dash", "support"))
		s.open("/console/")
		if s.has("#owed") || strings.Contains(s.page(), "Owed to resellers") {
			t.Errorf("support sees what resellers are owed: %s", s.page())
		}
	})
}
