package topupd

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// fingerprintV2 starts the fingerprints of orders placed since the
// idempotency key, not the trxid, names a request that carries one.
const fingerprintV2 = "v2:"

// Fingerprint digests what the request asks for, exactly as sent: the pid,
// the quantity (a missing one counts as 1) and the account fields. Two
// requests with the same fingerprint are the same purchase, whatever trxid
// or idempotency key they carry; the key decides whether they are one
// request.
func (r *OrderRequest) Fingerprint() string {
	return fingerprintV2 + digest(r.PID, strconv.Itoa(r.quantityOrOne()),
		r.Fields.UserID, r.Fields.ZoneID, r.Fields.ServerID, r.Fields.Region, r.Fields.MoreID)
}

// legacyFingerprint is how orders placed before fingerprintV2 were
// fingerprinted: the trxid and the key counted too.
func (r *OrderRequest) legacyFingerprint() string {
	return digest(r.PID, r.TrxID, r.Key(), strconv.Itoa(r.quantityOrOne()),
		r.Fields.UserID, r.Fields.ZoneID, r.Fields.ServerID, r.Fields.Region, r.Fields.MoreID)
}

func (r *OrderRequest) quantityOrOne() int {
	if r.Quantity == 0 {
		return 1
	}
	return r.Quantity
}

// digest hashes strings length-prefixed, so that no two different lists
// share an encoding.
func digest(parts ...string) string {
	h := sha256.New()
	for _, s := range parts {
		h.Write(strconv.AppendInt(nil, int64(len(s)), 10))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Repeats reports whether the request asks for what the earlier order o was
// placed for: the same pid, quantity and account fields.
func (r *OrderRequest) Repeats(o *Order) bool {
	if strings.HasPrefix(o.Fingerprint, fingerprintV2) {
		return o.Fingerprint == r.Fingerprint()
	}
	return o.Fingerprint == r.legacyFingerprint()
}

// DecideRepeat is the idempotency decision for a request of accountID that
// names an earlier order prev: by its idempotency key (idempotencyKey, or
// else its trxid), or by a trxid that prev already holds. The earlier
// order is replayed when the request asks for the same purchase; another
// account's trxid is FORBIDDEN; anything else is IDEMPOTENCY_KEY_REUSED.
func DecideRepeat(req *OrderRequest, accountID string, prev *Order) (replay bool, err error) {
	switch {
	case prev.AccountID != accountID:
		return false, Fail(EForbidden)
	case !req.Repeats(prev):
		return false, Errorf(EIdempotencyReused, "%s was used for a different request", repeatName(req, prev))
	}
	return true, nil
}

// FirstCallRunning reports whether a processing order's first supplier
// call has not ended: a submit was started (as a placement with a lease
// records it at once) and no outcome was ever settled. For an order whose
// placing request attempts it inline, that is the request still running
// (or past its inline wait, the call still going); it also holds while
// the engine makes the first call of an order whose placing node died.
// A repeat then is DUPLICATE_IN_FLIGHT, not a replay, while its in-flight
// hint is held (PlaceOrder.HintHeld).
func (o *Order) FirstCallRunning() bool {
	return o.Status == StatusProcessing && o.Supplier == SupplierSubmitting && o.Attempts == 0
}

// repeatName says which of the request's names found the earlier order.
func repeatName(req *OrderRequest, prev *Order) string {
	if prev.IdempotencyKey == req.Key() {
		return "idempotency key " + strconv.Quote(req.Key())
	}
	return "trxid " + strconv.Quote(req.TrxID)
}
