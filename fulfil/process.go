package fulfil

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/topupd/topupd"
)

// process makes one round of supplier calls for a leased order and settles
// the outcome. fresh means the order was just placed by this process, or
// just moved to its current supplier, and no call for it can have reached
// that supplier. An order whose pack lists suppliers moves on to the next
// one when its current supplier surely holds no order (see
// docs/failover.md). A pending answer to the first submit that falls due by
// hold is waited out in memory (waitOut); a zero hold waits out none. It
// returns the order as it stands afterwards.
func (e *Engine) process(ctx context.Context, o topupd.Order, fresh bool, hold time.Time) topupd.Order {
	if !e.cfg.Now().Before(o.DeadlineAt) {
		return e.expire(ctx, o, e.cfg.Providers[o.Provider])
	}
	if o.Alert == topupd.AlertWaitingFunds && o.Supplier == topupd.SupplierNew {
		next, resumed, err := e.resume(ctx, o)
		if err != nil {
			return e.stopped(ctx, o, err)
		}
		if !resumed {
			return next
		}
		o, fresh = next, true
	}
	if untouched(&o, fresh) && !e.healthy(o.Provider, o.Upstream) {
		next, moved, err := e.passOver(ctx, o)
		if err != nil {
			return e.stopped(ctx, o, err)
		}
		o, fresh = next, fresh || moved
	}
	for {
		if untouched(&o, fresh) {
			next, moved, parked, err := e.fundsRoute(ctx, o)
			switch {
			case err != nil:
				return e.stopped(ctx, o, err)
			case parked:
				return next
			}
			o, fresh = next, fresh || moved
		}
		prov, ok := e.cfg.Providers[o.Provider]
		if !ok {
			return e.retry(ctx, o, fmt.Errorf("no provider %q on this node", o.Provider))
		}
		callCtx, cancel := context.WithTimeout(e.base, e.cfg.CallTimeout)
		a := e.call(ctx, callCtx, o, prov, fresh)
		if a.notFound() {
			// The supplier never received the order: it goes to the next
			// supplier, or, with none, is submitted here again. One the
			// supplier accepted (it gave its own id) stays and is submitted
			// here again: a "not found" then cannot prove it holds none.
			next, moved, err := o, false, error(nil)
			if !accepted(&o) {
				next, moved, err = e.moveOn(ctx, o, topupd.AttemptNotFound, "its status lookup found no order")
			}
			if err != nil || moved {
				cancel()
				if err != nil {
					return e.stopped(ctx, o, err)
				}
				o, fresh = next, true
				continue
			}
			// Submit again, as the order's lease holder still: a worker
			// that stalled since its claim may have lost the order to
			// another node, which may have settled it already (found by
			// the simulator, docs/simulation.md).
			if err := e.cfg.Store.MarkSubmitting(callCtx, o.Seq, e.cfg.Owner); err != nil {
				a = answer{err: err}
			} else {
				a = e.submit(ctx, callCtx, o, prov)
			}
		}
		cancel()
		dry := e.dry(ctx, &o, a.err)
		if a.refused() {
			why := a.why()
			if dry {
				why = topupd.WhyInsufficient
			}
			next, moved, err := e.moveOn(ctx, o, topupd.AttemptRefused, why)
			if err == nil && !moved {
				next, moved, err = e.parkRefused(ctx, o, why, dry)
				if err == nil && moved {
					return next
				}
			}
			if err != nil {
				return e.stopped(ctx, o, err)
			}
			if moved {
				if errors.Is(a.err, topupd.ErrNeedsOperator) && !dry {
					e.cfg.Logger.ErrorContext(ctx, "fulfil: ALERT: the supplier needs the operator; it refused the order, which went to its next supplier",
						"order", o.ID, "provider", o.Provider, "upstream", o.Upstream, "err", a.err)
				}
				o, fresh = next, true
				continue
			}
		}
		if a.err != nil {
			return e.retry(ctx, o, a.err)
		}
		if a.first && a.out.State == topupd.OutcomePending {
			return e.waitOut(ctx, o, prov, a.out, hold)
		}
		return e.settleOutcome(ctx, o, a.out)
	}
}

// answer is the outcome of a supplier call.
type answer struct {
	out topupd.Outcome
	err error
	// first: the call was a submit that no earlier call for the order can
	// have reached the supplier before (the supplier never had the order,
	// or said it had none), so a refusal means it holds none.
	first bool
	// status: the call was a status lookup.
	status bool
}

// notFound reports a status lookup saying the supplier never received the order.
func (a *answer) notFound() bool {
	return a.status && a.err == nil && a.out.State == topupd.OutcomeNotFound
}

// refused reports a first submit the supplier refused without taking the
// order: failed with no order of its own, or an error marked
// topupd.ErrSupplierRefused (our balance there, say). Never after an
// unknown outcome: then a refusal may hide an order placed earlier.
func (a *answer) refused() bool {
	if !a.first {
		return false
	}
	if a.err != nil {
		return errors.Is(a.err, topupd.ErrSupplierRefused)
	}
	return a.out.State == topupd.OutcomeFailed && a.out.SupplierRef == ""
}

// why says why a refused supplier was left.
func (a *answer) why() string {
	if a.err != nil {
		return a.err.Error()
	}
	return a.out.Message
}

// untouched reports whether no call for the order can have reached its
// current supplier yet.
func untouched(o *topupd.Order, fresh bool) bool {
	return o.Supplier == topupd.SupplierNew || (o.Supplier == topupd.SupplierSubmitting && fresh)
}

// call asks the supplier about the order. A submit whose outcome may be
// unknown is recorded first; after that, the supplier is asked for the status
// before anything is submitted again, so a retry cannot buy twice.
func (e *Engine) call(logCtx, ctx context.Context, o topupd.Order, prov topupd.Provider, fresh bool) answer {
	switch {
	case o.Supplier == topupd.SupplierNew:
		if err := e.cfg.Store.MarkSubmitting(ctx, o.Seq, e.cfg.Owner); err != nil {
			return answer{err: err}
		}
		return e.submit(logCtx, ctx, o, prov)
	case o.Supplier == topupd.SupplierSubmitting && fresh:
		return e.submit(logCtx, ctx, o, prov)
	}
	// The supplier may have the order: ask first, and submit only if it
	// never received it (a submit carries the order's own id, so even a
	// wrong "not found" cannot buy twice where the supplier is idempotent).
	start := time.Now()
	a := answer{status: true}
	a.out, a.err = prov.Status(ctx, &o)
	e.health.record(&o, e.cfg.Now(), a.err)
	e.logCall(logCtx, &o, a.out, a.err, start)
	return a
}

// submit hands the order to the supplier, which cannot have it yet.
func (e *Engine) submit(logCtx, ctx context.Context, o topupd.Order, prov topupd.Provider) answer {
	start := time.Now()
	a := answer{first: true}
	a.out, a.err = prov.Submit(ctx, &o)
	e.health.record(&o, e.cfg.Now(), a.err)
	e.logCall(logCtx, &o, a.out, a.err, start)
	return a
}

// settleOutcome records a supplier's answer.
func (e *Engine) settleOutcome(ctx context.Context, o topupd.Order, out topupd.Outcome) topupd.Order {
	st, err := e.outcomeSettlement(o, out)
	if err != nil {
		return e.retry(ctx, o, err)
	}
	return e.settle(ctx, o, st)
}

// outcomeSettlement is the settlement that records a supplier's answer: a
// pending one is asked again at the time the supplier gave, or after the
// backoff, never past the deadline.
func (e *Engine) outcomeSettlement(o topupd.Order, out topupd.Outcome) (topupd.Settlement, error) {
	now := e.cfg.Now()
	st := topupd.Settlement{Now: now, LeaseOwner: e.cfg.Owner, Supplier: topupd.SupplierAccepted, SupplierRef: out.SupplierRef}
	switch out.State {
	case topupd.OutcomeCompleted:
		st.Status, st.Codes = topupd.StatusCompleted, out.Codes
	case topupd.OutcomeFailed:
		st.Status, st.Error, st.Refund = topupd.StatusCancelled, out.Message, true
	case topupd.OutcomePending:
		st.Status, st.RetryAt, st.Note = topupd.StatusProcessing, out.RetryAt, topupd.NoteSupplierPending
		if out.Message != "" {
			st.Note += ": " + out.Message
		}
		if st.RetryAt.IsZero() || !st.RetryAt.After(now) {
			st.RetryAt = now.Add(e.backoff(o.Attempts))
		}
		st.RetryAt = e.notPast(o, now, st.RetryAt)
	default:
		return st, fmt.Errorf("supplier answered state %d", out.State)
	}
	return st, nil
}

