package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/topupd/topupd"
)

// termsCache keeps what placing an order reads of the catalog and of an
// account's prices: a pack, its line, and the account's price book for
// the pack. Every change to the tables they come from raises
// terms_version in the change's own transaction (migration 00028), and
// placing an order reads that version under the account's row lock
// (orderLock), so an entry serves only orders that read the version it
// was kept at. What it holds was read at that version or later, never
// earlier: an order served from it sees what its own reads would have
// seen, or a change committed since, as a read one statement later would.
// The account's own terms (its tier and limits) come from its locked row
// every time, and the tier is part of the key.
type termsCache struct {
	mu      sync.Mutex
	version int64
	entries map[termsKey]*termsEntry
}

// termsCacheMax bounds the entries (each a pack, a line and a book: about
// a kilobyte); a full cache lets an arbitrary entry go for each new one.
const termsCacheMax = 8192

// termsKey names an entry: the account priced, the pack, and the account's
// tier as its locked row says ("" for none).
type termsKey struct{ account, pid, tier string }

// termsEntry is what an order of the key read; it is never changed once kept.
type termsEntry struct {
	pack topupd.Pack
	line topupd.Line
	book topupd.PriceBook
	// change is the pack's latest price change (nil for none): each order
	// served from the entry resolves the pack's list price at its own
	// time (listedAt), so a change takes effect at its time whatever the
	// version the entry was kept at.
	change *topupd.PriceChange
}

// get returns the entry of k kept at version. A newer version empties the
// cache first; an older one finds nothing.
func (c *termsCache) get(version int64, k termsKey) (*termsEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance(version)
	if version != c.version {
		return nil, false
	}
	e, ok := c.entries[k]
	return e, ok
}

// put keeps e under k at version, unless the cache has moved past it.
func (c *termsCache) put(version int64, k termsKey, e *termsEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance(version)
	if version != c.version {
		return
	}
	if _, ok := c.entries[k]; !ok && len(c.entries) >= termsCacheMax {
		for old := range c.entries {
			delete(c.entries, old)
			break
		}
	}
	c.entries[k] = e
}

// advance empties the cache when version is newer than what it holds.
func (c *termsCache) advance(version int64) {
	if version > c.version {
		c.version = version
		clear(c.entries)
	}
}

// orderHead is the placing account's row, read with its lock: its terms,
// and the terms version of the catalog and prices.
type orderHead struct {
	found   bool
	terms   termsHead // tier and limits; no markup (that is the tier's)
	version int64
}

// lockForOrder takes the account's row lock, as lockAccount, and reads its
// tier and its limits in the same statement (orderBalance reads the terms
// version).
func (s *Store) lockForOrder(ctx context.Context, tx *sql.Tx, accountID string) (orderHead, error) {
	h := orderHead{found: true}
	err := tx.QueryRowContext(ctx, s.q.orderLock, accountID).Scan(append([]any{&h.terms.tier}, h.terms.limits.dest()...)...)
	if isNoRows(err) {
		return orderHead{}, nil
	}
	if err != nil {
		return orderHead{}, fmt.Errorf("lock account %s: %w", accountID, err)
	}
	return h, nil
}

// orderBalance reads, under the account's lock, the account's balance and
// the seq of its newest ledger entry, and the terms version into head. The
// version is read in a statement after the lock's, never in it: on
// PostgreSQL a statement that waited for the lock reads every other table
// as it stood when the statement began, so a price changed and committed
// by the lock's holder would be missed, and the cache kept at the old
// version would serve the old price (TestMaxPriceRace).
func (s *Store) orderBalance(ctx context.Context, tx *sql.Tx, accountID string, head *orderHead) (topupd.Money, int64, error) {
	var bal topupd.Money
	var seq int64
	if err := tx.QueryRowContext(ctx, s.q.orderBalance, accountID).Scan(&head.version, &bal, &seq); err != nil {
		return 0, 0, fmt.Errorf("balance of %s: %w", accountID, err)
	}
	return bal, seq, nil
}

// termsOf reads the pack p names, its line and the account's price book
// for it, and the account's limits: from the cache when the order's
// account row (head) allows, else from the database, keeping what it read.
// A sandbox order is priced as its live account and reads its terms apart.
// The pack comes back at its list price at the order's time (listedAt).
func (s *Store) termsOf(ctx context.Context, tx *sql.Tx, p *topupd.PlaceOrder, head *orderHead) (topupd.Pack, topupd.Line, topupd.PriceBook, topupd.Limits, error) {
	priced, _ := topupd.LiveID(p.AccountID)
	cached := head != nil && head.found && !p.Sandbox
	k := termsKey{account: priced, pid: p.Request.PID, tier: head.tierName()}
	if cached {
		if e, ok := s.termsKept.get(head.version, k); ok {
			_, limits := head.terms.terms()
			return s.listedAt(e.pack, e.change, p.Now), e.line, e.book, limits, nil
		}
	}
	pack, line, err := s.packAndLine(ctx, tx, p.Request.PID)
	if err != nil {
		return pack, line, topupd.PriceBook{}, topupd.Limits{}, err
	}
	book, limits, err := s.orderTerms(ctx, tx, priced, pack.PID)
	if err != nil {
		return pack, line, book, limits, err
	}
	change, stored, err := latestPriceChange(ctx, tx, pack.PID)
	if err != nil {
		return pack, line, book, limits, err
	}
	if change != nil {
		pack.Price = stored // of the change's moment
	}
	if cached && tierName(&book) == k.tier { // the row under the lock, as read again
		s.termsKept.put(head.version, k, &termsEntry{pack: pack, line: line, book: book, change: change})
	}
	return s.listedAt(pack, change, p.Now), line, book, limits, nil
}

// listedAt is p at its list price at now (the store's clock when zero),
// given its latest price change (topupd.ListPriceAt).
func (s *Store) listedAt(p topupd.Pack, change *topupd.PriceChange, now time.Time) topupd.Pack {
	if now.IsZero() {
		now = s.now()
	}
	p.Price, _ = topupd.ListPriceAt(p.Price, change, now)
	return p
}

// tierName is the tier of the head's row, "" for none or no head.
func (h *orderHead) tierName() string {
	if h == nil || !h.terms.tier.Valid {
		return ""
	}
	return h.terms.tier.String
}

// tierName is the tier a book prices by, "" for none.
func tierName(b *topupd.PriceBook) string {
	if b.Tier == nil {
		return ""
	}
	return b.Tier.Name
}
