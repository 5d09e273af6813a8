package topupd

import (
	"strings"
	"time"
)

// SalesGroup is what a sales report sums its orders by.
type SalesGroup string

// The groupings of a sales report.
const (
	ByDay      SalesGroup = "day"
	ByLine     SalesGroup = "line"
	ByPack     SalesGroup = "pack"
	ByAccount  SalesGroup = "account"
	ByProvider SalesGroup = "provider"
)

// SalesGroups lists every grouping, in the contract's order.
var SalesGroups = []SalesGroup{ByDay, ByLine, ByPack, ByAccount, ByProvider}

// ParseSalesGroup reads a groupBy parameter, or EInvalidRequest naming the
// parameter.
func ParseSalesGroup(s string) (SalesGroup, error) {
	for _, g := range SalesGroups {
		if string(g) == s {
			return g, nil
		}
	}
	names := make([]string, len(SalesGroups))
	for i, g := range SalesGroups {
		names[i] = string(g)
	}
	return "", Errorf(EInvalidRequest, "groupBy: one of %s", strings.Join(names, ", "))
}

// SalesRow sums the orders of one key of a sales report: Revenue is what
// completed orders were charged, Charged what all of them were, Refunds
// what cancelled ones got back (and completed ones a reconciliation
// refunded), Cost what the completed orders with a known cost cost the
// business, and RevenueWithoutCost what the completed orders without one
// were charged (a part of Revenue).
type SalesRow struct {
	Key                                      string
	Orders, Completed, Cancelled, Processing int64
	Charged, Revenue, Refunds, Cost          Money
	RevenueWithoutCost                       Money
}

// Margin is what the completed orders with a known cost earned: their
// charges less that cost, Revenue − RevenueWithoutCost − Cost. Refunds
// are never in it.
func (r SalesRow) Margin() Money { return r.Revenue - r.RevenueWithoutCost - r.Cost }

// Net is what the orders brought in: their charges less their refunds.
func (r SalesRow) Net() Money { return r.Charged - r.Refunds }

// Add sums another row into r: every count and amount of a report's total
// is the sum of its rows'.
func (r *SalesRow) Add(o SalesRow) {
	r.Orders += o.Orders
	r.Completed += o.Completed
	r.Cancelled += o.Cancelled
	r.Processing += o.Processing
	r.Charged += o.Charged
	r.Revenue += o.Revenue
	r.Refunds += o.Refunds
	r.Cost += o.Cost
	r.RevenueWithoutCost += o.RevenueWithoutCost
}

// CountOrder adds one order to r as a sales report counts it: its charge,
// its revenue when completed (and its revenue without cost when it has no
// known cost), its refund when refunded, and its status. It leaves Cost
// alone: a caller that checks costs adds each completed order's known
// cost from its own record (CountCost, or a model of what it should be).
func (r *SalesRow) CountOrder(o *Order) {
	r.Orders++
	r.Charged += o.Amount
	switch o.Status {
	case StatusCompleted:
		r.Completed++
		r.Revenue += o.Amount
		if o.Cost == nil {
			r.RevenueWithoutCost += o.Amount
		}
	case StatusCancelled:
		r.Cancelled++
	default:
		r.Processing++
	}
	if o.Refunded {
		r.Refunds += o.Amount
	}
}

// CountCost adds a completed order's known cost to r (nothing for an order
// without one, or not completed): with CountOrder, the order counted
// whole.
func (r *SalesRow) CountCost(o *Order) {
	if o.Status == StatusCompleted && o.Cost != nil {
		r.Cost += *o.Cost
	}
}

// Margin is what a completed order with a known cost earned: its charge
// less its cost; ok is false for any other order, which has no margin.
func (o *Order) Margin() (m Money, ok bool) {
	if o.Status != StatusCompleted || o.Cost == nil {
		return 0, false
	}
	return o.Amount - *o.Cost, true
}

// Day is the UTC calendar day a time falls on, as a report's day key names
// it (2006-01-02).
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }
