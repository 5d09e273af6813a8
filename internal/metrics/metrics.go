// Package metrics keeps topupd's Prometheus series: requests and their
// latency by route and status, orders placed and finished by line, provider
// and outcome, time from placement to a final state, supplier calls by
// supplier and outcome, and, read from the database at each scrape, orders
// processing, orders stuck by supplier, stock available by pack, packs low on
// stock and the sum of reseller balances; and low-stock alerts raised and
// cleared.
// Labels are bounded: routes are patterns, lines, packs, providers and
// upstreams are the catalog's; no order id or trxid is ever a label.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/topupd/topupd"
)

// Source is what the scrape-time series are read from: the store.
type Source interface {
	// WaitingFunds counts the orders waiting for supplier funds.
	WaitingFunds(ctx context.Context) (int, error)
	// OpenMismatches counts the reconciliations' open mismatches by supplier.
	OpenMismatches(ctx context.Context) (map[string]int, error)
	// OpenDeposits counts the live deposit tickets pending and awaiting a
	// second approval, by status.
	OpenDeposits(ctx context.Context) (map[string]int, error)
	// OpenDisputes counts the live open disputes, overdue at now or not.
	OpenDisputes(ctx context.Context, now time.Time) (overdue, onTime int, err error)
	// HeldPrices lists the pricing rules' rises waiting for an operator.
	HeldPrices(ctx context.Context) ([]topupd.HeldPrice, error)
	// ScheduledPriceChanges counts the scheduled prices not yet written
	// into their packs.
	ScheduledPriceChanges(ctx context.Context) (int, error)
	// Gauges counts the orders processing and sums the reseller balances.
	Gauges(ctx context.Context) (topupd.Gauges, error)
	// StockLevels returns the codes available per PID.
	StockLevels(ctx context.Context) (map[string]int, error)
	// LowStock reports, for every pack whose lowStockAt is set, whether
	// its low-stock alert is raised.
	LowStock(ctx context.Context) (map[string]bool, error)
	// StuckCounts counts, per provider and upstream, the orders
	// processing past their deadline at now or carrying an alert.
	StuckCounts(ctx context.Context, now time.Time) ([]topupd.StuckCount, error)
	// Upstreams returns every upstream, with what the database knows of
	// it: its state and our balance there.
	Upstreams(ctx context.Context) ([]topupd.Upstream, error)
}

// Metrics are one process's series. A nil *Metrics records nothing.
type Metrics struct {
	reg           *prometheus.Registry
	requests      *prometheus.CounterVec
	latency       *prometheus.HistogramVec
	placed        *prometheus.CounterVec
	finished      *prometheus.CounterVec
	toFinal       *prometheus.HistogramVec
	supplierCalls *prometheus.CounterVec
	lowStock      *prometheus.CounterVec
	webhooks      *prometheus.CounterVec
	webhookTime   *prometheus.HistogramVec
	webhooksOff   *prometheus.CounterVec
}

// New returns the series, with the Go runtime's and the process's, and
// those read from src at each scrape; now is the clock that decides which
// orders are past their deadline.
func New(src Source, now func() time.Time) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "topupd_http_requests_total",
			Help: "Requests answered, by API, route pattern and status."}, []string{"api", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "topupd_http_request_duration_seconds",
			Help: "Time to answer a request, by API, route pattern and status.", Buckets: prometheus.DefBuckets},
			[]string{"api", "route", "status"}),
		placed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "topupd_orders_placed_total",
			Help: "Orders placed (replays not counted), by line and provider."}, []string{"line", "provider"}),
		finished: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "topupd_orders_finished_total",
			Help: "Orders that reached a final state, by line, provider and outcome (completed, refunded, cancelled)."},
			[]string{"line", "provider", "outcome"}),
		toFinal: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "topupd_order_time_to_final_seconds",
			Help:    "Time from placement to a final state, by line, provider and outcome.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 1800, 3600}},
			[]string{"line", "provider", "outcome"}),
		supplierCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "topupd_supplier_calls_total",
			Help: "Calls to suppliers, by provider, upstream (for upstream packs) and outcome."},
			[]string{"provider", "upstream", "outcome"}),
		lowStock: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "topupd_low_stock_alerts_total",
			Help: "Low-stock alerts this process raised or cleared (each is raised or cleared by one process), by pack and event."},
			[]string{"pid", "event"}),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "topupd_webhook_attempts_total",
			Help: "Webhook delivery attempts this process made, by outcome (delivered, retry, failed, gone, refused)."},
			[]string{"outcome"}),
		webhookTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "topupd_webhook_attempt_duration_seconds",
			Help: "Time from the start of a webhook delivery attempt to its answer or failure, by outcome.", Buckets: prometheus.DefBuckets},
			[]string{"outcome"}),
		webhooksOff: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "topupd_webhook_endpoints_disabled_total",
			Help: "Webhook endpoints this process disabled, by reason (gone, failing)."}, []string{"reason"}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.placed, m.finished, m.toFinal, m.supplierCalls, m.lowStock, m.webhooks, m.webhookTime, m.webhooksOff,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), &dbCollector{src: src, now: now})
	return m
}

