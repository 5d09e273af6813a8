package console

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// dashData is the dashboard.
type dashData struct {
	// Periods are today, the last 7 days and the last 30 (with today).
	Periods []period
	// Chart is revenue per day over the last 30 days.
	Chart     chart
	Gauges    topupd.Gauges
	Stuck     []topupd.Order
	Alerts    []service.ProviderHealth
	LowStock  []service.PackView
	Providers int
	// Durations are each line's times to a final state, one cell a period.
	Durations []lineDurations

	// UpstreamAlerts are the upstreams whose balance alert is raised or
	// whose last call failed; Waiting the orders waiting for supplier
	// funds (the first waitingShown), MoreWaiting how many more wait.
	UpstreamAlerts []upstreamMoney
	Waiting        []topupd.Order
	MoreWaiting    int
	// OpenMismatches counts the reconciliations' open mismatches, with
	// every supplier.
	OpenMismatches int
	// OverdueDisputes and OpenDisputes count the live open disputes past
	// their dueAt, and all of them.
	OverdueDisputes, OpenDisputes int
}

// OpenMismatchesText counts the open mismatches in words: "1 open
// mismatch", "3 open mismatches".
func (d dashData) OpenMismatchesText() string {
	if d.OpenMismatches == 1 {
		return "1 open mismatch"
	}
	return strconv.Itoa(d.OpenMismatches) + " open mismatches"
}

// lineDurations is one line's times to a final state in each period.
type lineDurations struct {
	Slug  string
	Cells []topupd.DurationRow
}

// period sums a report's days: its margin (SalesRow.Margin) leaves out
// the charges of completed orders without a cost (RevenueWithoutCost), as
// the reports do.
type period struct {
	Label string
	topupd.SalesRow
	Success string
}

// Pending is what orders neither completed nor refunded were charged
// (those processing): the period's net is its revenue plus this.
func (p period) Pending() topupd.Money { return p.Net() - p.Revenue }

// dashboard is the console's front page: takings (for a role that reads
// reports), orders processing and stuck, supplier alerts (upstreams short
// of money or failing, orders waiting for supplier funds, open mismatches
// with suppliers' books), overdue disputes, packs low on stock, open
// disputes, and what the business owes its resellers.
func (c *Console) dashboard(w http.ResponseWriter, r *http.Request, s *session) error {
	var d dashData
	var err error
	if d.Gauges, err = c.Store.Gauges(r.Context()); err != nil {
		return err
	}
	if !s.may(topupd.PermReports) {
		d.Gauges.Balances = 0 // a finance figure: the page shows it only with reports
	}
	stuck, err := c.Service.StuckOrders(r.Context(), s.actor, service.MaxPage, nil)
	if err != nil {
		return err
	}
	d.Stuck = stuck.Orders
	if err := c.fundsAlerts(r.Context(), s, &d, stuck.Orders); err != nil { // upstream_funds.go
		return err
	}
	health, err := c.Service.Providers(r.Context(), s.actor)
	if err != nil {
		return err
	}
	d.Providers = len(health)
	for _, h := range health {
		if h.Alert || h.StuckOrders > 0 {
			d.Alerts = append(d.Alerts, h)
		}
	}
	if d.LowStock, err = c.lowStock(r, s); err != nil { // stock.go
		return err
	}
	open, err := c.Store.OpenMismatches(r.Context())
	if err != nil {
		return err
	}
	for _, n := range open {
		d.OpenMismatches += n
	}
	overdue, onTime, err := c.Store.OpenDisputes(r.Context(), c.Now())
	if err != nil {
		return err
	}
	d.OverdueDisputes, d.OpenDisputes = overdue, overdue+onTime
	if s.may(topupd.PermReports) {
		if err := c.takings(r.Context(), s, &d); err != nil {
			return err
		}
	}
	c.render(w, r, s, http.StatusOK, "dashboard", "Dashboard", d)
	return nil
}

// takings fills the periods and the chart from one sales report by day.
func (c *Console) takings(ctx context.Context, s *session, d *dashData) error {
	today := c.Now().UTC().Truncate(24 * time.Hour)
	from, to := today.AddDate(0, 0, -29), today.AddDate(0, 0, 1)
	rep, err := c.Service.SalesReport(ctx, s.actor, from, to, topupd.ByDay)
	if err != nil {
		return err
	}
	byDay := map[string]topupd.SalesRow{}
	for _, row := range rep.Rows {
		byDay[row.Key] = row
	}
	d.Periods = []period{{Label: "Today"}, {Label: "7 days"}, {Label: "30 days"}}
	var days []topupd.SalesRow
	for i := 29; i >= 0; i-- {
		day := today.AddDate(0, 0, -i).Format(time.DateOnly)
		row := byDay[day]
		row.Key = day
		days = append(days, row)
		for j, span := range []int{1, 7, 30} {
			if i < span {
				d.Periods[j].SalesRow.Add(row)
			}
		}
	}
	for i := range d.Periods {
		p := &d.Periods[i]
		p.Success = pctText(p.Completed, p.Completed+p.Cancelled)
	}
	d.Chart = revenueChart(days)
	return c.durations(ctx, s, d, today)
}

// durations fills each line's p50 and p95 times for the three periods.
func (c *Console) durations(ctx context.Context, s *session, d *dashData, today time.Time) error {
	at := map[string]int{}
	for i, span := range []int{1, 7, 30} {
		rep, err := c.Service.Durations(ctx, s.actor, today.AddDate(0, 0, 1-span), today.AddDate(0, 0, 1))
		if err != nil {
			return err
		}
		for _, l := range rep.Lines {
			j, ok := at[l.Slug]
			if !ok {
				j = len(d.Durations)
				at[l.Slug] = j
				d.Durations = append(d.Durations, lineDurations{Slug: l.Slug, Cells: make([]topupd.DurationRow, 3)})
			}
			d.Durations[j].Cells[i] = l
		}
	}
	slices.SortFunc(d.Durations, func(a, b lineDurations) int { return strings.Compare(a.Slug, b.Slug) })
	return nil
}