// retry reschedules an order after a transient error, with backoff, never
// past its deadline.
func (e *Engine) retry(ctx context.Context, o topupd.Order, cause error) topupd.Order {
	now := e.cfg.Now()
	if errors.Is(cause, topupd.ErrNeedsOperator) {
		e.cfg.Logger.ErrorContext(ctx, "fulfil: ALERT: the supplier needs the operator; retrying until the deadline",
			"order", o.ID, "provider", o.Provider, "upstream", o.Upstream, "deadline", o.DeadlineAt, "err", cause)
	} else {
		e.cfg.Logger.WarnContext(ctx, "fulfil: transient supplier error; retrying", "order", o.ID, "provider", o.Provider, "attempts", o.Attempts, "err", cause)
	}
	at := e.notPast(o, now, now.Add(e.backoff(o.Attempts)))
	return e.settle(ctx, o, topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: at, Now: now, LeaseOwner: e.cfg.Owner, Note: cause.Error()})
}

// notPast moves a retry planned before the order's deadline to no later
// than the deadline, so the deadline is looked at in time. Past the
// deadline the backoff stands as it is.
func (e *Engine) notPast(o topupd.Order, now, at time.Time) time.Time {
	if now.Before(o.DeadlineAt) && at.After(o.DeadlineAt) {
		return o.DeadlineAt
	}
	return at
}

// expire deals with an order past its deadline. An order no submit was ever
// started for, or that the supplier says it never received, is cancelled
// and refunded. One a submit may have reached is never refunded without
// the supplier's final answer: it is settled by that answer when there is
// one; otherwise it stays processing with an alert, and the supplier is
// asked again (never submitted to) with backoff, until it answers or an
// operator completes or cancels the order.
func (e *Engine) expire(ctx context.Context, o topupd.Order, prov topupd.Provider) topupd.Order {
	cancelled := topupd.Settlement{Status: topupd.StatusCancelled, Error: DeadlineExceeded, Refund: true, LeaseOwner: e.cfg.Owner}
	if o.Supplier == topupd.SupplierNew {
		cancelled.Now = e.cfg.Now()
		return e.settle(ctx, o, cancelled)
	}
	if prov == nil {
		return e.alert(ctx, o, topupd.AlertPastDeadline, fmt.Sprintf("no provider %q on this node to ask", o.Provider), "")
	}
	out, err := e.status(ctx, &o, prov)
	switch {
	case err == nil && (out.State == topupd.OutcomeCompleted || out.State == topupd.OutcomeFailed):
		return e.settleOutcome(ctx, o, out)
	case err == nil && out.State == topupd.OutcomeNotFound:
		cancelled.Now = e.cfg.Now()
		return e.settle(ctx, o, cancelled)
	}
	why := "the supplier says it is still working on it"
	if err != nil {
		why = err.Error()
	}
	return e.alert(ctx, o, topupd.AlertPastDeadline, why, out.SupplierRef)
}

// status asks the supplier how the order stands, within the call timeout
// (on a context only the engine's stop ends), and records the call: the
// supplier's health, the call's log line and metric.
func (e *Engine) status(logCtx context.Context, o *topupd.Order, prov topupd.Provider) (topupd.Outcome, error) {
	callCtx, cancel := context.WithTimeout(e.base, e.cfg.CallTimeout)
	defer cancel()
	start := time.Now()
	out, err := prov.Status(callCtx, o)
	e.health.record(o, e.cfg.Now(), err)
	e.logCall(logCtx, o, out, err, start)
	return out, err
}

