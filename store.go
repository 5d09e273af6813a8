package topupd

import (
	"context"
	"time"
)

// Store keeps everything durable. Each method is one transaction; the
// database's constraints, not the caller, keep balances, stock and
// idempotency right.
type Store interface {
	AccountStore
	CatalogStore
	OrderStore
	FulfilmentStore
	UpstreamStore
	OperatorStore
	ConsoleStore
	ChatStore
	PriceStore
	BatchStore
	StreamStore
	WebhookStore
	CatalogSyncStore
	UpstreamDepositStore
	FundsStore
	ReconciliationStore
	DepositStore
	PricingStore
	DisputeStore
	PriceChangeStore
	// Settings returns the operator's settings.
	Settings(ctx context.Context) (Settings, error)
	// UpdateSettings applies a patch and returns the new settings.
	UpdateSettings(ctx context.Context, ch *Change, p SettingsPatch) (Settings, error)
	// Audit checks every invariant of the books over the whole database,
	// at now: orders-final counts the orders still processing past their
	// deadline and FinalGrace.
	Audit(ctx context.Context, now time.Time) (Audit, error)
	// Gauges counts the orders processing and sums the reseller balances.
	Gauges(ctx context.Context) (Gauges, error)
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// Instance returns this deployment's instance id (route.go), made by
	// the first call on the database and never changed.
	Instance(ctx context.Context) (string, error)
	// Close releases the database.
	Close() error
}

// AccountStore keeps accounts, their keys and their ledgers.
type AccountStore interface {
	// CreateAccount stores a new account; a.ID must be set.
	CreateAccount(ctx context.Context, ch *Change, a Account) (Account, error)
	// Account returns one account, or ENotFound.
	Account(ctx context.Context, id string) (Account, error)
	// CountAccounts returns how many accounts exist.
	CountAccounts(ctx context.Context) (int, error)
	// UpdateAccount applies a patch and returns the account, or ENotFound.
	UpdateAccount(ctx context.Context, ch *Change, id string, p AccountPatch) (Account, error)
	// AddKey stores the hash of a new API key of k.AccountID (ENotFound
	// when there is no such account).
	AddKey(ctx context.Context, ch *Change, k APIKey, h KeyHash) error
	// Keys lists an account's keys, newest first, revoked ones too.
	Keys(ctx context.Context, accountID string) ([]APIKey, error)
	// UseKey records that a key was used in the minute that starts at minute.
	UseKey(ctx context.Context, h KeyHash, minute time.Time) error
	// Accounts lists accounts, newest first.
	Accounts(ctx context.Context, q AccountsQuery) ([]Account, error)
	// Statement reads an account's entries made in [from, to) and its
	// balances at both ends; more than MaxStatementEntries is EInvalidRequest.
	Statement(ctx context.Context, accountID string, from, to time.Time) (Statement, error)
	// RevokeKey refuses a key from now on (or from a later time, as a
	// rotation asks; the earliest revocation asked for stands), or
	// ENotFound.
	RevokeKey(ctx context.Context, ch *Change, keyID string, now time.Time) error
	// RotateKey adds a new key to the old key's account and revokes the
	// old one at revokeAt, in one transaction; an unknown or revoked old
	// key is ENotFound.
	RotateKey(ctx context.Context, ch *Change, oldKeyID string, k APIKey, h KeyHash, revokeAt time.Time) error
	// AccountByKey returns the account owning a key live at now (not
	// revoked, or revoked only from a later time), or EInvalidKey.
	AccountByKey(ctx context.Context, h KeyHash, now time.Time) (Account, error)
	// Balance returns the sum of the account's ledger entries.
	Balance(ctx context.Context, accountID string) (Money, error)
	// CreditedTotal returns the sum of the account's credit entries.
	CreditedTotal(ctx context.Context, accountID string) (Money, error)
	// Credit adds a credit (or, negative, a correction) entry. A reference
	// already used for the account credits nothing and returns the first
	// entry, with repeated true. A balance that would go below zero is
	// EInsufficientBalance.
	Credit(ctx context.Context, ch *Change, accountID string, amount Money, reference string, now time.Time) (e LedgerEntry, repeated bool, err error)
	// Ledger returns the account's entries, newest first.
	Ledger(ctx context.Context, accountID string, limit int) ([]LedgerEntry, error)
	// LedgerBefore returns the account's entries older than its entry
	// beforeID (an entry's ID), newest first: a page of older entries.
	LedgerBefore(ctx context.Context, accountID string, beforeID int64, limit int) ([]LedgerEntry, error)
	// OrderEntries returns the entries of one order (by internal seq): its
	// charge and any refund, oldest first.
	OrderEntries(ctx context.Context, orderSeq int64) ([]LedgerEntry, error)
}

