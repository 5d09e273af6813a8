// Package upstream is the supplier for packs whose provider is "upstream":
// it fulfils an order by ordering the pack's UpstreamPID on another server
// that speaks the reseller API (another topupd, say), through package client,
// with our API key there, and passes on that order's outcome and codes.
//
// # Why a retry can never buy twice
//
// Every order is placed upstream under a trxid derived from our own order id
// (topupd.UpstreamTrxID: "topupd-" + order id). It is the same on every
// retry and after every restart, and no idempotencyKey is ever sent, so the
// trxid is the upstream's idempotency key: placing the same order again is
// answered with the existing upstream order (idempotentReplay true) and
// charges nothing. The request is also rebuilt identically from the stored
// order every time, so the upstream never sees the same key with a
// different request (IDEMPOTENCY_KEY_REUSED).
//
// The engine asks for the status before it submits again (see fulfil), and
// Status works as follows:
//
//   - With a SupplierRef (the upstream's order id, kept from an earlier
//     answer), Status is GET /orders/{ref}. A 404 ORDER NOT FOUND is
//     OutcomeNotFound: the engine then submits, which is safe because of
//     the trxid.
//   - Without one (the answer to the submit was lost, so we do not know
//     whether the upstream has the order), Status re-sends exactly the same
//     POST /orders: the upstream has no lookup by trxid, and this is the
//     lookup. If it had the order, it answers it with idempotentReplay true,
//     and that is the status. If it answers idempotentReplay false, it had
//     never received the order and has taken it just now: Status returns
//     that order's outcome (Pending, Completed or Failed, with its
//     SupplierRef) instead of OutcomeNotFound, since the engine would have
//     submitted it anyway. So a Status call without a ref may place the
//     order, and may be refused like a submit (balance, unknown PID…).
//   - Except past the order's deadline: the engine's last Status call before
//     it cancels and refunds must not place a new order upstream. There,
//     Status without a ref looks for the trxid among the upstream account's
//     200 newest orders (GET /history) and answers OutcomeNotFound when it
//     is not there.
//
// # Outcomes and errors
//
// An upstream order that is processing is OutcomePending (ask again after the
// poll interval); completed is OutcomeCompleted with the upstream's codes
// unchanged, provided a key or card order has exactly its quantity of
// codes; cancelled is OutcomeFailed with the upstream's error (for example
// INVALID PLAYER). A placement the upstream refuses for good (UNKNOWN PID,
// INVALID REQUEST, INSUFFICIENT STOCK, a trxid owned by another account…)
// is OutcomeFailed with a message such as "UPSTREAM: UNKNOWN PID".
// Everything else is a transient error, which the engine retries with
// backoff until the order's deadline; the ones only the operator can clear
// (our balance or our key at the upstream, an unknown upstream, an upstream
// that answers nonsense) wrap topupd.ErrNeedsOperator. A placement refused
// for our balance also wraps topupd.ErrSupplierRefused: the upstream took
// no order, so the engine may send the order to the pack's next supplier.
//
// # Failover and the trxid
//
// An order that moves to the next supplier of its pack is placed there
// under the same derived trxid. Each upstream is another server, or at
// least another account, so the same trxid names a new order there; and
// were two upstream names ever the same account, the trxid would be
// answered with the order already placed there (or refused as
// IDEMPOTENCY_KEY_REUSED), never bought twice.
package upstream
