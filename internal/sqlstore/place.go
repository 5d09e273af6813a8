package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// PlaceOrder validates, charges, draws codes and creates the order in one
// transaction, holding the account's lock throughout: the account's orders
// and ledger entries are written one transaction at a time, so its balance
// is read and charged without a lost update, and a repeated key finds the
// order of the transaction before it. A repeat that still slips past the
// look-ups (the same trxid from another account at the same moment) trips a
// unique index; the transaction then runs again and answers what the repeat
// is: a replay, FORBIDDEN or IDEMPOTENCY_KEY_REUSED.
func (s *Store) PlaceOrder(ctx context.Context, p topupd.PlaceOrder) (topupd.Order, bool, error) {
	var o topupd.Order
	replay := false
	// A request whose in-flight hint is held is likely a repeat: it looks
	// for one first. Any other is placed first, and its repeat found by
	// the unique indexes (lookFirst below).
	lookFirst := p.HintHeld
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		o, replay, err = s.placeOrder(ctx, tx, p, lookFirst)
		if err != nil && (s.d.IsUniqueViolation(err) || errors.Is(err, errOrderTaken)) {
			if !lookFirst {
				lookFirst = true
				return againAtOnce(err)
			}
			return again(err)
		}
		return err
	})
	if err != nil {
		// No order: one rejected after its row was written was rolled back.
		return topupd.Order{}, false, fmt.Errorf("store.PlaceOrder %q: %w", p.Request.TrxID, err)
	}
	return o, replay, nil
}

// placeOrder is PlaceOrder's transaction: the account's lock, then a
// repeat answered as it is, or else the order checked (admit), decided
// (topupd.Place) and written (writePlacement).
//
// With lookFirst false the repeat is not looked for before the checks:
// one the checks refuse looks for it then (rejected), and one they pass
// is inserted, where a repeat trips a unique index of orders (trxid, or
// the account's idempotency key) and PlaceOrder runs the transaction
// again, looking first. Every answer is the one looking first gives; a
// first order saves the look-up's statement (issue 24).
//
// A sandbox order (p.Sandbox) is the same transaction on the account's
// sandbox's books, priced as the account's live orders and held to no
// spending limit (topupd.Place decides the rest).
func (s *Store) placeOrder(ctx context.Context, tx *sql.Tx, p topupd.PlaceOrder, lookFirst bool) (topupd.Order, bool, error) {
	if p.Sandbox {
		p.AccountID = topupd.SandboxID(p.AccountID)
	}
	// An unknown account fails below, where its order count is taken.
	head, err := s.lockForOrder(ctx, tx, p.AccountID)
	if err != nil {
		return topupd.Order{}, false, err
	}
	lookFirst = lookFirst || !head.found // an unknown account's trxid may still be another's
	if lookFirst {
		if prev, replay, found, err := s.repeatOf(ctx, tx, p); found || err != nil {
			return prev, replay, err
		}
	}
	a, err := s.admit(ctx, tx, &p, &head)
	if err != nil {
		return s.rejected(ctx, tx, p, lookFirst, err)
	}
	pl := topupd.Place(&p, &a.pack, &a.line, a.draft)
	o, err := s.writePlacement(ctx, tx, &p, &pl, &a)
	return o, false, err
}

// admitted is what a placement's checks read, under the account's lock.
type admitted struct {
	pack topupd.Pack // at the account's price
	line topupd.Line
	// draft is the order the request makes of the pack (topupd.Prepare).
	draft topupd.Draft
	// bal is the account's balance, and balSeq its newest entry's seq.
	bal    topupd.Money
	balSeq int64
	// stock is the pack's codes available, read under its stock level's
	// lock, when the order draws from stock.
	stock int
}