// CatalogStore keeps service lines, packs and code stock.
type CatalogStore interface {
	// PutLine creates or replaces a line.
	PutLine(ctx context.Context, ch *Change, l Line) error
	// Lines returns every line, disabled ones too, by slug.
	Lines(ctx context.Context) ([]Line, error)
	// PutPack creates or replaces a pack.
	PutPack(ctx context.Context, ch *Change, p Pack) error
	// UpdateLine changes a stored line in one transaction: apply gets it as
	// stored and edits it, or refuses with an error that leaves it as it
	// was. An unknown slug is ENotFound.
	UpdateLine(ctx context.Context, ch *Change, slug string, apply func(*Line) error) (Line, error)
	// UpdatePack changes a stored pack as UpdateLine does a line.
	UpdatePack(ctx context.Context, ch *Change, pid string, apply func(*Pack) error) (Pack, error)
	// Packs returns every pack, disabled ones too, by PID.
	Packs(ctx context.Context) ([]Pack, error)
	// StockLevels returns the codes available per PID (PIDs without stock are absent).
	StockLevels(ctx context.Context) (map[string]int, error)
	// AddStock adds codes to a pack's stock; a code already held anywhere
	// (in any pack's stock, or delivered by any order) is a duplicate and
	// not added.
	AddStock(ctx context.Context, pid string, codes []string, now time.Time) (StockResult, error)
}

// StockResult is what AddStock did.
type StockResult struct {
	Added      int
	Duplicates int
	Available  int
	// BatchID is the batch the codes were added to.
	BatchID int64
}

// PlaceOrder is everything the store needs to place one order.
type PlaceOrder struct {
	AccountID string
	Request   OrderRequest
	Now       time.Time
	// Deadline is how long the order may take before it is cancelled and refunded.
	Deadline time.Duration
	// LeaseOwner and LeaseUntil, when set, claim the new order for the
	// caller's own first supplier call.
	LeaseOwner string
	LeaseUntil time.Time
	// SimOff refuses a pack fulfilled by sim as PRODUCT_DISABLED.
	SimOff bool
	// Sandbox places the order in the account's sandbox (sandbox.go),
	// priced as the account's, fulfilled by the sim rules.
	Sandbox bool
	// HintHeld says the request found an in-flight hint of its trxid or
	// idempotency key held (OrderLimiter): an earlier request began less
	// than the hint's ttl ago. A repeat of an order whose first supplier
	// call still runs (Order.FirstCallRunning) is then DUPLICATE_IN_FLIGHT
	// instead of a replay; every other answer is the same as without it.
	// Under the account's lock, an earlier request of the account still in
	// its transaction has committed before the look-up: finding no order
	// means the first was rejected, failed, or has not reached the store,
	// and the request is placed as any other (the unique indexes decide).
	HintHeld bool
	// Sim says how the sim supplier answers a first call, by the settings
	// the caller read (SimTermsOf). When it answers at once and the caller
	// makes the first call (LeaseOwner), a top-up of a pack the sim rules
	// fulfil, with no supplier list, gets that call's answer in its
	// placement's transaction, as the call would have recorded it in a
	// second one: with no delay, one they complete completes, and one they
	// refuse is placed as any other and refused by that call; with a delay,
	// it is placed pending, accepted by the supplier and due the delay
	// after placement (never past its deadline), with no lease: the engine
	// asks again then, as after a recorded pending answer.
	Sim SimTerms
	// Route is the servers the request passed through before this one
	// (ParseRoute): kept with the order.
	Route Route
}

// HistoryQuery selects a page of an account's orders, newest first.
type HistoryQuery struct {
	Offset int
	Limit  int
	// TrxID, when set, selects the account's order of that trxid alone:
	// the total is then 0 or 1.
	TrxID string
}

// OrdersQuery selects orders of every account for the operator, newest
// first; every field set narrows the selection (AND).
type OrdersQuery struct {
	// Sandbox selects the sandboxes' orders alone; else the live ones alone.
	Sandbox   bool
	Status    OrderStatus // empty: any
	AccountID string
	TrxID     string
	// TrxIDPrefix selects the orders whose trxid starts with it, whatever
	// the case of either. Its page is ordered by trxid (then seq), not by
	// time, and has no next page: Before is not read.
	TrxIDPrefix string
	// PlayerID selects the orders for one player (the order's userId).
	PlayerID string
	// Code selects the live order that delivered this exact code (case
	// and spaces count): 0 or 1 (back-office.md 5, search by code).
	Code     string
	PID      string
	Slug     string
	Provider string
	// From and To bound CreatedAt to [From, To); zero leaves a side open.
	From, To time.Time
	// Stuck selects processing orders past their deadline at Now, or
	// carrying an alert.
	Stuck bool
	Now   time.Time
	// Before, when set, selects the orders after this one in the list: the
	// next page.
	Before *ListKey
	Limit  int
}

