package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/topupd/topupd"
)

// DeliveryStore is what the deliverer needs of the database.
type DeliveryStore interface {
	ClaimWebhookDeliveries(ctx context.Context, owner string, now, until time.Time, limit int) ([]topupd.WebhookJob, error)
	RecordWebhookAttempt(ctx context.Context, a topupd.WebhookAttempt) (string, error)
	ReleaseWebhookDeliveries(ctx context.Context, owner string) error
	DeleteWebhookEvents(ctx context.Context, before time.Time) (int, error)
}

// Observer counts attempts and disabled endpoints (*metrics.Metrics).
type Observer interface {
	WebhookAttempt(outcome string, d time.Duration)
	WebhookDisabled(reason string)
}

// Retries are the pauses after each failed attempt, each ±10%; after the
// last, the delivery is failed (integration.md "Delivery").
var Retries = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// Defaults of Config.
const (
	DefaultConcurrency = 16
	DefaultTimeout     = 15 * time.Second
	DefaultLease       = time.Minute
	DefaultPoll        = time.Second
	// maxRetryAfter bounds the pause a Retry-After may ask for.
	maxRetryAfter = 24 * time.Hour
)

// Config shapes a Deliverer.
type Config struct {
	// Store is the database; Owner names this node in the deliveries' leases.
	Store DeliveryStore
	Owner string
	// Guard holds each connection to the URL rules.
	Guard Guard
	// Concurrency is how many attempts this node makes at once; Timeout
	// bounds each (a 2xx within it is a success); Lease is how long a
	// claimed delivery is this node's (longer than Timeout); Poll is how
	// long an idle deliverer waits before looking again. Zero: defaults.
	Concurrency          int
	Timeout, Lease, Poll time.Duration
	// Now is the clock; nil is time.Now. Jitter returns a number in [0, 1)
	// that spreads retries (nil: random).
	Now    func() time.Time
	Jitter func() float64
	// Transport, when set, carries the requests instead of a connection
	// the guard checks (the simulator's receivers, in process); nil for
	// every real deployment.
	Transport http.RoundTripper
	// Observer, when set, counts attempts and the endpoints disabled.
	Observer Observer
	// Logger gets what goes wrong; nil discards it.
	Logger *slog.Logger
}

// Deliverer makes delivery attempts: Run it on every node.
type Deliverer struct {
	cfg    Config
	client *http.Client
	wake   chan struct{}
}

// NewDeliverer returns a deliverer; Run starts it.
func NewDeliverer(cfg Config) *Deliverer {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Lease <= cfg.Timeout {
		cfg.Lease = max(DefaultLease, 2*cfg.Timeout)
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Jitter == nil {
		cfg.Jitter = rand.Float64
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	client := cfg.Guard.Client(cfg.Timeout)
	if cfg.Transport != nil {
		client.Transport = cfg.Transport
	}
	return &Deliverer{cfg: cfg, client: client, wake: make(chan struct{}, 1)}
}

// DeliverDue makes one round of the deliverer's work in the caller's
// goroutine: it claims the deliveries due (as many as Concurrency), as
// Run does, and makes each attempt in turn, and answers how many it
// claimed. For a caller that decides every interleaving itself (the
// simulator); a deployment Runs the deliverer.
func (d *Deliverer) DeliverDue(ctx context.Context) (int, error) {
	jobs, err := d.claim(ctx, d.cfg.Concurrency)
	if err != nil {
		return 0, err
	}
	for _, j := range jobs {
		d.attempt(ctx, j)
	}
	return len(jobs), nil
}

// claim claims up to limit deliveries due, under this node's lease.
func (d *Deliverer) claim(ctx context.Context, limit int) ([]topupd.WebhookJob, error) {
	now := d.cfg.Now()
	return d.cfg.Store.ClaimWebhookDeliveries(ctx, d.cfg.Owner, now, now.Add(d.cfg.Lease), limit)
}

// Wake tells the deliverer that a delivery may be due.
func (d *Deliverer) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run makes attempts until ctx ends; then attempts in flight are
// abandoned unrecorded and this node's leases let go, so that another node
// makes them at once (a node that dies instead leaves them to its leases'
// end). Once an hour it deletes the events past topupd.WebhookEventsKept.
func (d *Deliverer) Run(ctx context.Context) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, d.cfg.Concurrency)
	done := make(chan struct{}, d.cfg.Concurrency)
	defer func() {
		wg.Wait()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := d.cfg.Store.ReleaseWebhookDeliveries(rctx, d.cfg.Owner); err != nil {
			d.cfg.Logger.Warn("webhooks: letting go of deliveries", "err", err)
		}
	}()
	var cleaned time.Time
	for {
		if now := d.cfg.Now(); now.Sub(cleaned) >= time.Hour {
			cleaned = now
			if n, err := d.cfg.Store.DeleteWebhookEvents(ctx, now.Add(-topupd.WebhookEventsKept)); err != nil {
				d.warn(ctx, "deleting old events", err)
			} else if n > 0 {
				d.cfg.Logger.Info("webhooks: deleted old events", "events", n)
			}
		}
		free := d.cfg.Concurrency - len(slots)
		claimed := 0
		if free > 0 {
			jobs, err := d.claim(ctx, free)
			if err != nil {
				d.warn(ctx, "claiming deliveries", err)
			}
			claimed = len(jobs)
			for _, j := range jobs {
				slots <- struct{}{}
				wg.Go(func() {
					defer func() {
						<-slots
						select {
						case done <- struct{}{}:
						default:
						}
					}()
					d.attempt(ctx, j)
				})
			}
		}
		if claimed > 0 && claimed == free {
			select {
			case <-ctx.Done():
				return
			case <-done: // a slot is free, and there may be more due
			}
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case <-done:
		case <-time.After(d.cfg.Poll):
		}
	}
}

