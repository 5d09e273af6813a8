// Package storetest is the behaviour suite that every topupd.Store must pass:
// each store's own tests call Run with a function that opens a fresh store.
package storetest

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/topupd/topupd"
)

// Run runs the whole suite; open must return a fresh, empty, migrated store
// for each subtest and close it when the subtest ends (t.Cleanup).
func Run(t *testing.T, open func(t *testing.T) topupd.Store) {
	run(t, open, nil)
}

// RunWithoutRaces runs the suite but for its races (the tests named in
// races), for a second way of talking to a store already tested with Run:
// PostgreSQL's simple protocol, where what differs is how each argument
// is sent (as text, quoted by the driver) and each column read back (as
// text). The races add nothing there: each sends the very statements of
// the sequential tests, with arguments of the same types, only many at
// once, and what they check (locks, unique indexes, retries) is the
// server's, the same in either protocol. They are a good part of the
// suite's time, run a second time for nothing.
func RunWithoutRaces(t *testing.T, open func(t *testing.T) topupd.Store) {
	run(t, open, races)
}

// races are the suite's tests whose point is many callers at once, by
// group and name.
var races = map[string]bool{
	"Races/Overdraft": true, "Races/Stock": true, "Races/IdempotencyStorm": true, "Races/CreditReference": true,
	"Races/DoubleRefund": true, "Races/ClaimOnce": true, "Races/AbortingCallers": true,
	"Batches/VoidRacingDraws": true, "Batches/VoidRacingUpload": true, "Chats/RacingUpdates": true,
	"Failover/MoveSupplierOnce": true, "Actions/RacingChanges": true, "Console/LoginRace": true,
}

// run runs the suite but for the tests skip names ("Group/Name").
func run(t *testing.T, open func(t *testing.T) topupd.Store, skip map[string]bool) {
	groups := []struct {
		name  string
		tests []test
	}{
		{"Accounts", accountTests},
		{"Ledger", ledgerTests},
		{"Settings", settingsTests},
		{"Catalog", catalogTests},
		{"PlaceOrder", placeTests},
		{"Rejections", rejectTests},
		{"Lookup", lookupTests},
		{"Returned", returnedTests},
		{"Fulfilment", fulfilTests},
		{"Races", raceTests},
		{"Upstreams", upstreamTests},
		{"Audit", auditTests},
		{"Actions", actionTests},
		{"Lists", listTests},
		{"Reports", reportTests},
		{"OrderEvents", eventTests},
		{"Durations", durationTests},
		{"Console", consoleTests},
		{"Chats", chatTests},
		{"Failover", failoverTests},
		{"Funds", fundsTests},
		{"Batches", batchTests},
		{"Stream", streamTests},
	}
	known := map[string]bool{}
	for _, g := range groups {
		for _, tc := range g.tests {
			known[g.name+"/"+tc.name] = true
		}
	}
	for name := range skip {
		if !known[name] {
			t.Errorf("storetest: no test %s to leave out", name)
		}
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.tests {
				if skip[g.name+"/"+tc.name] {
					continue
				}
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					tc.run(t, newEnv(t, open))
				})
			}
		})
	}
}

// test is one named behaviour, run on a fresh store.
type test struct {
	name string
	run  func(t *testing.T, e *env)
}

// t0 is the suite's "now": millisecond-aligned so that any store keeps it exactly.
var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// deadline is how long every order placed by the suite may take.
const deadline = 10 * time.Minute

// The suite's catalog.
const (
	gameTopup = "freefire"
	gameZone  = "mlbb"
	gameKeys  = "gamekey"
	gameCards = "giftcard"

	pidTopup       = "ff-100"     // topup, sim: processing
	pidTopupOff    = "ff-200"     // disabled pack of an active line
	pidTopupManual = "ff-manual"  // topup, manual: processing
	pidStockTopup  = "ff-voucher" // stock-based topup, sim: draws stock
	pidZone        = "ml-86"      // topup needing userId and zoneId
	pidSub         = "sub-month"  // subscription, sim: processing
	pidKey         = "key-pubg"   // gamekey, sim: draws stock
	pidKeyManual   = "key-manual" // gamekey, manual: draws stock like any key pack
	pidCard        = "card-10"    // giftcard, sim: draws stock
	pidLineOff     = "old-100"    // active pack of a disabled line

	priceTopup topupd.Money = 12_500  // 1.25 USD
	priceKey   topupd.Money = 50_000  // 5 USD
	priceCard  topupd.Money = 100_000 // 10 USD

	userID = "12345678" // matches the topup line's pattern
)