// Handler serves the series in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Request counts one answered request.
func (m *Metrics) Request(api, route string, status int, d time.Duration) {
	if m == nil {
		return
	}
	s := strconv.Itoa(status)
	m.requests.WithLabelValues(api, route, s).Inc()
	m.latency.WithLabelValues(api, route, s).Observe(d.Seconds())
}

// OrderPlaced counts an order just placed.
func (m *Metrics) OrderPlaced(o *topupd.Order) {
	if m == nil {
		return
	}
	m.placed.WithLabelValues(o.Slug, o.Provider).Inc()
}

// OrderFinished counts an order that just became final, and the time it took.
func (m *Metrics) OrderFinished(o *topupd.Order) {
	if m == nil || !o.Status.Final() {
		return
	}
	outcome := string(o.Status)
	if o.Status == topupd.StatusCancelled && o.Refunded {
		outcome = "refunded"
	}
	m.finished.WithLabelValues(o.Slug, o.Provider, outcome).Inc()
	if !o.FinishedAt.IsZero() {
		m.toFinal.WithLabelValues(o.Slug, o.Provider, outcome).Observe(o.FinishedAt.Sub(o.CreatedAt).Seconds())
	}
}

// SupplierCall counts one call to a supplier: its outcome is completed,
// failed, pending, not-found or error.
func (m *Metrics) SupplierCall(provider, upstream, outcome string) {
	if m == nil {
		return
	}
	m.supplierCalls.WithLabelValues(provider, upstream, outcome).Inc()
}

// LowStockAlert counts a pack's low-stock alert raised (or cleared).
func (m *Metrics) LowStockAlert(pid string, raised bool) {
	if m == nil {
		return
	}
	event := "cleared"
	if raised {
		event = "raised"
	}
	m.lowStock.WithLabelValues(pid, event).Inc()
}

// WebhookAttempt counts one webhook delivery attempt and its time: its
// outcome is delivered, retry (failed, to be tried again), failed (the
// last attempt failed), gone (a 410) or refused (the address is forbidden).
func (m *Metrics) WebhookAttempt(outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.webhooks.WithLabelValues(outcome).Inc()
	m.webhookTime.WithLabelValues(outcome).Observe(d.Seconds())
}

// WebhookDisabled counts an endpoint the server disabled, by reason.
func (m *Metrics) WebhookDisabled(reason string) {
	if m == nil {
		return
	}
	m.webhooksOff.WithLabelValues(reason).Inc()
}

// dbCollector reads the series the database holds at each scrape.
type dbCollector struct {
	src Source
	now func() time.Time
}