// attempt posts one claimed delivery and records how it went.
func (d *Deliverer) attempt(ctx context.Context, j topupd.WebhookJob) {
	start := d.cfg.Now()
	ev := j.Event
	raw, err := json.Marshal(ev.Body())
	a := topupd.WebhookAttempt{Seq: j.Delivery.Seq, Owner: d.cfg.Owner}
	var retryAfter time.Duration
	if err == nil {
		a.Status, retryAfter, err = d.post(ctx, j.Endpoint, ev.ID, raw, start)
	}
	if ctx.Err() != nil {
		return // stopping: the lease is let go, and another node tries
	}
	a.At = d.cfg.Now()
	outcome := "delivered"
	switch {
	case err != nil:
		a.Error = err.Error()
	case a.Status >= 200 && a.Status < 300:
		a.OK = true
	case a.Status == http.StatusGone:
		a.Gone, a.Error, outcome = true, "410 Gone: the endpoint is disabled", "gone"
	default:
		a.Error = strconv.Itoa(a.Status) + " " + http.StatusText(a.Status)
	}
	if !a.OK && !a.Gone {
		outcome = "failed"
		if n := j.Delivery.Attempts; n < len(Retries) {
			pause := time.Duration(float64(Retries[n]) * (0.9 + 0.2*d.cfg.Jitter()))
			if retryAfter > pause {
				pause = retryAfter
			}
			a.NextAt, outcome = a.At.Add(pause), "retry"
		}
		if errors.Is(err, errForbidden) {
			outcome = "refused"
		}
	}
	if d.cfg.Observer != nil {
		d.cfg.Observer.WebhookAttempt(outcome, a.At.Sub(start))
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	reason, err := d.cfg.Store.RecordWebhookAttempt(rctx, a)
	if err != nil {
		d.warn(ctx, "recording an attempt", err)
		return
	}
	if reason != "" {
		d.cfg.Logger.Warn("webhooks: endpoint disabled", "endpoint", j.Endpoint.ID, "account", j.Endpoint.AccountID, "reason", reason)
		if d.cfg.Observer != nil {
			d.cfg.Observer.WebhookDisabled(reason)
		}
	}
}

// post sends a delivery, signed with the endpoint's secret (and, during a
// rotation, the old one), and answers the receiver's status and the pause
// a Retry-After asked for on a 429 or 503.
func (d *Deliverer) post(ctx context.Context, e topupd.WebhookEndpoint, id string, raw []byte, now time.Time) (int, time.Duration, error) {
	ts := now.Unix()
	sig, err := topupd.SignWebhook(e.Secret, id, ts, raw)
	if err != nil {
		return 0, 0, err
	}
	if e.OldSecret != "" && now.Before(e.OldSecretUntil) {
		old, err := topupd.SignWebhook(e.OldSecret, id, ts, raw)
		if err != nil {
			return 0, 0, err
		}
		sig += " " + old
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(raw))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "topupd-webhooks")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, 0, cleanError(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	var after time.Duration
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		after = retryAfter(resp.Header.Get("Retry-After"), now)
	}
	return resp.StatusCode, after, nil
}

// retryAfter reads a Retry-After header: seconds or an HTTP date, at most
// maxRetryAfter; 0 when absent or unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		d = time.Duration(min(n, int64(maxRetryAfter/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

// cleanError says why a request failed without the URL's query, which
// might hold a token of the receiver's.
func cleanError(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			if errors.Is(inner, context.DeadlineExceeded) {
				return errors.New("timed out")
			}
			return inner
		}
	}
	return err
}

// warn logs a failure, unless the deliverer is stopping.
func (d *Deliverer) warn(ctx context.Context, doing string, err error) {
	if ctx.Err() == nil {
		d.cfg.Logger.Warn("webhooks: "+doing, "err", err)
	}
}
