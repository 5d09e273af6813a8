package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/topupd/topupd"
)

// PlaceOrder validates, charges, draws codes and creates the order in one
// transaction, holding the account's lock throughout: the account's orders
// and ledger entries are written one transaction at a time, so its balance
// is read and charged without a lost update, and a repeated key finds the
// order of the transaction before it. A repeat that still slips past the
// look-ups (the same trxid from another account at the same moment) trips a
// unique index; the transaction then runs again and answers what the repeat
// is: a replay, FORBIDDEN or IDEMPOTENCY_KEY_REUSED.
func (s *Store) PlaceOrder(ctx context.Context, p topupd.PlaceOrder) (topupd.Order, bool, error) {
	var o topupd.Order
	replay := false
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		o, replay, err = s.placeOrder(ctx, tx, p)
		if err != nil && s.d.IsUniqueViolation(err) {
			return again(err)
		}
		return err
	})
	if err != nil {
		// No order: one rejected after its row was written was rolled back.
		return topupd.Order{}, false, fmt.Errorf("store.PlaceOrder %q: %w", p.Request.TrxID, err)
	}
	return o, replay, nil
}

func (s *Store) placeOrder(ctx context.Context, tx *sql.Tx, p topupd.PlaceOrder) (topupd.Order, bool, error) {
	req := &p.Request
	fingerprint := req.Fingerprint()
	// An unknown account fails below, where its order count is taken.
	if _, err := s.lockAccount(ctx, tx, p.AccountID); err != nil {
		return topupd.Order{}, false, err
	}
	// Idempotency first, whatever the catalog says now: the account's
	// idempotency key (idempotencyKey, or else the trxid) names the request,
	// whatever trxid it carries; a trxid already held names an order too.
	for _, by := range []struct {
		query string
		args  []any
	}{{s.q.orderByKey, []any{p.AccountID, req.Key()}}, {s.q.orderByTrxID, []any{req.TrxID}}} {
		prev, err := scanOrder(tx.QueryRowContext(ctx, by.query, by.args...))
		if isNoRows(err) {
			continue
		} else if err != nil {
			return prev, false, err
		}
		replay, err := topupd.DecideRepeat(req, p.AccountID, &prev)
		if err != nil {
			return topupd.Order{}, false, err
		}
		return prev, replay, s.loadCodes(ctx, tx, &prev)
	}

	pack, err := scanPack(tx.QueryRowContext(ctx, `SELECT `+packColumns+` FROM packs WHERE pid = $1`, req.PID))
	if isNoRows(err) {
		return topupd.Order{}, false, topupd.Fail(topupd.EUnknownPID)
	} else if err != nil {
		return topupd.Order{}, false, err
	}
	line, err := scanLine(tx.QueryRowContext(ctx, `SELECT `+lineColumns+` FROM lines WHERE slug = $1`, pack.Slug))
	if isNoRows(err) {
		return topupd.Order{}, false, topupd.Errorf(topupd.EInvalidPack, "pack %s has no service line", pack.PID)
	} else if err != nil {
		return topupd.Order{}, false, err
	}
	if p.SimOff && pack.Provider == topupd.ProviderSim {
		return topupd.Order{}, false, topupd.Errorf(topupd.EProductDisabled, "the sim supplier is off")
	}
	draft, err := topupd.Prepare(req, &line, &pack)
	if err != nil {
		return topupd.Order{}, false, err
	}
	reject := func(code topupd.ErrorCode) error { return &topupd.Error{Code: code, Game: line.Game} }
	bal, balSeq, err := s.balanceOf(ctx, tx, p.AccountID)
	if err != nil {
		return topupd.Order{}, false, err
	}
	if bal < draft.Amount {
		return topupd.Order{}, false, reject(topupd.EInsufficientBalance)
	}
	if draft.DrawsStock {
		// The stock level's row lock makes the draws of one pack take turns,
		// so the count here is the count at the draw.
		var avail int
		if err := tx.QueryRowContext(ctx, s.q.lockStock, pack.PID).Scan(&avail); err != nil && !isNoRows(err) {
			return topupd.Order{}, false, err
		}
		if avail < draft.Quantity {
			return topupd.Order{}, false, reject(topupd.EInsufficientStock)
		}
	}

	var accountSeq int64
	if err := tx.QueryRowContext(ctx, `UPDATE accounts SET order_count = order_count + 1 WHERE id = $1 RETURNING order_count`, p.AccountID).Scan(&accountSeq); err != nil {
		return topupd.Order{}, false, fmt.Errorf("account %s: %w", p.AccountID, err)
	}
	// The order as stored, times at the stored precision, exactly as a
	// lookup reads it back (storetest checks the two agree, field by field).
	o := topupd.Order{
		ID: topupd.NewOrderID(p.Now), AccountID: p.AccountID, TrxID: req.TrxID, IdempotencyKey: req.Key(), Fingerprint: fingerprint,
		PID: pack.PID, Slug: line.Slug, Game: line.Game, Kind: line.Kind, PackName: pack.Name, Provider: pack.Provider,
		Quantity: draft.Quantity, Amount: draft.Amount, Fields: draft.Fields, Status: topupd.StatusProcessing,
		CreatedAt: fromMS(ms(p.Now)), DeadlineAt: fromMS(ms(p.Now.Add(p.Deadline))), Supplier: topupd.SupplierNew,
	}
	if pack.Provider == topupd.ProviderUpstream {
		o.Upstream, o.UpstreamPID = pack.Upstream, pack.UpstreamPID
	}
	var nextAttempt, leaseOwner, leaseUntil any = ms(p.Now), nil, nil
	switch {
	case draft.DrawsStock:
		o.Status, o.FinishedAt, nextAttempt = topupd.StatusCompleted, o.CreatedAt, nil
	case p.LeaseOwner != "":
		// The caller submits at once: record now that the outcome of a submit
		// may become unknown, so that nobody submits again without asking.
		leaseOwner, leaseUntil, o.Supplier = p.LeaseOwner, ms(p.LeaseUntil), topupd.SupplierSubmitting
	}
	if draft.DrawsStock {
		o.CodeCount = draft.Quantity
	}
	err = tx.QueryRowContext(ctx, `INSERT INTO orders (id, account_id, account_seq, trxid, idem_key, fingerprint, pid, slug, game, kind, pack_name, provider,
			quantity, amount, user_id, zone_id, server_id, region, more_id, status, created_at, finished_at, deadline_at, next_attempt_at, lease_owner, lease_until, supplier,
			upstream, upstream_pid, code_count)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30) RETURNING seq`,
		o.ID, o.AccountID, accountSeq, o.TrxID, o.IdempotencyKey, o.Fingerprint, o.PID, o.Slug, o.Game, string(o.Kind), o.PackName, o.Provider,
		o.Quantity, int64(o.Amount), o.Fields.UserID, o.Fields.ZoneID, o.Fields.ServerID, o.Fields.Region, o.Fields.MoreID, string(o.Status),
		ms(o.CreatedAt), msOrNull(o.FinishedAt), ms(o.DeadlineAt), nextAttempt, leaseOwner, leaseUntil, string(o.Supplier),
		o.Upstream, o.UpstreamPID, o.CodeCount).Scan(&o.Seq)
	if err != nil {
		return topupd.Order{}, false, err
	}
	charge := topupd.LedgerEntry{AccountID: p.AccountID, Kind: topupd.EntryCharge, Amount: -o.Amount, CreatedAt: p.Now}
	if _, err := s.appendEntryAfter(ctx, tx, charge, o.Seq, bal, balSeq); err != nil {
		if topupd.CodeOf(err) == topupd.EInsufficientBalance {
			return topupd.Order{}, false, reject(topupd.EInsufficientBalance)
		}
		return topupd.Order{}, false, err
	}
	if draft.DrawsStock {
		if o.Codes, err = s.drawCodes(ctx, tx, &o); err != nil {
			return topupd.Order{}, false, err
		}
		if len(o.Codes) != o.Quantity {
			return topupd.Order{}, false, reject(topupd.EInsufficientStock)
		}
	}
	return o, false, nil
}

// drawCodes gives the oldest available codes of the order's pack to it and
// returns them opened, in the order a lookup lists them (by code id).
func (s *Store) drawCodes(ctx context.Context, tx *sql.Tx, o *topupd.Order) ([]string, error) {
	rows, err := tx.QueryContext(ctx, s.q.drawCodes, o.Seq, o.PID, o.Quantity)
	if err != nil {
		return nil, err
	}
	type drawn struct {
		id     int64
		sealed []byte
	}
	var got []drawn
	for rows.Next() {
		var d drawn
		if err := rows.Scan(&d.id, &d.sealed); err != nil {
			rows.Close()
			return nil, err
		}
		got = append(got, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(got, func(a, b drawn) int { return cmp.Compare(a.id, b.id) })
	codes := make([]string, len(got))
	for i, d := range got {
		if codes[i], err = s.vault.Open(o.PID, d.sealed); err != nil {
			return nil, fmt.Errorf("order %s: %w", o.ID, err)
		}
	}
	return codes, nil
}
