package service

import (
	"context"

	"github.com/topupd/topupd"
)

// LedgerPage is a page of an account's ledger, newest first.
type LedgerPage struct {
	Entries []topupd.LedgerEntry
	// Older is the ID of the page's oldest entry when older entries exist
	// (the next page's before); 0 on the last page.
	Older int64
}

// LedgerOlder reads a page of an account's ledger, newest first: the
// newest entries when before is 0, else those older than the entry of ID
// before. Limit is held to 1 to MaxLedger.
func (s *Service) LedgerOlder(ctx context.Context, a Actor, accountID string, before int64, limit int) (LedgerPage, error) {
	if err := s.accountReadable(a, accountID); err != nil {
		return LedgerPage{}, err
	}
	if err := s.accountExists(ctx, accountID); err != nil {
		return LedgerPage{}, err
	}
	limit = min(max(limit, 1), MaxLedger)
	var entries []topupd.LedgerEntry
	var err error
	if before == 0 {
		entries, err = s.d.Store.Ledger(ctx, accountID, limit+1)
	} else {
		entries, err = s.d.Store.LedgerBefore(ctx, accountID, before, limit+1)
	}
	if err != nil {
		return LedgerPage{}, err
	}
	var p LedgerPage
	if len(entries) > limit { // one more than asked tells whether older ones exist
		entries = entries[:limit]
		p.Older = entries[limit-1].ID
	}
	p.Entries = entries
	return p, nil
}