// admit runs a placement's checks, in this transaction: the pack, its
// line and the account's price (prepare), the price guard, the spending
// limits, the balance and the stock. A refusal is the domain's error,
// naming the line's game.
func (s *Store) admit(ctx context.Context, tx *sql.Tx, p *topupd.PlaceOrder, head *orderHead) (admitted, error) {
	var a admitted
	var err error
	if a.bal, a.balSeq, err = s.orderBalance(ctx, tx, p.AccountID, head); err != nil {
		return a, err
	}
	// The account's price is read here, in the transaction that charges it.
	var limits topupd.Limits
	if a.pack, a.line, a.draft, limits, err = s.prepare(ctx, tx, p, head); err != nil {
		return a, err
	}
	// The price guard compares the amount charged below, in this transaction.
	if err := p.Request.CheckMaxPrice(&a.draft, a.line.Game); err != nil {
		return a, err
	}
	reject := func(code topupd.ErrorCode) error { return &topupd.Error{Code: code, Game: a.line.Game} }
	if err := s.withinLimits(ctx, tx, *p, &limits, a.draft.Amount); err != nil {
		if e, ok := err.(*topupd.Error); ok {
			e.Game = a.line.Game
		}
		return a, err
	}
	if a.bal < a.draft.Amount {
		return a, reject(topupd.EInsufficientBalance)
	}
	if a.draft.DrawsStock {
		if a.stock, err = s.lockedStock(ctx, tx, a.pack.PID); err != nil || a.stock < a.draft.Quantity {
			return a, cmp.Or(err, reject(topupd.EInsufficientStock))
		}
	}
	return a, nil
}

