package topupd

// AuditCheck is one invariant of the books, checked over the whole database.
type AuditCheck struct {
	Name string
	// Violations counts the rows that break it; Examples names a few.
	Violations int
	Examples   []string
}

// Audit is the result of checking every invariant of the books at once.
type Audit struct {
	Accounts      int
	Orders        int
	LedgerEntries int
	Checks        []AuditCheck
}

// OK reports whether every check holds.
func (a Audit) OK() bool {
	for _, c := range a.Checks {
		if c.Violations != 0 {
			return false
		}
	}
	return true
}
