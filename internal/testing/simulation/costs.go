package simulation

import (
	"fmt"

	"github.com/topupd/topupd"
)

// What the business pays: each pack has a cost (setup's packs), the
// failover pack's suppliers costs of their own, and a stock upload may
// carry a cost per code. The model knows them independently of the
// store: a completed order must cost what its supplier or its codes cost,
// and the below-cost guard must refuse exactly the prices under a pack's
// highest cost (unless the operator allows them).

// percentUnit is 100% in topupd.Percent's units (ten-thousandths of a percent).
const percentUnit = 1_000_000

// packNamed is the catalog's pack pid.
func packNamed(pid string) *topupd.Pack {
	for i := range packs {
		if packs[i].PID == pid {
			return &packs[i]
		}
	}
	return nil
}

// highestCost is the dearest of a pack's cost and its suppliers' costs.
func highestCost(pid string) topupd.Money {
	p := packNamed(pid)
	if p == nil {
		return 0
	}
	c := p.Cost
	for _, s := range p.Suppliers {
		c = max(c, s.Cost)
	}
	return c
}

// unitCost is what one unit of pid costs from supplier upstream ("" for
// none): the supplier's own cost in the pack's list, else the pack's.
func unitCost(pid, upstream string) topupd.Money {
	p := packNamed(pid)
	if p == nil {
		return 0
	}
	for _, s := range p.Suppliers {
		if s.Upstream == upstream && s.Cost > 0 {
			return s.Cost
		}
	}
	return p.Cost
}

// markedUp is the tier's markup on cost, rounded up to a whole unit and
// then to the tier's step, a cent at least (whole cents); ok is false
// without a markup or a cost.
func (m *model) markedUp(cost topupd.Money) (topupd.Money, bool) {
	if m.tierMarkup == nil || cost <= 0 {
		return 0, false
	}
	n := int64(cost) * (percentUnit + int64(*m.tierMarkup))
	price := (n + percentUnit - 1) / percentUnit
	step := max(int64(m.tierRound), int64(topupd.Cent))
	price = (price + step - 1) / step * step
	if price <= 0 {
		return 0, false
	}
	return topupd.Money(price), true
}

// tierBelowCost says whether a tier, with the markup and step given,
// prices a pack under its highest cost: a listed price, or the markup on
// an unlisted pack's cost.
func tierBelowCost(prices map[string]topupd.Money, markup *topupd.Percent, round topupd.Money) bool {
	t := model{tierMarkup: markup, tierRound: round}
	for _, p := range packs {
		high := highestCost(p.PID)
		if price, ok := prices[p.PID]; ok {
			if high > 0 && price < high {
				return true
			}
		} else if price, ok := t.markedUp(p.Cost); ok && price < high {
			return true
		}
	}
	return false
}

// judgeBelowCost checks the operator's answer to a price: BELOW_COST when,
// and only when, the price is under the cost and not allowed.
func (w *World) judgeBelowCost(what string, below, allow bool, err error) {
	refused := topupd.CodeOf(err) == topupd.EBelowCost
	switch {
	case refused && (!below || allow):
		w.fail("%s was refused as below cost (below=%v, allowed=%v): %v", what, below, allow, err)
	case err == nil && below && !allow:
		w.fail("%s was accepted below cost without allowBelowCost", what)
	}
}

// checkCost checks a completed order's cost: its quantity at its
// supplier's unit cost, or, drawn from stock, each code's batch's cost
// (the pack's where the batch has none).
func (w *World) checkCost(o *topupd.Order) {
	if o.Status != topupd.StatusCompleted {
		if o.Cost != nil {
			w.fail("#%d is %s with a cost of %v", w.ord(o.Seq), o.Status, o.Cost.Dollars())
		}
		return
	}
	want := unitCost(o.PID, o.Upstream) * topupd.Money(o.Quantity)
	how := fmt.Sprintf("%d at %v", o.Quantity, unitCost(o.PID, o.Upstream).Dollars())
	if o.Provider == topupd.ProviderStock && !o.Sandbox {
		want, how = 0, "its codes' batches"
		for _, c := range o.Codes {
			cost, ok := w.model.codeCost[c]
			if !ok {
				cost = packNamed(o.PID).Cost
			}
			want += cost
		}
	}
	switch {
	case o.Cost == nil:
		w.fail("#%d is completed without a cost", w.ord(o.Seq))
	case *o.Cost != want:
		w.fail("#%d (%s %s) cost %v; %s is %v", w.ord(o.Seq), o.PID, o.Upstream, o.Cost.Dollars(), how, want.Dollars())
	}
}