// writePlacement writes a placement the checks admitted: the order, its
// supplier list, its charge, its codes (drawn from stock, or a sandbox's
// TEST- codes), the answer its placement records, its events and the
// roll-ups.
func (s *Store) writePlacement(ctx context.Context, tx *sql.Tx, p *topupd.PlaceOrder, pl *topupd.Placement, a *admitted) (topupd.Order, error) {
	o := pl.Order
	reject := func(code topupd.ErrorCode) error { return &topupd.Error{Code: code, Game: a.line.Game} }
	if pl.BatchCost { // the codes about to be drawn fix the cost: each its batch's (batches.go)
		cost, err := s.stockCost(ctx, tx, o.PID, o.Quantity, a.pack.Cost)
		if err != nil {
			return o, err
		}
		o.Cost = cost
	}
	if err := s.insertOrder(ctx, tx, &o, *p, pl.First.RetryAt); err != nil {
		return o, err
	}
	if err := s.snapshotSuppliers(ctx, tx, &o, pl.Suppliers); err != nil {
		return o, err
	}
	charge := topupd.LedgerEntry{AccountID: p.AccountID, Kind: topupd.EntryCharge, Amount: -o.Amount, CreatedAt: p.Now}
	if _, err := s.appendEntryAfter(ctx, tx, charge, o.Seq, a.bal, a.balSeq); err != nil {
		if topupd.CodeOf(err) == topupd.EInsufficientBalance {
			return o, reject(topupd.EInsufficientBalance)
		}
		return o, err
	}
	if err := s.giveCodes(ctx, tx, &o, pl, a); err != nil {
		if topupd.CodeOf(err) == topupd.EInsufficientStock {
			return o, reject(topupd.EInsufficientStock)
		}
		return o, err
	}
	if pl.Answered { // the history says who completed it, or that it is pending, as a settlement's does
		kind, note := topupd.EventCompleted, settledBy(ctx, o.Provider)
		if pl.First.State != topupd.OutcomeCompleted {
			kind, note = topupd.EventRetry, topupd.NoteSupplierPending
		}
		if err := addEvent(ctx, tx, o.Seq, p.Now, kind, note); err != nil {
			return o, err
		}
	}
	// Placed, and completed for an order that completes as it is placed,
	// in one statement.
	events := append([]topupd.Event{placedEvent(&o, p.Now)}, settledEvents(&o, p.Now)...)
	if err := emit(ctx, tx, events...); err != nil {
		return o, err
	}
	// Last: the durations roll-up's row (a day, a line, a bucket) is one
	// that every order of the line finished in that bucket writes, so its
	// lock is taken just before the commit, as Settle takes it.
	if o.Status.Final() {
		if err := s.rollUpDuration(ctx, tx, &o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// giveCodes gives a new order the codes its placement says: a sandbox's
// TEST- codes, or its quantity drawn from the pack's stock (and what the
// draw tells: stockMoved); too few to draw is EInsufficientStock.
func (s *Store) giveCodes(ctx context.Context, tx *sql.Tx, o *topupd.Order, pl *topupd.Placement, a *admitted) error {
	switch {
	case pl.TestCodes:
		o.Codes = topupd.TestCodes(o.ID, o.Quantity)
	case pl.Draw:
		var err error
		var level *int
		if o.Codes, level, err = s.drawCodes(ctx, tx, o); err != nil {
			return err
		}
		if len(o.Codes) != o.Quantity {
			return topupd.Fail(topupd.EInsufficientStock)
		}
		if err := s.stockMoved(ctx, tx, o.PID, level, a.stock, a.stock-len(o.Codes)); err != nil {
			return err
		}
	}
	return nil
}

// rejected answers a request the checks refused with err. One that has
// not looked for its repeat yet (lookedFirst false) looks now, and a
// repeat found is answered as it is, as looking first would have: a
// replay whatever the catalog, limits or balance say now. An error that
// is not the domain's (the database's) is answered as it is.
func (s *Store) rejected(ctx context.Context, tx *sql.Tx, p topupd.PlaceOrder, lookedFirst bool, err error) (topupd.Order, bool, error) {
	var refusal *topupd.Error
	if !lookedFirst && errors.As(err, &refusal) {
		if prev, replay, found, rerr := s.repeatOf(ctx, tx, p); found || rerr != nil {
			return prev, replay, rerr
		}
	}
	return topupd.Order{}, false, err
}

// repeatOf finds an earlier order the request repeats, whatever the
// catalog says now: the account's idempotency key (idempotencyKey, or else
// the trxid) names the request, whatever trxid it carries, and a trxid
// already held names an order too; the key's order comes first. Both are
// looked up in one statement. The domain decides what the repeat is
// (topupd.DecideRepeat): a replay, FORBIDDEN or IDEMPOTENCY_KEY_REUSED.
// With p.HintHeld, a repeat of an order whose first supplier call runs is
// DUPLICATE_IN_FLIGHT.
func (s *Store) repeatOf(ctx context.Context, tx *sql.Tx, p topupd.PlaceOrder) (prev topupd.Order, replay, found bool, err error) {
	req := &p.Request
	prev, err = scanOrder(tx.QueryRowContext(ctx, s.q.orderRepeat, p.AccountID, req.Key(), req.TrxID, boolInt(p.Sandbox)))
	if isNoRows(err) {
		return topupd.Order{}, false, false, nil
	} else if err != nil {
		return prev, false, true, err
	}
	if replay, err = topupd.DecideRepeat(req, p.AccountID, &prev); err != nil {
		return topupd.Order{}, false, true, err
	}
	if p.HintHeld && prev.FirstCallRunning() {
		return topupd.Order{}, false, true, topupd.Fail(topupd.EDuplicateInFlight)
	}
	return prev, replay, true, s.loadCodes(ctx, tx, &prev)
}

// PrepareOrder checks an order request as PlaceOrder would, short of the
// account's limits, balance and stock, and places nothing: the pack, at
// the account's price, and the draft order.
func (s *Store) PrepareOrder(ctx context.Context, p topupd.PlaceOrder) (topupd.Pack, topupd.Draft, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return topupd.Pack{}, topupd.Draft{}, fmt.Errorf("store.PrepareOrder %q: %w", p.Request.PID, err)
	}
	defer tx.Rollback()
	pack, _, draft, _, err := s.prepare(ctx, tx, &p, nil)
	if err != nil {
		return topupd.Pack{}, topupd.Draft{}, fmt.Errorf("store.PrepareOrder %q: %w", p.Request.PID, err)
	}
	return pack, draft, nil
}

// prepare reads the pack the request names, its line and the account's
// terms (termsOf: kept in memory when head, the account's locked row, says
// they still hold), and checks the request against them (topupd.Prepare);
// the pack comes back at the account's price.
func (s *Store) prepare(ctx context.Context, tx *sql.Tx, p *topupd.PlaceOrder, head *orderHead) (topupd.Pack, topupd.Line, topupd.Draft, topupd.Limits, error) {
	pack, line, book, limits, err := s.termsOf(ctx, tx, p, head)
	if err != nil {
		return pack, line, topupd.Draft{}, limits, err
	}
	if p.SimOff && pack.Provider == topupd.ProviderSim && !p.Sandbox {
		return pack, line, topupd.Draft{}, topupd.Limits{}, topupd.Errorf(topupd.EProductDisabled, "the sim supplier is off")
	}
	if p.Sandbox {
		limits = topupd.Limits{} // held to no spending limit
	}
	pack.Price = book.PriceOf(&pack)
	draft, err := topupd.Prepare(&p.Request, &line, &pack)
	return pack, line, draft, limits, err
}

// packAndLine reads the pack a PID names and its line, in one statement;
// when it finds none, the two apart tell which is missing.
func (s *Store) packAndLine(ctx context.Context, tx *sql.Tx, pid string) (topupd.Pack, topupd.Line, error) {
	pack, line, err := scanPackAndLine(tx.QueryRowContext(ctx, packAndLineSQL, pid))
	if !isNoRows(err) {
		return pack, line, err
	}
	pack, err = scanPack(tx.QueryRowContext(ctx, `SELECT `+packColumns+` FROM packs WHERE pid = $1`, pid))
	if isNoRows(err) {
		return pack, topupd.Line{}, topupd.Fail(topupd.EUnknownPID)
	} else if err != nil {
		return pack, topupd.Line{}, err
	}
	line, err = scanLine(tx.QueryRowContext(ctx, `SELECT `+lineColumns+` FROM lines WHERE slug = $1`, pack.Slug))
	if isNoRows(err) {
		return pack, line, topupd.Errorf(topupd.EInvalidPack, "pack %s has no service line", pack.PID)
	}
	return pack, line, err
}

// scanPackAndLine reads a row of packAndLineSQL: scanPack's columns, then
// scanLine's. The row is scanned once, inside scanLine's Scan inside
// scanPack's, so each finishes its own fields after the values are in.
func scanPackAndLine(row scanner) (topupd.Pack, topupd.Line, error) {
	var line topupd.Line
	pack, err := scanPack(scanFunc(func(packDest ...any) error {
		var err error
		line, err = scanLine(scanFunc(func(lineDest ...any) error {
			return row.Scan(append(packDest, lineDest...)...)
		}))
		return err
	}))
	return pack, line, err
}

// lockedStock reads how many codes a pack has available. The stock
// level's row lock makes the draws of one pack take turns, so the count
// here is the count at the draw.
func (s *Store) lockedStock(ctx context.Context, tx *sql.Tx, pid string) (int, error) {
	var avail int
	if err := tx.QueryRowContext(ctx, s.q.lockStock, pid).Scan(&avail); err != nil && !isNoRows(err) {
		return 0, err
	}
	return avail, nil
}

// insertOrder stores a new order and sets its Seq: the next of its
// account's orders, due for the engine now (or at due, when not zero)
// unless it is final or its caller holds its lease. It counts the order in
// its day's sales roll-up.
func (s *Store) insertOrder(ctx context.Context, tx *sql.Tx, o *topupd.Order, p topupd.PlaceOrder, due time.Time) error {
	if err := insertOrderRow(ctx, tx, o, p, due); err != nil {
		return err
	}
	return s.rollUp(ctx, tx, o, placedDelta(o))
}

// insertOrderRow is insertOrder without the roll-up: the account's order
// count and the order's row.
func insertOrderRow(ctx context.Context, tx *sql.Tx, o *topupd.Order, p topupd.PlaceOrder, due time.Time) error {
	var accountSeq int64
	if err := tx.QueryRowContext(ctx, `UPDATE accounts SET order_count = order_count + 1 WHERE id = $1 RETURNING order_count`, p.AccountID).Scan(&accountSeq); err != nil {
		return fmt.Errorf("account %s: %w", p.AccountID, err)
	}
	var nextAttempt, leaseOwner, leaseUntil any = ms(p.Now), nil, nil
	switch {
	case o.Status.Final():
		nextAttempt = nil
	case o.Supplier == topupd.SupplierSubmitting:
		leaseOwner, leaseUntil = p.LeaseOwner, ms(p.LeaseUntil)
	case !due.IsZero():
		nextAttempt = ms(due)
	}
	err := tx.QueryRowContext(ctx, `INSERT INTO orders (id, account_id, account_seq, trxid, idem_key, fingerprint, pid, slug, game, kind, pack_name, provider,
			quantity, amount, user_id, zone_id, server_id, region, more_id, status, created_at, finished_at, deadline_at, next_attempt_at, lease_owner, lease_until, supplier,
			upstream, upstream_pid, code_count, cost, sandbox, attempts, via, hops)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33,
			$34, $35)
		ON CONFLICT DO NOTHING RETURNING seq`,
		o.ID, o.AccountID, accountSeq, o.TrxID, o.IdempotencyKey, o.Fingerprint, o.PID, o.Slug, o.Game, string(o.Kind), o.PackName, o.Provider,
		o.Quantity, int64(o.Amount), o.Fields.UserID, o.Fields.ZoneID, o.Fields.ServerID, o.Fields.Region, o.Fields.MoreID, string(o.Status),
		ms(o.CreatedAt), msOrNull(o.FinishedAt), ms(o.DeadlineAt), nextAttempt, leaseOwner, leaseUntil, string(o.Supplier),
		o.Upstream, o.UpstreamPID, o.CodeCount, moneyOrNull(o.Cost), boolInt(o.Sandbox), o.Attempts,
		strings.Join(o.Route.Via, ","), o.Route.Hops).Scan(&o.Seq)
	if isNoRows(err) {
		return errOrderTaken
	}
	return err
}

// errOrderTaken is an order's INSERT that a unique index of orders turned
// away (ON CONFLICT DO NOTHING): its trxid, or the account's idempotency
// key, is an earlier order's. PlaceOrder treats it as the unique violation
// it would otherwise be; turning it away instead spares the transaction
// its abort, and PostgreSQL's log an ERROR line for every repeat a client
// sends once its in-flight hint has lapsed (a retry after a timeout).
var errOrderTaken = errors.New("the order's trxid or idempotency key is taken")

// drawCodes gives the oldest available codes of the order's pack to it and
// returns them opened, in the order a lookup lists them (by code id), and
// the pack's low-stock level as it stands at the draw (read by the draw's
// own statement, after the stock level's lock: not the level the order's
// cached terms hold, which a change that committed meanwhile may have
// moved). Withdrawn codes (of a voided batch) are not available; the
// order's cost, fixed before, is theirs (stockCost).
func (s *Store) drawCodes(ctx context.Context, tx *sql.Tx, o *topupd.Order) ([]string, *int, error) {
	type drawn struct {
		id     int64
		sealed []byte
		level  sql.NullInt64
	}
	got, err := queryAll(ctx, tx, func(r scanner) (drawn, error) {
		var d drawn
		err := r.Scan(&d.id, &d.sealed, &d.level)
		return d, err
	}, s.q.drawCodes, o.Seq, o.PID, o.Quantity)
	if err != nil || len(got) == 0 {
		return nil, nil, err
	}
	slices.SortFunc(got, func(a, b drawn) int { return cmp.Compare(a.id, b.id) })
	codes := make([]string, len(got))
	for i, d := range got {
		if codes[i], err = s.vault.Open(o.PID, d.sealed); err != nil {
			return nil, nil, fmt.Errorf("order %s: %w", o.ID, err)
		}
	}
	return codes, levelOf(got[0].level), nil
}

// moneyOrNull stores an optional amount.
func moneyOrNull(m *topupd.Money) any {
	if m == nil {
		return nil
	}
	return int64(*m)
}

// withinLimits checks an order's amount against the account's spending
// limits: the day's spend is read under the account's lock, so orders
// placed at once are checked one after another.
func (s *Store) withinLimits(ctx context.Context, tx *sql.Tx, p topupd.PlaceOrder, limits *topupd.Limits, amount topupd.Money) error {
	var spent topupd.Money
	if limits.CountsTheDay() {
		var err error
		if spent, err = s.spentToday(ctx, tx, p.AccountID, p.Now); err != nil {
			return err
		}
	}
	return limits.Allow(amount, spent)
}
