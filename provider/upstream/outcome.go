package upstream

import (
	"fmt"
	"strings"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// outcome maps an upstream order to our outcome.
func (p *Provider) outcome(o *topupd.Order, uo *client.Order) (topupd.Outcome, error) {
	if uo.OrderID == "" {
		return topupd.Outcome{}, needsOperator(o.Upstream, "an order answer without orderId", nil)
	}
	if trx := topupd.UpstreamTrxID(o); uo.TrxID != "" && uo.TrxID != trx {
		// Never pass on another order's codes or outcome.
		return topupd.Outcome{}, needsOperator(o.Upstream, fmt.Sprintf("order %s has trxid %q, want %q", uo.OrderID, uo.TrxID, trx), nil)
	}
	out := topupd.Outcome{SupplierRef: uo.OrderID}
	switch uo.Status {
	case client.StatusProcessing:
		out.State, out.RetryAt = topupd.OutcomePending, p.now().Add(p.poll)
	case client.StatusCompleted:
		if err := checkCodes(o, uo); err != nil {
			return topupd.Outcome{}, err
		}
		out.State, out.Codes = topupd.OutcomeCompleted, uo.Codes
	case client.StatusCancelled:
		out.State, out.Message = topupd.OutcomeFailed, uo.Error
		if out.Message == "" {
			out.Message = "UPSTREAM: CANCELLED"
		}
	default:
		return topupd.Outcome{}, needsOperator(o.Upstream, fmt.Sprintf("order %s has status %q", uo.OrderID, uo.Status), nil)
	}
	return out, nil
}

// checkCodes refuses a completed key or card order without exactly one
// code per unit: it must not complete with codes missing.
func checkCodes(o *topupd.Order, uo *client.Order) error {
	if !expectsCodes(o) {
		return nil
	}
	want, got := max(o.Quantity, 1), 0
	for _, c := range uo.Codes {
		if strings.TrimSpace(c) != "" {
			got++
		}
	}
	if got != want || len(uo.Codes) != want {
		return needsOperator(o.Upstream, fmt.Sprintf("order %s completed with %d codes (%d usable), want %d",
			uo.OrderID, len(uo.Codes), got, want), nil)
	}
	return nil
}

// authCodes are the 403 codes of a key or account the upstream refuses.
var authCodes = map[string]bool{
	client.CodeAPIDisabled: true, client.CodeAPIDisabledByAdmin: true, client.CodeAPINotEligible: true,
	client.CodeAccountBanned: true, client.CodeAccountRestricted: true,
	client.CodeIPAllowlistRequired: true, client.CodeIPNotAllowed: true,
}

// placeFailure maps a failed POST /orders: a refusal for good is
// OutcomeFailed; anything else is a transient error, wrapping
// topupd.ErrNeedsOperator when only the operator can clear it, and also
// topupd.ErrSupplierRefused for our balance there (refused before the
// upstream took the order, so it holds none).
func placeFailure(name string, err error) (topupd.Outcome, error) {
	e, ok := client.AsError(err)
	switch {
	case !ok, e.StatusCode == 429, e.StatusCode >= 500 && e.StatusCode != 501,
		e.StatusCode == 401, e.StatusCode == 403 && e.Code != client.CodeForbidden:
		// In transit, rate limits, outages, our key or account: not the order's fault.
	case e.Code == client.CodeInsufficientBalance || e.Message == "INSUFFICIENT BALANCE":
		// Refused before it was taken: the upstream holds no order, so an
		// order that lists another supplier may go there (and the alert stands).
		return topupd.Outcome{}, fmt.Errorf("%w (%w, %w)", needsOperator(name, "our balance there is too low", err), topupd.ErrSupplierRefused, topupd.ErrSupplierDry)
	case e.StatusCode == 400 || e.StatusCode == 422 || e.StatusCode == 403 || e.Rejected() ||
		e.Code == client.CodeIdempotencyKeyReused:
		return topupd.Outcome{State: topupd.OutcomeFailed, Message: refusal(e)}, nil
	}
	return topupd.Outcome{}, readFailure(name, "placing the order", err)
}

// readFailure maps any other failed call to a transient error: plain for a
// network failure, a timeout, 429 or 5xx; wrapping topupd.ErrNeedsOperator
// for a refused key or account, and for answers that will not change by
// themselves (a wrong base URL, say).
func readFailure(name, doing string, err error) error {
	e, ok := client.AsError(err)
	switch {
	case !ok || e.StatusCode == 429 || e.StatusCode >= 500 && e.StatusCode != 501:
		return fmt.Errorf("upstream %s: %s: %w", name, doing, err)
	case e.StatusCode == 401:
		return needsOperator(name, "our API key there is refused", err)
	case e.StatusCode == 403 && authCodes[e.Code]:
		return needsOperator(name, "our account there is refused", err)
	}
	return needsOperator(name, doing+": unexpected answer", err)
}

// needsOperator returns a transient error that only the operator can clear.
func needsOperator(name, why string, err error) error {
	if err == nil {
		return fmt.Errorf("upstream %s: %s (%w)", name, why, topupd.ErrNeedsOperator)
	}
	return fmt.Errorf("upstream %s: %s (%w): %w", name, why, topupd.ErrNeedsOperator, err)
}

// maxMessage bounds the message of a refused order.
const maxMessage = 200

// refusal is the message of an order the upstream refused: its error text,
// recognisable, with any detail, as in "UPSTREAM: UNKNOWN PID".
func refusal(e *client.Error) string {
	msg := e.Message
	if msg == "" {
		msg = e.Code
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	msg = "UPSTREAM: " + msg
	if len(msg) > maxMessage {
		cut := maxMessage
		for cut > 0 && msg[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}
