package simulation

import (
	"context"
	"fmt"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// model is what the simulated clients and operators know, independently of
// the store: what they credited, what they asked for and were answered.
type model struct {
	accounts []string
	// credited is each account's credits and debits that took effect.
	credited map[string]topupd.Money
	// requests are the orders asked for, by trxid, for replays.
	requests map[string]*request
	trxids   []string
	// byOperator are the orders an operator settled by hand: the
	// operator's word, not a supplier's, decided them.
	byOperator map[string]bool
	// waited are the orders seen waiting for supplier funds.
	waited map[string]bool
	// stock is every code uploaded to stock.
	stock  []string
	orders map[string]bool
	// prices are each pack's price, as last set; batches the stock
	// batches uploaded; voided the codes a void withdrew (never sold after).
	prices  map[string]topupd.Money
	batches []int64
	voided  map[string]bool
	// keys are each account's API key.
	keys map[string]string
	// limits are each account's spending limits, as last set.
	limits map[string]topupd.Limits
	// own are each account's own prices by pack; tier the tier's prices,
	// and onTier the accounts on it, as last set.
	own    map[string]map[string]topupd.Money
	tier   map[string]topupd.Money
	onTier map[string]bool
	// tierMarkup and tierRound are the tier's markup on a pack's cost and
	// the step it rounds up to, as last set (costs.go).
	tierMarkup *topupd.Percent
	tierRound  topupd.Money
	// codeCost is the cost of each stock code uploaded with one.
	codeCost map[string]topupd.Money
	// sandboxes are the sandbox accounts (topupd.SandboxID) clients test on.
	sandboxes []string
	// refs are the credits' references (account, NUL, reference) the
	// operator had answered.
	refs map[string]bool
	// depositor is shop4, whose books only deposits fill (deposits.go).
	depositor string
}

// request is one order a client asked for, and the order its first answer named.
type request struct {
	account string
	req     topupd.OrderRequest
	firstID string
}

func newModel() model {
	return model{credited: map[string]topupd.Money{}, requests: map[string]*request{}, byOperator: map[string]bool{}, waited: map[string]bool{}, orders: map[string]bool{},
		limits: map[string]topupd.Limits{}, keys: map[string]string{},
		prices: map[string]topupd.Money{}, voided: map[string]bool{}, refs: map[string]bool{},
		own: map[string]map[string]topupd.Money{}, tier: map[string]topupd.Money{}, onTier: map[string]bool{},
		codeCost: map[string]topupd.Money{}}
}

// The catalog: top-ups by each kind of supplier, keys from stock and from
// an upstream, and one pack that fails over across three upstreams, each
// with a cost (the failover pack's b and c dearer than its own).
var packs = []topupd.Pack{
	{PID: "T-SIM", Slug: "game", Name: "Sim 100", Price: 100, Cost: 90, Status: topupd.StatusActive, Provider: topupd.ProviderSim},
	{PID: "T-MAN", Slug: "game", Name: "Manual 100", Price: 200, Cost: 100, Status: topupd.StatusActive, Provider: topupd.ProviderManual},
	{PID: "T-UP", Slug: "game", Name: "Upstream 100", Price: 200, Cost: 110, Status: topupd.StatusActive, Provider: topupd.ProviderUpstream, Upstream: "a", UpstreamPID: "X100"},
	{PID: "T-FO", Slug: "game", Name: "Failover 100", Price: 200, Cost: 100, Status: topupd.StatusActive, Provider: topupd.ProviderUpstream, Upstream: "a", UpstreamPID: "X100",
		Suppliers: []topupd.Supplier{
			{Provider: topupd.ProviderUpstream, Upstream: "a", UpstreamPID: "X100"},
			{Provider: topupd.ProviderUpstream, Upstream: "b", UpstreamPID: "Y100", Cost: 115},
			{Provider: topupd.ProviderUpstream, Upstream: "c", UpstreamPID: "Z100", Cost: 125}}},
	{PID: "K-STK", Slug: "keys", Name: "Key from stock", Price: 500, Cost: 250, Status: topupd.StatusActive, Provider: topupd.ProviderStock},
	{PID: "K-UP", Slug: "keys", Name: "Key from upstream", Price: 600, Cost: 300, Status: topupd.StatusActive, Provider: topupd.ProviderUpstream, Upstream: "b", UpstreamPID: "KEY1"},
}

// simDelay is the sim supplier's delay (simDelayMs) when it does not
// answer at once (simDelayStep).
const simDelay = 20_000

// setup makes the catalog, the suppliers, the accounts and their credit,
// through the service layer as an operator would.
func (w *World) setup(ctx context.Context) error {
	w.root = service.Actor{Operator: "sim-operator", Role: topupd.RoleOwner}
	svc, err := service.New(service.Deps{Store: opStore{w.store, w}, Now: w.clk.Now, Deadline: deadline, Logger: quiet})
	if err != nil {
		return err
	}
	w.svc = svc
	zero, delay := 0, simDelay
	if w.cfg.Seed%2 == 0 { // even seeds start with a sim supplier that answers at once
		delay, w.simAtOnce = 0, true
	}
	if _, err := svc.UpdateSettings(ctx, w.root, topupd.SettingsPatch{SimCallMs: &zero, SimDelayMs: &delay}); err != nil {
		return err
	}
	w.sups = upstreams{}
	for _, name := range []string{"a", "b", "c"} {
		s := &supplier{w: w, name: name, orders: map[string]*supOrder{}}
		w.sups[name], w.supOrd = s, append(w.supOrd, s)
		if _, err := svc.PutUpstream(ctx, w.root, topupd.Upstream{Name: name, BaseURL: "http://" + name + ".sim.invalid", APIKey: "key-" + name}, false); err != nil {
			return err
		}
	}
	lines := []topupd.Line{
		{Slug: "game", ProductName: "Game", GameName: "Game", Game: "game", Kind: topupd.KindTopup, Status: topupd.StatusActive,
			Required: []topupd.RequiredField{{Field: topupd.FieldUserID, Label: "User ID"}}},
		{Slug: "keys", ProductName: "Keys", GameName: "Keys", Game: "keys", Kind: topupd.KindGamekey, Status: topupd.StatusActive},
	}
	for _, l := range lines {
		if _, err := svc.PutLine(ctx, w.root, l); err != nil {
			return fmt.Errorf("line %s: %w", l.Slug, err)
		}
	}
	for _, p := range packs {
		if _, err := svc.PutPack(ctx, w.root, p, topupd.CostGuard{}); err != nil {
			return fmt.Errorf("pack %s: %w", p.PID, err)
		}
		w.model.prices[p.PID] = p.Price
	}
	for i := range 3 {
		name := fmt.Sprintf("shop%d", i+1)
		a, err := svc.CreateAccount(ctx, w.root, topupd.AccountPatch{Name: &name})
		if err != nil {
			return err
		}
		w.model.accounts = append(w.model.accounts, a.ID)
		k, err := svc.CreateKey(ctx, w.root, a.ID, "sim")
		if err != nil {
			return err
		}
		w.model.keys[a.ID] = k.Secret
		if err := w.credit(ctx, i, 3000, "initial"); err != nil {
			return err
		}
		if i < 2 { // shop1 and shop2 test on their sandboxes too
			k, err := svc.CreateSandboxKey(ctx, w.root, a.ID, "sim-test")
			if err != nil {
				return err
			}
			sb := topupd.SandboxID(a.ID)
			w.model.sandboxes = append(w.model.sandboxes, sb)
			w.model.keys[sb] = k.Secret
			w.model.credited[sb] = topupd.SandboxOpeningBalance
		}
	}
	if err := w.addStock(ctx, 8); err != nil {
		return err
	}
	if err := w.setupDeposits(ctx); err != nil {
		return err
	}
	return w.setupHooks(ctx)
}

// credit credits (or, negative, debits) an account through the service.
func (w *World) credit(ctx context.Context, acct int, amount topupd.Money, ref string) error {
	id := w.model.accounts[acct]
	c, crashed, err := untilAnswered(func() (service.Credited, error) { return w.svc.Credit(ctx, w.root, id, amount, ref) })
	if err != nil {
		w.logf("credit shop%d %v %s: %v", acct+1, amount, ref, errText(err))
		if topupd.CodeOf(err) == topupd.EInsufficientBalance {
			return nil
		}
		return err
	}
	// A repeat of a reference the operator never had answered is the
	// attempt a crash cut off, which took effect.
	key := id + "\x00" + ref
	if !c.Repeated || (crashed && !w.model.refs[key]) {
		w.model.credited[id] += amount
	}
	w.model.refs[key] = true
	w.logf("credit shop%d %v %s: repeated=%v balance=%v", acct+1, amount, ref, c.Repeated, c.Balance)
	return nil
}

// addStock uploads n new codes to the stock pack, and now and then one
// already uploaded, which the store must not add again.
func (w *World) addStock(ctx context.Context, n int) error {
	var codes []string
	for range n {
		w.codeSeq++
		codes = append(codes, fmt.Sprintf("STOCK-%d", w.codeSeq))
	}
	if len(w.model.stock) > 0 && w.rng.IntN(3) == 0 {
		codes = append(codes, w.model.stock[w.rng.IntN(len(w.model.stock))])
	}
	var u topupd.StockUpload
	if w.rng.IntN(2) == 0 { // a batch bought at a price of its own
		c := topupd.Money(200 + w.rng.IntN(100))
		u.Cost = &c
	}
	res, err := w.svc.AddStock(ctx, w.root, "K-STK", codes, u)
	if err != nil {
		return err
	}
	if u.Cost != nil {
		for _, c := range codes[:n] {
			w.model.codeCost[c] = *u.Cost
		}
	}
	w.model.stock = append(w.model.stock, codes[:n]...)
	w.model.batches = append(w.model.batches, res.BatchID)
	w.logf("stock K-STK +%d at %s: added %d duplicates %d available %d", len(codes), show(u.Cost), res.Added, res.Duplicates, res.Available)
	return nil
}

// setLimits has the operator set or clear an account's spending limits.
func (w *World) setLimits(ctx context.Context) {
	acct := w.rng.IntN(len(w.model.accounts))
	id := w.model.accounts[acct]
	var max, daily *topupd.Money
	if w.rng.IntN(3) > 0 {
		m := topupd.Money(300 + w.rng.IntN(500))
		max = &m
	}
	if w.rng.IntN(3) > 0 {
		d := topupd.Money(500 + w.rng.IntN(3000))
		daily = &d
	}
	_, _, err := untilAnswered(func() (service.Account, error) {
		return w.svc.UpdateAccount(ctx, w.root, id, topupd.AccountPatch{Limits: topupd.LimitsPatch{"maxOrderUsd": max, "dailyLimitUsd": daily}})
	})
	if err == nil {
		w.model.limits[id] = topupd.Limits{MaxOrder: max, Daily: daily}
	}
	w.logf("operator limits shop%d max=%v daily=%v: %v", acct+1, show(max), show(daily), errText(err))
}

// show prints an optional amount.
func show(m *topupd.Money) string {
	if m == nil {
		return "none"
	}
	return m.Dollars()
}

// voidBatch has the operator void a stock batch: its unsold codes, read
// just before, must never be sold.
func (w *World) voidBatch(ctx context.Context) error {
	if len(w.model.batches) == 0 {
		return nil
	}
	id := w.model.batches[w.rng.IntN(len(w.model.batches))]
	_, unsold, err := w.svc.ExportBatch(ctx, w.root, id)
	if err != nil {
		return fmt.Errorf("export batch %d: %w", id, err)
	}
	b, crashed, err := untilAnswered(func() (topupd.Batch, error) { return w.svc.VoidBatch(ctx, w.root, id) })
	w.logf("operator voids batch %d (%d unsold): withdrew %d: %v", id, len(unsold), b.Withdrawn, errText(err))
	if err != nil && !(crashed && topupd.CodeOf(err) == topupd.EConflict) {
		return nil // a batch voided before; not one the cut-off attempt voided
	}
	for _, c := range unsold {
		w.model.voided[c] = true
	}
	return nil
}
