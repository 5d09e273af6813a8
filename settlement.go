package topupd

import "fmt"

// Settled decides what a settlement makes of an order as it stands,
// locked, with owner the holder of its lease ("" for none): the order as
// the store is to write it, or why it is refused. A final order is
// ORDER_FINAL; a settlement whose worker no longer holds the lease, or
// whose supplier the order has moved on from, is CONFLICT; codes for a
// sandbox order are INVALID_BODY (it delivers TEST- codes of its own).
// The store adds what it reads or writes itself: a completed order's
// cost, and its codes' uniqueness.
func (o *Order) Settled(st *Settlement, owner string) (Order, error) {
	if o.Status.Final() {
		return *o, Errorf(EOrderFinal, "order %s is already %s", o.ID, o.Status)
	}
	if st.LeaseOwner != "" && owner != st.LeaseOwner {
		return *o, Errorf(EConflict, "order %s is no longer leased to %s", o.ID, st.LeaseOwner)
	}
	if by := st.By; by != nil && (by.Provider != o.Provider || by.Upstream != o.Upstream || by.UpstreamPID != o.UpstreamPID) {
		return *o, Errorf(EConflict, "order %s has moved from supplier %s %s to %s %s", o.ID, by.Provider, by.Upstream, o.Provider, o.Upstream)
	}
	settled := *o
	if st.Supplier != "" {
		settled.Supplier = st.Supplier
	}
	if st.SupplierRef != "" {
		settled.SupplierRef = st.SupplierRef
	}
	switch st.Status {
	case StatusCompleted:
		if o.Sandbox && len(st.Codes) > 0 {
			return *o, SandboxCodesRefused(o.ID)
		}
		settled.Status, settled.FinishedAt = StatusCompleted, toMillisecond(st.Now)
		settled.Codes, settled.CodeCount = append([]string(nil), st.Codes...), len(st.Codes)
	case StatusCancelled:
		settled.Status, settled.Error, settled.Refunded, settled.FinishedAt = StatusCancelled, st.Error, st.Refund, toMillisecond(st.Now)
	case StatusProcessing:
		settled.Attempts++
		settled.Alert = st.Alert
	default:
		return *o, fmt.Errorf("settle: unknown status %q", st.Status)
	}
	return settled, nil
}