var (
	processingDesc = prometheus.NewDesc("topupd_orders_processing", "Orders processing now, on every node.", nil, nil)
	stuckDesc      = prometheus.NewDesc("topupd_orders_stuck",
		"Orders processing past their deadline or with an alert (GET /admin/orders/stuck), on every node, by provider and upstream; a supplier with none has no series.",
		[]string{"provider", "upstream"}, nil)
	stockDesc    = prometheus.NewDesc("topupd_stock_available", "Codes available, by pack.", []string{"pid"}, nil)
	stockLowDesc = prometheus.NewDesc("topupd_stock_low",
		"1 while a pack's low-stock alert is raised (its stock is at or below its lowStockAt), else 0; for packs with lowStockAt set.", []string{"pid"}, nil)
	balancesDesc = prometheus.NewDesc("topupd_reseller_balances_usd",
		"The sum of every reseller's balance, in USD: what the business owes its resellers.", nil, nil)
	scrapeErrDesc       = prometheus.NewDesc("topupd_metrics_database_errors", "1 when the database could not be read for this scrape.", nil, nil)
	supplierBalanceDesc = prometheus.NewDesc("topupd_supplier_balance_usd",
		"Our balance at an upstream as last learned, in USD; no series while it is unknown.", []string{"supplier"}, nil)
	supplierHealthDesc = prometheus.NewDesc("topupd_supplier_health",
		"1 for an upstream's current state (unchecked, ok, failing), 0 for the other two.", []string{"supplier", "state"}, nil)
	supplierRunwayDesc = prometheus.NewDesc("topupd_supplier_runway_hours",
		"How long our known balance at an upstream lasts at its burn (the last 24 hours' costs), in hours rounded down to 0.1; no series while unknown or without burn.",
		[]string{"supplier"}, nil)
	openMismatchesDesc = prometheus.NewDesc("topupd_reconciliation_open_mismatches",
		"The open mismatches of the reconciliations with a supplier; a series for every supplier reconciled.", []string{"supplier"}, nil)
	depositsOpenDesc = prometheus.NewDesc("topupd_deposits_open",
		"The live deposit tickets pending, and awaiting a second approval.", []string{"status"}, nil)
	disputesOpenDesc = prometheus.NewDesc("topupd_disputes_open",
		"The live open disputes, past their dueAt (overdue=\"true\") and not.", []string{"overdue"}, nil)
	pricesHeldDesc = prometheus.NewDesc("topupd_prices_held",
		"Pricing rules' rises of a pack's price waiting for an operator (GET /admin/pricing/held).", nil, nil)
	priceChangesDesc = prometheus.NewDesc("topupd_price_changes_scheduled",
		"Scheduled price changes not yet written into their packs (GET /admin/price-changes).", nil, nil)
	waitingFundsDesc = prometheus.NewDesc("topupd_orders_waiting_funds",
		"Orders waiting for supplier funds: no supplier of theirs could cover them.", nil, nil)
)

// Describe sends the series' descriptions.
func (c *dbCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- processingDesc
	ch <- stuckDesc
	ch <- stockDesc
	ch <- stockLowDesc
	ch <- balancesDesc
	ch <- scrapeErrDesc
	ch <- supplierBalanceDesc
	ch <- supplierHealthDesc
	ch <- supplierRunwayDesc
	ch <- waitingFundsDesc
	ch <- openMismatchesDesc
	ch <- depositsOpenDesc
	ch <- pricesHeldDesc
	ch <- disputesOpenDesc
	ch <- priceChangesDesc
}