// ListKey is a row's place in a newest-first admin list: by time, then by
// number (an order's CreatedAt and Seq, an action's At and ID).
type ListKey struct {
	At  time.Time
	Seq int64
}

// OrderStore places and reads orders.
type OrderStore interface {
	// PlaceOrder validates, charges, draws codes and creates the order in one
	// transaction. A request repeating an earlier key returns that order with
	// replay true and moves nothing; a rejected order moves nothing.
	PlaceOrder(ctx context.Context, p PlaceOrder) (o Order, replay bool, err error)
	// PrepareOrder checks an order request as PlaceOrder would, short of
	// the account's limits, balance and stock, and places nothing: it
	// returns the pack, at the account's price, and the draft order.
	PrepareOrder(ctx context.Context, p PlaceOrder) (Pack, Draft, error)
	// Order returns one order by public or internal id; accountID "" means
	// any account. Another account's order is EOrderNotFound.
	Order(ctx context.Context, accountID, id string) (Order, error)
	// OrderCodes returns one order by public or internal id with its
	// delivered codes in full, and records the read in the action log (the
	// Change in ctx, its target the order's public id, never a code) in the
	// same transaction: codes are never read unless the record is
	// committed. An unknown order is EOrderNotFound.
	OrderCodes(ctx context.Context, ch *Change, id string) (Order, error)
	// ResellerOrder is Order for the reseller API: one of the account's
	// orders, holding only the fields of Order.ResellerView.
	ResellerOrder(ctx context.Context, accountID, id string) (Order, error)
	// ResellerOrderWithoutCodes is ResellerOrder without the codes, which
	// it neither reads nor opens: what a webhook event says of an order.
	ResellerOrderWithoutCodes(ctx context.Context, accountID, id string) (Order, error)
	// History returns a page of the account's orders, holding only the
	// fields of Order.ResellerView, and how many orders the account has.
	History(ctx context.Context, accountID string, q HistoryQuery) (orders []Order, total int, err error)
	// Orders returns orders of every account, newest first.
	Orders(ctx context.Context, q OrdersQuery) ([]Order, error)
	// StuckCounts counts the stuck orders (as OrdersQuery.Stuck selects
	// them at now) of each provider and upstream.
	StuckCounts(ctx context.Context, now time.Time) ([]StuckCount, error)
	// SalesReport sums the orders created in [from, to) by the grouping,
	// one row per key, keys ascending (a day's key is its Day).
	SalesReport(ctx context.Context, from, to time.Time, by SalesGroup) ([]SalesRow, error)
	// OrderEvents returns the events recorded of one order (by internal
	// id), oldest first; an order without any, or no such order, has none.
	OrderEvents(ctx context.Context, seq int64) ([]OrderEvent, error)
	// Durations reads how long the orders created on the whole UTC days
	// that [from, to) touches took from placed to final, one row per line
	// with any final order, by slug.
	Durations(ctx context.Context, from, to time.Time) ([]DurationRow, error)
}

// Settlement is what to do with a processing order after a supplier call or
// an operator's decision.
type Settlement struct {
	// Status is StatusCompleted, StatusCancelled, or StatusProcessing to
	// release the lease and retry at RetryAt.
	Status   OrderStatus
	Codes    []string
	Error    string
	Refund   bool
	RetryAt  time.Time
	Supplier SupplierState
	// SupplierRef, when set, records the supplier's own id of the order.
	SupplierRef string
	Now         time.Time
	// LeaseOwner, when set, must still hold the order's lease.
	LeaseOwner string
	// Alert, with StatusProcessing, records why the order needs the
	// operator; a processing settlement without one clears it.
	Alert string
	// Note, with StatusProcessing, says why the order is rescheduled; the
	// order's history records it (after the alert, if any).
	Note string
	// By, when set, is the supplier whose answer the settlement records:
	// the order must still be at that supplier (a worker that called a
	// supplier the order has since moved on from settles nothing).
	By *Supplier
	// Waited, with a final Status, is the note of a pending answer the
	// engine waited out in memory at WaitedAt, before this settlement's
	// answer: the order's history records it first, as the retry line it
	// would have been had it been recorded then.
	Waited   string
	WaitedAt time.Time
	// Cost, with StatusCompleted, is the cost fixed on the order instead
	// of its supplier's (a reconciliation's complete-order: their charge).
	Cost *Money
}

