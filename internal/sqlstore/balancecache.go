package sqlstore

import (
	"context"
	"sync"

	"github.com/topupd/topupd"
)

// balanceCache answers Balance from memory on a database only this process
// writes (Dialect.OneWriter: SQLite, one server per file). The ledger is
// append-only and every entry is written by appendEntryAfter, which names
// its account to the transaction's pendingBalances; once that transaction
// has ended, the account's cached balance is dropped and its generation
// moves on. A read that missed fills the cache only if no
// commit moved the generation while it read, so it never puts back a
// balance older than one already dropped. A client that reads its balance
// after an answer that charged or credited it reads the new one: the
// balance is dropped before the store call returns. Charges read the
// ledger itself, in their transaction, never this cache.
type balanceCache struct {
	mu sync.Mutex
	m  map[string]cachedBalance
}

// cachedBalance is one account's entry: its generation, and its balance
// when valid.
type cachedBalance struct {
	gen   uint64
	bal   topupd.Money
	valid bool
}

// get returns the account's cached balance, or its generation to fill
// with after a read.
func (c *balanceCache) get(account string) (topupd.Money, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[account]
	return e.bal, e.gen, e.valid
}

// fill caches bal, read since get returned gen, unless a commit moved
// the account's generation meanwhile.
func (c *balanceCache) fill(account string, gen uint64, bal topupd.Money) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[account]; e.gen == gen {
		c.m[account] = cachedBalance{gen: gen, bal: bal, valid: true}
	}
}

// drop forgets the accounts' balances after a commit changed them.
func (c *balanceCache) drop(accounts []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, a := range accounts {
		c.m[a] = cachedBalance{gen: c.m[a].gen + 1}
	}
}

// pendingBalances collects the accounts a transaction wrote ledger
// entries for, to drop from the cache once it committed.
type pendingBalances struct {
	accounts []string
}

type pendingBalancesKey struct{}

// withPendingBalances returns ctx carrying a transaction's pending
// balances, when the store keeps a cache; otherwise ctx and nil.
func (s *Store) withPendingBalances(ctx context.Context) (context.Context, *pendingBalances) {
	if s.balances == nil {
		return ctx, nil
	}
	p := &pendingBalances{}
	return context.WithValue(ctx, pendingBalancesKey{}, p), p
}

// noteBalance records that the transaction of ctx changes the account's
// balance.
func noteBalance(ctx context.Context, account string) {
	if p, ok := ctx.Value(pendingBalancesKey{}).(*pendingBalances); ok {
		p.accounts = append(p.accounts, account)
	}
}

// settleBalances drops the balances a transaction's run changed, once
// the run has ended: after a commit, and after a failure too, whose
// outcome a lost answer may hide (dropping a balance that did not change
// costs one read).
func (s *Store) settleBalances(p *pendingBalances) {
	if p == nil || len(p.accounts) == 0 {
		return
	}
	s.balances.drop(p.accounts)
	p.accounts = p.accounts[:0]
}