// alert keeps an order processing with an alert that asks for the operator,
// logged and stored on the order, and asks the supplier again after the
// backoff.
func (e *Engine) alert(ctx context.Context, o topupd.Order, alert, why, supplierRef string) topupd.Order {
	now := e.cfg.Now()
	e.cfg.Logger.ErrorContext(ctx, "fulfil: ALERT: "+alert+"; asking the supplier again, never refunding without its answer or an operator",
		"order", o.ID, "provider", o.Provider, "upstream", o.Upstream, "deadline", o.DeadlineAt, "attempts", o.Attempts, "why", why)
	return e.settle(ctx, o, topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: now.Add(e.backoff(o.Attempts)), Now: now,
		LeaseOwner: e.cfg.Owner, Alert: alert, Note: why, SupplierRef: supplierRef})
}

// settle writes a settlement; a lost lease or an order already final means
// someone else has settled it, which is logged and left alone.
func (e *Engine) settle(logCtx context.Context, o topupd.Order, st topupd.Settlement) topupd.Order {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if st.By == nil {
		// What a worker settles is its supplier's answer, or its own view
		// of the order at that supplier: never once the order has moved.
		st.By = &topupd.Supplier{Provider: o.Provider, Upstream: o.Upstream, UpstreamPID: o.UpstreamPID}
	}
	out, err := e.cfg.Store.Settle(ctx, nil, o.Seq, st)
	if err != nil && topupd.CodeOf(err) == topupd.ECodeAlreadyUsed && st.Status == topupd.StatusCompleted {
		// Never complete an order with a code sold before or held in stock.
		return e.alert(logCtx, o, topupd.AlertCodeUsed, err.Error(), st.SupplierRef)
	}
	if err != nil {
		switch topupd.CodeOf(err) {
		case topupd.EOrderFinal, topupd.EConflict:
			e.cfg.Logger.InfoContext(logCtx, "fulfil: order settled elsewhere", "order", o.ID, "err", err)
		default:
			e.cfg.Logger.ErrorContext(logCtx, "fulfil: settle", "order", o.ID, "err", err)
		}
		// Answer with the order as it stands, not as it was before the call.
		if cur, err := e.cfg.Store.Order(ctx, "", o.ID); err == nil {
			return cur
		}
		return o
	}
	if out.Status.Final() {
		e.logFinal(logCtx, &out)
	}
	return out
}

// logFinal writes the line of an order that became final.
func (e *Engine) logFinal(ctx context.Context, o *topupd.Order) {
	e.cfg.Logger.InfoContext(ctx, "fulfil: order final", "order", o.ID, "account", o.AccountID, "provider", o.Provider,
		"status", string(o.Status), "error", o.Error, "refunded", o.Refunded, "attempts", o.Attempts)
}

// logCall writes one line per supplier call: the order, the supplier, what
// it answered (completed, failed, pending, not-found, or the error), and
// how long it took. Codes and keys are never written.
func (e *Engine) logCall(ctx context.Context, o *topupd.Order, out topupd.Outcome, err error, start time.Time) {
	attrs := []slog.Attr{slog.String("order", o.ID), slog.String("provider", o.Provider),
		slog.Float64("durationMs", float64(time.Since(start).Microseconds())/1000)}
	if o.Upstream != "" {
		attrs = append(attrs, slog.String("upstream", o.Upstream))
	}
	level, outcome := slog.LevelInfo, out.State.String()
	if err != nil {
		level, outcome = slog.LevelWarn, "error"
		attrs = append(attrs, slog.String("outcome", outcome), slog.String("err", err.Error()))
	} else {
		attrs = append(attrs, slog.String("outcome", outcome))
		if out.Message != "" {
			attrs = append(attrs, slog.String("message", out.Message))
		}
	}
	e.cfg.Metrics.SupplierCall(o.Provider, o.Upstream, outcome)
	e.cfg.Logger.LogAttrs(ctx, level, "fulfil: supplier call", attrs...)
}

// accepted reports whether the order's current supplier has said it holds
// the order: the order never moves on from it.
func accepted(o *topupd.Order) bool {
	return o.SupplierRef != "" || o.Supplier == topupd.SupplierAccepted
}
