package simulation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/dbfault"
	"github.com/topupd/topupd/notify"
	"github.com/topupd/topupd/service"
	"github.com/topupd/topupd/webhooks"
)

// hooks is a run's webhook side: the real notifier (under the real
// dispatcher) and deliverer, driven from the scheduler's goroutine on the
// simulated clock, and the accounts' simulated receivers. It draws from a
// source of its own, so that the rest of a seed's history is the one it
// was before webhooks were simulated.
type hooks struct {
	rng *rand.Rand
	// gen and owner name the webhook node's current start; st is its
	// store, which stops it now and then (hookcrash.go).
	gen   int
	owner string
	st    *hookStore
	disp  *notify.Dispatcher
	del   *webhooks.Deliverer
	// start is where the notifier's cursor started: the events after it
	// are the ones the receivers must get.
	start topupd.StreamPos
	// receivers are the endpoints' receivers, by their URL's host.
	receivers map[string]*receiver
}

// receiver is one account's endpoint on the receiving side.
type receiver struct {
	name, account, secret string
	// events are the types the endpoint asked for (none: every type but
	// catalog.changed, as topupd.WebhookEndpoint.Wants).
	events []string
	// down is when an outage ends.
	down time.Time
	// got are the deliveries it answered with a 2xx, by event id.
	got map[string]delivered
}

// delivered is a delivery's body, as a receiver read it.
type delivered struct {
	Type string `json:"type"`
	Data struct {
		OrderID string `json:"orderId"`
		Status  string `json:"status"`
	} `json:"data"`
}

// hookProb is the percentage of steps after which the notifier and the
// deliverer take a round.
const hookProb = 5

// setupHooks gives shop1 and shop2 an endpoint each, through the service
// layer, and starts the notifier's cursor at the stream's end.
func (w *World) setupHooks(ctx context.Context) error {
	h := &hooks{rng: rand.New(rand.NewPCG(w.cfg.Seed, 0x686f6f6b)), receivers: map[string]*receiver{}}
	w.hooks = h
	wants := [][]string{nil, {topupd.WebhookOrderCompleted, topupd.WebhookOrderCancelled, topupd.WebhookCatalogChanged}}
	for i, events := range wants {
		r := &receiver{name: fmt.Sprintf("shop%d", i+1), account: w.model.accounts[i], events: events, got: map[string]delivered{}}
		host := fmt.Sprintf("hooks.shop%d.example", i+1)
		e, err := w.svc.CreateWebhook(ctx, w.root, r.account, service.WebhookInput{URL: "https://" + host + "/topupd", Events: events})
		if err != nil {
			return fmt.Errorf("webhook of %s: %w", r.name, err)
		}
		r.secret = e.Secret
		h.receivers[host] = r
	}
	w.startHooks()
	// The cursor starts where the store puts a new consumer (the end of
	// what the stream hands out), and start is that very position: read
	// apart, the two could differ on PostgreSQL, where a setup event held
	// back by another test's transaction may come out between the reads,
	// behind the cursor but ahead of start. The wait first lets setup's
	// events out, so that the history stays the seed's.
	if _, err := w.awaitSettled(ctx); err != nil {
		return err
	}
	now := w.clk.Now()
	pos, ok, err := w.store.TakeConsumer(ctx, (&webhooks.Notifier{}).Name(), h.owner, now, now.Add(notify.DefaultLease))
	if err != nil || !ok {
		return fmt.Errorf("the notifier's cursor: taken %v, %v", ok, err)
	}
	h.start = pos
	h.disp.Step(ctx) // holds the cursor from there on
	return nil
}

// hookRound has the notifier tell what the stream holds and the deliverer
// make the attempts due. It first waits until the store hands out every
// committed event (awaitSettled): on PostgreSQL a transaction open
// anywhere on the server, another test's included, holds newer events
// back, and a round that told fewer of them would make the seed's history
// differ from its history on SQLite.
func (w *World) hookRound(ctx context.Context) (int, error) {
	if w.hooks.st.dead {
		w.startHooks()
	}
	if _, err := w.awaitSettled(ctx); err != nil {
		return 0, err
	}
	for range 50 {
		if !w.hooks.disp.Step(ctx) {
			break
		}
	}
	n, err := w.hooks.del.DeliverDue(ctx)
	if errors.Is(err, errHookNodeDown) {
		return n, nil
	}
	if dbfault.IsInjected(err) { // as Run does: it tries again at its next poll
		w.logf("webhooks: claiming deliveries: %s", errText(err))
		return n, nil
	}
	if err != nil {
		return 0, fmt.Errorf("webhooks: %w", err)
	}
	return n, nil
}

// settleHooks, once faults stopped and every order is final, lets time run
// until every delivery was made: the receivers answer, and the clock moves
// on to each attempt due, until a round after the notifier's lease finds
// nothing to tell or deliver (at most 100 rounds; what is left undelivered
// then, checkHooks reports).
func (w *World) settleHooks(ctx context.Context) error {
	for _, r := range w.hooks.receivers {
		r.down = time.Time{}
	}
	if w.hooks.st.dead {
		w.startHooks()
	}
	idle := false
	for round := 0; round < 100; round++ {
		n, err := w.hookRound(ctx)
		if err != nil {
			return err
		}
		if n > 0 {
			idle = false
			continue
		}
		next, ok, err := w.nextDelivery(ctx)
		if err != nil {
			return err
		}
		if !ok {
			if waited, err := w.awaitSettled(ctx); err != nil {
				return err
			} else if waited {
				continue // events held back a moment ago may be readable now
			}
			// Nothing pending: done, unless the notifier's cursor may be
			// leased to a node that stopped, with events untold. Its lease
			// runs out, and the next round tells them.
			if idle {
				return nil
			}
			idle = true
			w.clk.Advance(notify.DefaultLease + time.Second)
			w.logf("webhooks: jump %v past the notifier's lease", notify.DefaultLease+time.Second)
			continue
		}
		// A delivery due but not claimed is leased to a node that stopped:
		// its lease must run out.
		d := next.Sub(w.clk.Now())
		if d <= 0 {
			d = webhooks.DefaultLease
		}
		w.clk.Advance(d + time.Millisecond)
		w.logf("webhooks: jump %v to the next attempt", d.Round(time.Second))
	}
	return nil
}