// FulfilmentStore lets the engine claim and settle processing orders.
type FulfilmentStore interface {
	FailoverStore
	FundsRouting
	// ClaimDue leases up to limit processing orders whose next attempt is due
	// and whose lease (if any) has run out.
	ClaimDue(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]Order, error)
	// NextDue returns when the earliest processing order that no lease
	// holds at now falls due, if any. An order leased to a worker (in a
	// supplier call, or waiting out a pending answer) is not due: its
	// worker settles it, or its lease runs out and a later look finds it.
	NextDue(ctx context.Context, now time.Time) (time.Time, bool, error)
	// MarkSubmitting records, before a submit, that its outcome may become
	// unknown, and the attempt in the order's history.
	MarkSubmitting(ctx context.Context, seq int64, owner string) error
	// Settle completes, cancels or reschedules a processing order, and
	// records it in the order's history. A final order is EOrderFinal; a
	// lost lease is EConflict; a code to deliver that is already held
	// anywhere is ECodeAlreadyUsed, and nothing changes.
	Settle(ctx context.Context, ch *Change, seq int64, s Settlement) (Order, error)
	// ReleaseLeases lets go of every order the owner holds.
	ReleaseLeases(ctx context.Context, owner string) error
	// Order returns one order by public or internal id ("" account: any).
	Order(ctx context.Context, accountID, id string) (Order, error)
	// RetryOrder makes a processing order due now, releases its lease,
	// moves its deadline to no earlier than deadline, and records it in the
	// order's history; a final order is EOrderFinal.
	RetryOrder(ctx context.Context, ch *Change, seq int64, now, deadline time.Time) (Order, error)
}

// UpstreamStore keeps the upstream servers packs can be ordered from; their
// API keys are sealed at rest.
type UpstreamStore interface {
	// PutUpstream creates or replaces an upstream.
	PutUpstream(ctx context.Context, ch *Change, u Upstream) error
	// Upstream returns one upstream with its API key, or ENotFound.
	Upstream(ctx context.Context, name string) (Upstream, error)
	// Upstreams returns every upstream by name, with their API keys.
	Upstreams(ctx context.Context) ([]Upstream, error)
	// DeleteUpstream removes an upstream: ENotFound when there is none,
	// EUpstreamInUse while a pack names it (as its upstream or in its
	// suppliers) or a processing order is there or may go there.
	DeleteUpstream(ctx context.Context, ch *Change, name string) error
	// RecordUpstreamCheck records a check of an upstream: ok with the
	// balance it read (at at), or failing (balance nil); ENotFound when
	// there is none.
	RecordUpstreamCheck(ctx context.Context, ch *Change, name string, balance *Money, at time.Time) (Upstream, error)
	// SetUpstreamThresholds sets an upstream's runway thresholds (nil
	// keeps one); EInvalidBody for thresholds CheckThresholds refuses.
	SetUpstreamThresholds(ctx context.Context, ch *Change, name string, warn, critical *float64) (Upstream, error)
}

// StuckCount is how many stuck orders one supplier has.
type StuckCount struct {
	Provider, Upstream string
	Orders             int
}

// Gauges are totals read for the metrics at each scrape.
type Gauges struct {
	// Processing counts the orders processing, on every node.
	Processing int
	// Balances sums every account's balance: what the business owes its resellers.
	Balances Money
}

// OperatorStore keeps the operators, their tokens and the action log. A
// write given a Change (the argument after ctx; nil for the server's own
// work) writes that change to the action log in its own transaction: both
// commit, or neither does.
type OperatorStore interface {
	// CreateOperator stores a new operator with its first token (hashed); a
	// name taken is EConflict.
	CreateOperator(ctx context.Context, ch *Change, o Operator, token KeyHash) (Operator, error)
	// Operators lists every operator by name.
	Operators(ctx context.Context) ([]Operator, error)
	// UpdateOperator applies a patch; an unknown name is ENotFound.
	UpdateOperator(ctx context.Context, ch *Change, name string, p OperatorPatch) (Operator, error)
	// AddOperatorToken stores one more token (hashed) of an operator.
	AddOperatorToken(ctx context.Context, ch *Change, name string, token KeyHash, now time.Time) error
	// OperatorByToken finds the operator a token belongs to: ENotFound when
	// no operator has it.
	OperatorByToken(ctx context.Context, token KeyHash) (Operator, error)
	// SeeOperator records, to the minute, that an operator called now.
	SeeOperator(ctx context.Context, name string, now time.Time) error
	// Actions reads the action log, newest first.
	Actions(ctx context.Context, q ActionsQuery) ([]Action, error)
}