// Collect reads the database, within 5 s.
func (c *dbCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	failed := 0.0
	if g, err := c.src.Gauges(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(processingDesc, prometheus.GaugeValue, float64(g.Processing))
		// Money leaves its integer type here, at the edge: Prometheus values
		// are floats (exact below 2^53 ten-thousandths of a dollar).
		ch <- prometheus.MustNewConstMetric(balancesDesc, prometheus.GaugeValue, float64(g.Balances)/topupd.MoneyScale)
	} else {
		failed = 1
	}
	if stuck, err := c.src.StuckCounts(ctx, c.now()); err == nil {
		for _, s := range stuck {
			ch <- prometheus.MustNewConstMetric(stuckDesc, prometheus.GaugeValue, float64(s.Orders), s.Provider, s.Upstream)
		}
	} else {
		failed = 1
	}
	if levels, err := c.src.StockLevels(ctx); err == nil {
		for pid, n := range levels {
			ch <- prometheus.MustNewConstMetric(stockDesc, prometheus.GaugeValue, float64(n), pid)
		}
	} else {
		failed = 1
	}
	if low, err := c.src.LowStock(ctx); err == nil {
		for pid, raised := range low {
			v := 0.0
			if raised {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(stockLowDesc, prometheus.GaugeValue, v, pid)
		}
	} else {
		failed = 1
	}
	if ups, err := c.src.Upstreams(ctx); err == nil {
		for _, u := range ups {
			if u.Balance != nil {
				ch <- prometheus.MustNewConstMetric(supplierBalanceDesc, prometheus.GaugeValue, float64(*u.Balance)/topupd.MoneyScale, u.Name)
			}
			if h, ok := u.Runway(); ok {
				ch <- prometheus.MustNewConstMetric(supplierRunwayDesc, prometheus.GaugeValue, h, u.Name)
			}
			for _, st := range []string{topupd.UpstreamUnchecked, topupd.UpstreamOK, topupd.UpstreamFailing} {
				v := 0.0
				if u.State == st {
					v = 1
				}
				ch <- prometheus.MustNewConstMetric(supplierHealthDesc, prometheus.GaugeValue, v, u.Name, st)
			}
		}
	} else {
		failed = 1
	}
	if open, err := c.src.OpenMismatches(ctx); err == nil {
		for supplier, n := range open {
			ch <- prometheus.MustNewConstMetric(openMismatchesDesc, prometheus.GaugeValue, float64(n), supplier)
		}
	} else {
		failed = 1
	}
	if open, err := c.src.OpenDeposits(ctx); err == nil {
		for _, st := range []string{topupd.DepositPending, topupd.DepositAwaitingSecond} {
			ch <- prometheus.MustNewConstMetric(depositsOpenDesc, prometheus.GaugeValue, float64(open[st]), st)
		}
	} else {
		failed = 1
	}
	if overdue, onTime, err := c.src.OpenDisputes(ctx, c.now()); err == nil {
		ch <- prometheus.MustNewConstMetric(disputesOpenDesc, prometheus.GaugeValue, float64(overdue), "true")
		ch <- prometheus.MustNewConstMetric(disputesOpenDesc, prometheus.GaugeValue, float64(onTime), "false")
	} else {
		failed = 1
	}
	if held, err := c.src.HeldPrices(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(pricesHeldDesc, prometheus.GaugeValue, float64(len(held)))
	} else {
		failed = 1
	}
	if n, err := c.src.ScheduledPriceChanges(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(priceChangesDesc, prometheus.GaugeValue, float64(n))
	} else {
		failed = 1
	}
	if n, err := c.src.WaitingFunds(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(waitingFundsDesc, prometheus.GaugeValue, float64(n))
	} else {
		failed = 1
	}
	ch <- prometheus.MustNewConstMetric(scrapeErrDesc, prometheus.GaugeValue, failed)
}

// Orders is the notifier that counts orders placed and finished from the
// event stream (topupd.Notifier): one node of a deployment counts every
// node's orders, so sum the series over the nodes.
func (m *Metrics) Orders() topupd.Notifier { return orderCounter{m} }

// orderCounter counts orders from their events.
type orderCounter struct{ m *Metrics }

// Name names the notifier's cursor.
func (orderCounter) Name() string { return "metrics" }

// Notify counts each order placed, and each finished with its time to final.
func (c orderCounter) Notify(_ context.Context, events []topupd.Event) error {
	for _, e := range events {
		d, ok := e.Data.(topupd.OrderEventData)
		if !ok || e.OrderSeq == 0 || d.Facts().Backfilled {
			continue
		}
		o := orderOfEvent(&e, d.Facts())
		switch e.Type {
		case topupd.OrderPlaced:
			c.m.OrderPlaced(&o)
		case topupd.OrderCompleted, topupd.OrderCancelled:
			c.m.OrderFinished(&o)
		}
	}
	return nil
}

// orderOfEvent is what an order's event says of it: its line, supplier,
// state and times.
func orderOfEvent(e *topupd.Event, f *topupd.OrderFacts) topupd.Order {
	return topupd.Order{Seq: e.OrderSeq, ID: e.OrderID, AccountID: e.AccountID, Slug: f.Slug, Provider: f.Provider,
		Status: f.Status, Refunded: f.Refunded, CreatedAt: f.CreatedAt.Time(), FinishedAt: f.FinishedAt.Time()}
}