// lines is the suite's set of service lines.
var lines = []topupd.Line{
	{Slug: "freefire", ProductName: "Free Fire", GameName: "Free Fire", Game: gameTopup, Kind: topupd.KindTopup, Status: topupd.StatusActive,
		Required: []topupd.RequiredField{{Field: topupd.FieldUserID, Label: "Player ID", Pattern: "[0-9]{5,20}"}}},
	{Slug: "mlbb", ProductName: "Mobile Legends", GameName: "Mobile Legends", Game: gameZone, Kind: topupd.KindTopup, Status: topupd.StatusActive,
		Required: []topupd.RequiredField{{Field: topupd.FieldUserID, Label: "User ID"}, {Field: topupd.FieldZoneID, Label: "Zone ID", Pattern: "[0-9]+"}}},
	{Slug: "pubgsubscription", ProductName: "PUBG Prime", GameName: "PUBG Mobile", Game: "pubg", Kind: topupd.KindSubscription, Status: topupd.StatusActive,
		Required: []topupd.RequiredField{{Field: topupd.FieldUserID, Label: "Player ID"}}},
	{Slug: "gamekeypubg", ProductName: "PUBG key", GameName: "PUBG", Game: gameKeys, Kind: topupd.KindGamekey, Status: topupd.StatusActive},
	{Slug: "giftcardsteam", ProductName: "Steam card", GameName: "Steam", Game: gameCards, Kind: topupd.KindGiftcard, Status: topupd.StatusActive},
	{Slug: "oldgame", ProductName: "Old Game", GameName: "Old Game", Game: "old", Kind: topupd.KindTopup, Status: topupd.StatusDisabled,
		Required: []topupd.RequiredField{{Field: topupd.FieldUserID, Label: "Player ID"}}},
}

// packs is the suite's set of packs.
var packs = []topupd.Pack{
	{PID: pidTopup, Slug: "freefire", Name: "100 Diamonds", Category: "diamonds", Price: priceTopup, Status: topupd.StatusActive, Provider: topupd.ProviderSim},
	{PID: pidTopupOff, Slug: "freefire", Name: "200 Diamonds", Category: "diamonds", Price: 2 * priceTopup, Status: topupd.StatusDisabled, Provider: topupd.ProviderSim},
	{PID: pidTopupManual, Slug: "freefire", Name: "Manual Diamonds", Price: priceTopup, Status: topupd.StatusActive, Provider: topupd.ProviderManual},
	{PID: pidStockTopup, Slug: "freefire", Name: "Diamond voucher", Price: priceTopup, Status: topupd.StatusActive, StockBased: true, Provider: topupd.ProviderSim},
	{PID: pidZone, Slug: "mlbb", Name: "86 Diamonds", Price: priceTopup, Status: topupd.StatusActive, Provider: topupd.ProviderSim},
	{PID: pidSub, Slug: "pubgsubscription", Name: "Prime 1 month", Price: priceTopup, Status: topupd.StatusActive, Provider: topupd.ProviderSim},
	{PID: pidKey, Slug: "gamekeypubg", Name: "PUBG key", Price: priceKey, Status: topupd.StatusActive, Provider: topupd.ProviderSim},
	{PID: pidKeyManual, Slug: "gamekeypubg", Name: "PUBG key (manual)", Price: priceKey, Status: topupd.StatusActive, Provider: topupd.ProviderManual},
	{PID: pidCard, Slug: "giftcardsteam", Name: "Steam 10 USD", Price: priceCard, Status: topupd.StatusActive, Provider: topupd.ProviderSim},
	{PID: pidLineOff, Slug: "oldgame", Name: "100 Coins", Price: priceTopup, Status: topupd.StatusActive, Provider: topupd.ProviderSim},
}

// priceOf returns the unit price of one of the suite's packs.
func priceOf(pid string) topupd.Money {
	for _, p := range packs {
		if p.PID == pid {
			return p.Price
		}
	}
	panic("storetest: no pack " + pid)
}

// env is one subtest's store with helpers that fail the test on any
// unexpected error.
type env struct {
	t   *testing.T
	ctx context.Context
	s   topupd.Store
	n   *atomic.Int64 // counter for unique references and trxids
}

func newEnv(t *testing.T, open func(t *testing.T) topupd.Store) *env {
	s := open(t)
	if s == nil {
		t.Fatal("open returned a nil store")
	}
	return &env{t: t, ctx: t.Context(), s: s, n: new(atomic.Int64)}
}

