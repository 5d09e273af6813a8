package fulfil

import (
	"context"
	"errors"
	"fmt"

	"github.com/topupd/topupd"
)

// CheckPlayer asks a pack's suppliers whether the player of account fields
// f exists (POST /players/check), within CheckTimeout in all. The
// suppliers this node finds healthy are asked first, in the pack's order,
// then the others, in the pack's order; the first answer from a supplier
// that can check (valid or not) is the answer. A supplier that cannot
// check (no PlayerChecker, or its zero answer) is passed over, and so is
// one that fails, after a log line. When none can check, the answer is the
// zero PlayerCheck (not supported); when one failed and none answered, or
// the time ran out, it is SUPPLIER_UNAVAILABLE, which names no supplier.
// A check is read-only: it moves nothing and is not counted in the
// suppliers' health, which follows orders alone.
func (e *Engine) CheckPlayer(ctx context.Context, suppliers []topupd.Supplier, f topupd.AccountFields) (topupd.PlayerCheck, error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.CheckTimeout)
	defer cancel()
	var failed error
	for _, s := range e.checkOrder(suppliers) {
		pc, ok := e.cfg.Providers[s.Provider].(topupd.PlayerChecker)
		if !ok {
			continue
		}
		res, err := pc.CheckPlayer(ctx, s, f)
		switch {
		case err != nil:
			e.cfg.Logger.WarnContext(ctx, "fulfil: a player check failed", "supplier", supplierName(&s), "err", err)
			failed = errors.Join(failed, fmt.Errorf("%s: %w", supplierName(&s), err))
		case res.Supported:
			return res, nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	switch {
	case ctx.Err() != nil:
		return topupd.PlayerCheck{}, &topupd.Error{Code: topupd.ESupplierUnavailable, Detail: "the supplier did not answer in time"}
	case failed != nil:
		return topupd.PlayerCheck{}, &topupd.Error{Code: topupd.ESupplierUnavailable, Detail: "the supplier could not be asked"}
	}
	return topupd.PlayerCheck{}, nil
}

// checkOrder is the order CheckPlayer asks suppliers in: the healthy ones
// first, then the others, each in the pack's order.
func (e *Engine) checkOrder(suppliers []topupd.Supplier) []topupd.Supplier {
	out := make([]topupd.Supplier, 0, len(suppliers))
	var later []topupd.Supplier
	for _, s := range suppliers {
		if e.healthy(s.Provider, s.Upstream) {
			out = append(out, s)
		} else {
			later = append(later, s)
		}
	}
	return append(out, later...)
}
