package service

import (
	"context"
	"time"

	"github.com/topupd/topupd"
)

// Caller is a reseller's API client, as the reseller API let it in by its
// key: every operation it asks for is held to its account's books (the
// account's sandbox's, for a sandbox key).
type Caller struct {
	// Account is the key's account (Sandbox set for a sandbox key).
	Account topupd.Account
	// Via is the loop guard's headers of the call, as sent (an order and a
	// player check read them: topupd.Route).
	Via Via
}

// Via is what a call said of the servers it passed through: its
// Topupd-Instance and Topupd-Hops values, empty when absent.
type Via struct {
	Instances, Hops string
}

// route reads the caller's Via: UPSTREAM_LOOP when the call came round to
// this deployment again or through too many servers.
func (s *Service) route(c Caller) (topupd.Route, error) {
	return topupd.ParseRoute(c.Via.Instances, c.Via.Hops, s.d.Instance)
}

// Books is the account whose books the caller reads and writes.
func (c Caller) Books() string { return c.Account.Books() }

// resellerStore is what a reseller's operations need of the database.
type resellerStore interface {
	Lines(ctx context.Context) ([]topupd.Line, error)
	Packs(ctx context.Context) ([]topupd.Pack, error)
	StockLevels(ctx context.Context) (map[string]int, error)
	PriceBook(ctx context.Context, accountID string) (topupd.PriceBook, error)
	topupd.CatalogSyncStore
	Balance(ctx context.Context, accountID string) (topupd.Money, error)
	PlaceOrder(ctx context.Context, p topupd.PlaceOrder) (o topupd.Order, replay bool, err error)
	PrepareOrder(ctx context.Context, p topupd.PlaceOrder) (topupd.Pack, topupd.Draft, error)
	ResellerOrder(ctx context.Context, accountID, id string) (topupd.Order, error)
	History(ctx context.Context, accountID string, q topupd.HistoryQuery) (orders []topupd.Order, total int, err error)
	Statement(ctx context.Context, accountID string, from, to time.Time) (topupd.Statement, error)
	WebhookEvents(ctx context.Context, accountID, after string, limit int) ([]topupd.WebhookEvent, bool, error)
}

// OnSale is the catalog as a caller sees it: the active packs of active
// lines, at the caller's prices, with their lines and live stock; with the
// sim supplier off, its packs are not on sale.
type OnSale struct {
	// Packs are on sale, in the store's order, each at the caller's price.
	Packs []topupd.Pack
	// Lines are every line by slug.
	Lines map[string]*topupd.Line
	// Stock is each stock pack's codes on hand, by PID.
	Stock map[string]int
	// Next is, by PID, what the caller will pay for a pack from its
	// scheduled change on, for each pack whose price for the caller the
	// change moves (topupd.PriceBook.NextPrice).
	Next map[string]topupd.NextPrice
}

// ActiveLines are the lines on sale to the caller: the active ones, in
// the store's order.
func (s *Service) ActiveLines(ctx context.Context, _ Caller) ([]topupd.Line, error) {
	lines, err := s.d.Store.Lines(ctx)
	out := lines[:0]
	for _, l := range lines {
		if l.Status == topupd.StatusActive {
			out = append(out, l)
		}
	}
	return out, err
}

// Catalog reads what is on sale to the caller, each pack at its list price
// now (a scheduled change takes effect at its time, written into the pack
// or not: topupd.ListPriceAt).
func (s *Service) Catalog(ctx context.Context, c Caller) (OnSale, error) {
	out := OnSale{Next: map[string]topupd.NextPrice{}}
	now := s.d.Now()
	lines, err := s.d.Store.Lines(ctx)
	if err != nil {
		return out, err
	}
	// The changes before the packs: a change written into its pack between
	// the two reads is read scheduled, and resolves to the price written.
	changes, err := s.d.Store.LatestPriceChanges(ctx)
	if err != nil {
		return out, err
	}
	packs, err := s.d.Store.Packs(ctx)
	if err != nil {
		return out, err
	}
	if out.Stock, err = s.d.Store.StockLevels(ctx); err != nil {
		return out, err
	}
	book, err := s.d.Store.PriceBook(ctx, c.Account.ID)
	if err != nil {
		return out, err
	}
	out.Lines = make(map[string]*topupd.Line, len(lines))
	for i := range lines {
		out.Lines[lines[i].Slug] = &lines[i]
	}
	for i := range packs {
		p := &packs[i]
		l, ok := out.Lines[p.Slug]
		if !ok || l.Status != topupd.StatusActive || p.Status != topupd.StatusActive || (s.d.SimOff && p.Provider == topupd.ProviderSim) {
			continue
		}
		var next *topupd.PriceChange
		if ch, ok := changes[p.PID]; ok {
			p.Price, next = topupd.ListPriceAt(p.Price, &ch, now)
		}
		if n, ok := book.NextPrice(p, next); ok {
			out.Next[p.PID] = n
		}
		p.Price = book.PriceOf(p) // the caller's own price
		out.Packs = append(out.Packs, *p)
	}
	return out, nil
}

// CatalogVersion is a version of the catalog as the caller sees it, which
// changes whenever what the caller would read of it does (the sim
// supplier's packs go off sale with --sim off).
func (s *Service) CatalogVersion(ctx context.Context, c Caller) (string, error) {
	v, err := s.d.Store.CatalogVersion(ctx, c.Account.ID)
	if s.d.SimOff {
		v += "/sim-off"
	}
	return v, err
}

// CatalogSyncPoint is the time a catalog read made now is complete up to:
// a sync from it misses no change (topupd.CatalogSyncStore).
func (s *Service) CatalogSyncPoint(ctx context.Context) (time.Time, error) {
	return s.d.Store.CatalogSyncPoint(ctx)
}

// ChangedPacks are the packs whose rows changed for the caller since then.
func (s *Service) ChangedPacks(ctx context.Context, c Caller, since time.Time) ([]string, error) {
	return s.d.Store.ChangedPacks(ctx, c.Account.ID, since)
}

// CallerBalance is the caller's balance.
func (s *Service) CallerBalance(ctx context.Context, c Caller) (topupd.Money, error) {
	return s.d.Store.Balance(ctx, c.Books())
}

// CallerOrder is one of the caller's orders, by its id or the caller's
// trxid, with its codes (ORDER_NOT_FOUND for any other).
func (s *Service) CallerOrder(ctx context.Context, c Caller, id string) (topupd.Order, error) {
	return s.d.Store.ResellerOrder(ctx, c.Books(), id)
}

// CallerHistory is a page of the caller's orders, newest first, and how
// many the query finds in all.
func (s *Service) CallerHistory(ctx context.Context, c Caller, q topupd.HistoryQuery) ([]topupd.Order, int, error) {
	return s.d.Store.History(ctx, c.Books(), q)
}

// CallerStatement is the caller's statement for [from, to), at most 31
// days: the operator's statement of the same books.
func (s *Service) CallerStatement(ctx context.Context, c Caller, from, to time.Time) (topupd.Statement, error) {
	if err := CheckAccountStatement(from, to); err != nil {
		return topupd.Statement{}, err
	}
	return s.d.Store.Statement(ctx, c.Books(), from, to)
}

// CallerEvents are up to limit of the caller's webhook events after the
// one named (from the oldest kept with none), and whether more follow.
func (s *Service) CallerEvents(ctx context.Context, c Caller, after string, limit int) ([]topupd.WebhookEvent, bool, error) {
	return s.d.Store.WebhookEvents(ctx, c.Books(), after, limit)
}