// in returns the same store with helpers that fail t, a subtest's own.
func (e *env) in(t *testing.T) *env {
	return &env{t: t, ctx: e.ctx, s: e.s, n: e.n}
}

// uniq returns a fresh identifier with a prefix.
func (e *env) uniq(prefix string) string {
	return fmt.Sprintf("%s-%04d", prefix, e.n.Add(1))
}

// account creates an account and credits it with balance (when above 0).
func (e *env) account(name string, balance topupd.Money) topupd.Account {
	e.t.Helper()
	a, err := e.s.CreateAccount(e.ctx, nil, topupd.Account{ID: topupd.NewID("acc_"), Name: name, APIEnabled: true, CreatedAt: t0})
	if err != nil {
		e.t.Fatalf("CreateAccount %s: %v", name, err)
	}
	if balance > 0 {
		e.credit(a.ID, balance)
	}
	return a
}

// credit adds a credit under a fresh reference.
func (e *env) credit(accountID string, amount topupd.Money) topupd.LedgerEntry {
	e.t.Helper()
	entry, repeated, err := e.s.Credit(e.ctx, nil, accountID, amount, e.uniq("ref"), t0)
	if err != nil || repeated {
		e.t.Fatalf("Credit %s %v: repeated %v, err %v", accountID, amount, repeated, err)
	}
	return entry
}

// catalog stores the suite's lines and packs.
func (e *env) catalog() {
	e.t.Helper()
	for _, l := range lines {
		if err := e.s.PutLine(e.ctx, nil, l); err != nil {
			e.t.Fatalf("PutLine %s: %v", l.Slug, err)
		}
	}
	for _, p := range packs {
		if err := e.s.PutPack(e.ctx, nil, p); err != nil {
			e.t.Fatalf("PutPack %s: %v", p.PID, err)
		}
	}
}

// stock adds n fresh codes to a pack and returns them.
func (e *env) stock(pid string, n int) []string {
	e.t.Helper()
	codes := make([]string, n)
	for i := range codes {
		codes[i] = e.uniq(pid + "-CODE")
	}
	r, err := e.s.AddStock(e.ctx, pid, codes, t0)
	if err != nil || r.Added != n || r.Duplicates != 0 {
		e.t.Fatalf("AddStock %s (%d codes): %+v, %v", pid, n, r, err)
	}
	return codes
}

// topup returns a valid request for the plain topup pack.
func topup(trxid string) topupd.OrderRequest {
	return topupd.OrderRequest{PID: pidTopup, TrxID: trxid, Fields: topupd.AccountFields{UserID: userID}}
}

// keys returns a valid request for qty codes of a stock-drawing pack.
func keys(pid, trxid string, qty int) topupd.OrderRequest {
	return topupd.OrderRequest{PID: pid, TrxID: trxid, Quantity: qty}
}

// try places an order at t0 and returns whatever the store says.
func (e *env) try(accountID string, req topupd.OrderRequest) (topupd.Order, bool, error) {
	return e.s.PlaceOrder(e.ctx, topupd.PlaceOrder{AccountID: accountID, Request: req, Now: t0, Deadline: deadline})
}

// place places an order at now that must be accepted as new.
func (e *env) place(accountID string, req topupd.OrderRequest, now time.Time) topupd.Order {
	e.t.Helper()
	o, replay, err := e.s.PlaceOrder(e.ctx, topupd.PlaceOrder{AccountID: accountID, Request: req, Now: now, Deadline: deadline})
	if err != nil || replay {
		e.t.Fatalf("PlaceOrder %+v: replay %v, err %v", req, replay, err)
	}
	return o
}

// settle settles an order as st says, which must succeed.
func (e *env) settle(o topupd.Order, st topupd.Settlement) topupd.Order {
	e.t.Helper()
	got, err := e.s.Settle(e.ctx, nil, o.Seq, st)
	if err != nil {
		e.t.Fatalf("Settle %s %s: %v", o.ID, st.Status, err)
	}
	return got
}

// auditClean fails the test when an audit check does not hold (orders
// still processing aside, whatever their deadline), and returns the audit
// at t0.
func (e *env) auditClean() topupd.Audit {
	e.t.Helper()
	au, err := e.s.Audit(e.ctx, t0)
	if err != nil {
		e.t.Fatalf("Audit: %v", err)
	}
	for _, c := range au.Checks {
		if c.Violations != 0 && c.Name != "orders-final" {
			e.t.Errorf("audit %s: %d violations, e.g. %v", c.Name, c.Violations, c.Examples)
		}
	}
	return au
}