// nextDelivery is when the next pending delivery is due.
func (w *World) nextDelivery(ctx context.Context) (time.Time, bool, error) {
	var next time.Time
	for _, r := range w.hooks.receivers {
		es, err := w.store.Webhooks(ctx, r.account)
		if err != nil {
			return next, false, err
		}
		for _, e := range es {
			ds, err := w.store.WebhookDeliveries(ctx, e.ID, nil, 10_000)
			if err != nil {
				return next, false, err
			}
			for _, d := range ds {
				if d.State == topupd.DeliveryPending && (next.IsZero() || d.NextAt.Before(next)) {
					next = d.NextAt
				}
			}
		}
	}
	return next, !next.IsZero(), nil
}

// transport is the receivers' side of the deliverer's requests, in process.
func (h *hooks) transport(w *World) http.RoundTripper {
	return roundTrip(func(req *http.Request) (*http.Response, error) {
		r := h.receivers[req.URL.Host]
		if r == nil {
			w.fail("a delivery to %s, no receiver's", req.URL.Host)
			return nil, errors.New("no such host")
		}
		return r.receive(w, h.rng, req)
	})
}

// roundTrip is a function as an http.RoundTripper.
type roundTrip func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f roundTrip) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// receive is a receiver's answer to a delivery: it checks the signature
// and the body, then, while faults are on, may be down, time out or
// answer 503; else it records the delivery and answers 204.
func (r *receiver) receive(w *World, rng *rand.Rand, req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	id := req.Header.Get("webhook-id")
	var d delivered
	var env struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(body, &d) != nil || json.Unmarshal(body, &env) != nil || env.ID != id {
		w.fail("%s got a delivery whose body is not its event %s: %s", r.name, id, body)
	}
	now := w.clk.Now()
	if _, err := client.VerifyWebhook(r.secret, req.Header, body, now); err != nil {
		w.fail("%s got %s (%s) that does not verify: %v", r.name, d.Type, id, err)
	}
	answer := 100
	if w.faults {
		answer = rng.IntN(100)
	}
	switch {
	case now.Before(r.down):
		w.logf("  webhook to %s %s: down", r.name, d.Type)
		return nil, errors.New("connection refused")
	case answer < w.mix.hookDown:
		r.down = now.Add(time.Duration(1+rng.IntN(20)) * time.Minute)
		w.logf("  webhook to %s %s: down until %s", r.name, d.Type, r.down.Format("15:04:05"))
		return nil, errors.New("connection refused")
	case answer < w.mix.hookDown+w.mix.hookTimeout:
		w.logf("  webhook to %s %s: timed out", r.name, d.Type)
		return nil, context.DeadlineExceeded
	case answer < w.mix.hookDown+w.mix.hookTimeout+w.mix.hook503:
		w.logf("  webhook to %s %s: 503", r.name, d.Type)
		return answerWith(req, http.StatusServiceUnavailable), nil
	}
	if _, ok := r.got[id]; !ok {
		r.got[id] = d
	}
	w.logf("  webhook to %s %s: 204", r.name, d.Type)
	return answerWith(req, http.StatusNoContent), nil
}

// answerWith is a receiver's empty answer.
func answerWith(req *http.Request, status int) *http.Response {
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(nil)), Request: req}
}

// wants says whether the receiver's endpoint asked for the type.
func (r *receiver) wants(typ string) bool {
	e := topupd.WebhookEndpoint{Events: r.events}
	return e.Wants(typ)
}

// streamAfter reads the whole stream after pos.
func (w *World) streamAfter(ctx context.Context, pos topupd.StreamPos) ([]topupd.Event, error) {
	var out []topupd.Event
	for {
		es, err := w.store.Events(ctx, pos, 1000)
		if err != nil {
			return nil, fmt.Errorf("stream: %w", err)
		}
		out = append(out, es...)
		if len(es) < 1000 {
			return out, nil
		}
		pos = es[len(es)-1].Pos
	}
}

// awaitSettled waits, in real time and for at most a minute, until the
// store hands out every committed event (StreamSettledUp), and reports
// whether it had to wait. On PostgreSQL a transaction open anywhere on the
// server, another test's included, holds newer events back from every
// reader of the stream; without the wait, the last round could find
// nothing to tell while an event was still held back. It draws nothing
// from the seed and writes nothing to the trace, so a run's history stays
// its seed's.
func (w *World) awaitSettled(ctx context.Context) (bool, error) {
	st, ok := w.store.(interface {
		StreamSettledUp(context.Context) (bool, error)
	})
	if !ok {
		return false, nil
	}
	waited := false
	for end := time.Now().Add(time.Minute); ; {
		up, err := st.StreamSettledUp(ctx)
		if err != nil || up || time.Now().After(end) {
			return waited, err
		}
		waited = true
		time.Sleep(20 * time.Millisecond)
	}
}