// balance returns the account's balance.
func (e *env) balance(accountID string) topupd.Money {
	e.t.Helper()
	b, err := e.s.Balance(e.ctx, accountID)
	if err != nil {
		e.t.Fatalf("Balance %s: %v", accountID, err)
	}
	return b
}

// ledger returns all of the account's entries, newest first.
func (e *env) ledger(accountID string) []topupd.LedgerEntry {
	e.t.Helper()
	l, err := e.s.Ledger(e.ctx, accountID, 100_000)
	if err != nil {
		e.t.Fatalf("Ledger %s: %v", accountID, err)
	}
	return l
}

// order reads one order of any account.
func (e *env) order(id string) topupd.Order {
	e.t.Helper()
	o, err := e.s.Order(e.ctx, "", id)
	if err != nil {
		e.t.Fatalf("Order %s: %v", id, err)
	}
	return o
}

// stockLevels returns the available stock per PID.
func (e *env) stockLevels() map[string]int {
	e.t.Helper()
	m, err := e.s.StockLevels(e.ctx)
	if err != nil {
		e.t.Fatalf("StockLevels: %v", err)
	}
	return m
}

// history returns the account's whole history and its total.
func (e *env) history(accountID string) ([]topupd.Order, int) {
	e.t.Helper()
	orders, total, err := e.s.History(e.ctx, accountID, topupd.HistoryQuery{Limit: 100_000})
	if err != nil {
		e.t.Fatalf("History %s: %v", accountID, err)
	}
	return orders, total
}

// allOrders returns every order of every account, newest first.
func (e *env) allOrders() []topupd.Order {
	e.t.Helper()
	orders, err := e.s.Orders(e.ctx, topupd.OrdersQuery{Limit: 100_000, Now: t0})
	if err != nil {
		e.t.Fatalf("Orders: %v", err)
	}
	return orders
}

// state is everything a rejected call must leave as it was.
type state struct {
	Balances  map[string]topupd.Money
	Ledgers   map[string][]topupd.LedgerEntry
	Histories map[string]int
	Stock     map[string]int
	Orders    []topupd.Order
}

// snapshot records the state of the given accounts and of the whole store.
func (e *env) snapshot(accountIDs ...string) state {
	e.t.Helper()
	st := state{Balances: map[string]topupd.Money{}, Ledgers: map[string][]topupd.LedgerEntry{}, Histories: map[string]int{},
		Stock: e.stockLevels(), Orders: e.allOrders()}
	for _, id := range accountIDs {
		st.Balances[id] = e.balance(id)
		st.Ledgers[id] = e.ledger(id)
		_, st.Histories[id] = e.history(id)
	}
	return st
}

// unchanged fails the test when the store's state moved since before.
func (e *env) unchanged(before state, what string) {
	e.t.Helper()
	ids := make([]string, 0, len(before.Balances))
	for id := range before.Balances {
		ids = append(ids, id)
	}
	if diff := cmp.Diff(before, e.snapshot(ids...), cmpopts.EquateEmpty()); diff != "" {
		e.t.Errorf("%s changed the store (-before +after):\n%s", what, diff)
	}
}

// codeIs reports whether err carries the code, and says so when it does not.
func codeIs(t *testing.T, err error, want topupd.ErrorCode, what string) bool {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %s", what, want)
		return false
	}
	if got := topupd.CodeOf(err); got != want {
		t.Errorf("%s: code %s, want %s (err: %v)", what, got, want, err)
		return false
	}
	return true
}

// sum adds up the amounts of ledger entries.
func sum(entries []topupd.LedgerEntry) topupd.Money {
	var total topupd.Money
	for _, e := range entries {
		total += e.Amount
	}
	return total
}

// ofKind returns the entries of one kind.
func ofKind(entries []topupd.LedgerEntry, kind topupd.EntryKind) []topupd.LedgerEntry {
	var out []topupd.LedgerEntry
	for _, e := range entries {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// times multiplies a price, failing on overflow.
func times(m topupd.Money, q int) topupd.Money {
	v, ok := m.Times(q)
	if !ok {
		panic(fmt.Sprintf("storetest: %v × %d overflows", m, q))
	}
	return v
}

// NewVault returns a vault on a fresh random key.
func NewVault(t testing.TB) *topupd.Vault {
	t.Helper()
	secret := make([]byte, topupd.SecretKeySize)
	rand.Read(secret)
	v, err := topupd.NewVault(secret)
	if err != nil {
		t.Fatalf("NewVault: %v", err)
	}
	return v
}
