package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/topupd/topupd"
)

const orderColumns = `seq, id, account_id, trxid, idem_key, fingerprint, pid, slug, game, kind, pack_name, provider,
	quantity, amount, user_id, zone_id, server_id, region, more_id, status, error, refunded,
	created_at, finished_at, deadline_at, supplier, attempts, upstream, upstream_pid, supplier_ref`

func scanOrder(row scanner) (topupd.Order, error) {
	var o topupd.Order
	var kind, status, supplier string
	var created, deadline int64
	var finished sql.NullInt64
	err := row.Scan(&o.Seq, &o.ID, &o.AccountID, &o.TrxID, &o.IdempotencyKey, &o.Fingerprint, &o.PID, &o.Slug, &o.Game, &kind, &o.PackName, &o.Provider,
		&o.Quantity, &o.Amount, &o.Fields.UserID, &o.Fields.ZoneID, &o.Fields.ServerID, &o.Fields.Region, &o.Fields.MoreID, &status, &o.Error, &o.Refunded,
		&created, &finished, &deadline, &supplier, &o.Attempts, &o.Upstream, &o.UpstreamPID, &o.SupplierRef)
	o.Kind, o.Status, o.Supplier = topupd.LineKind(kind), topupd.OrderStatus(status), topupd.SupplierState(supplier)
	o.CreatedAt, o.FinishedAt, o.DeadlineAt = fromMS(created), nullMS(finished), fromMS(deadline)
	return o, err
}

// rowsQuerier is a *sql.DB or *sql.Tx.
type rowsQuerier interface {
	querier
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// loadCodes fills in the codes delivered to a completed order.
func (s *Store) loadCodes(ctx context.Context, q rowsQuerier, o *topupd.Order) error {
	if o.Status != topupd.StatusCompleted {
		return nil
	}
	rows, err := q.QueryContext(ctx, qCodesOfOrder, o.Seq)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pid string
		var sealed []byte
		if err := rows.Scan(&pid, &sealed); err != nil {
			return err
		}
		code, err := s.vault.Open(pid, sealed)
		if err != nil {
			return fmt.Errorf("order %s: %w", o.ID, err)
		}
		o.Codes = append(o.Codes, code)
	}
	return rows.Err()
}

// orderBy reads one order by public id or internal seq.
func (s *Store) orderBy(ctx context.Context, q rowsQuerier, where string, arg any) (topupd.Order, error) {
	o, err := scanOrder(q.QueryRowContext(ctx, `SELECT `+orderColumns+` FROM orders WHERE `+where, arg))
	if err != nil {
		return o, err
	}
	return o, s.loadCodes(ctx, q, &o)
}

// PlaceOrder validates, charges, draws codes and creates the order in one transaction.
func (s *Store) PlaceOrder(ctx context.Context, p topupd.PlaceOrder) (topupd.Order, bool, error) {
	var o topupd.Order
	replay := false
	req := &p.Request
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		o, replay, err = s.placeOrder(ctx, tx, p)
		return err
	})
	if err != nil {
		// No order: one rejected after its row was written was rolled back.
		return topupd.Order{}, false, fmt.Errorf("store.PlaceOrder %q: %w", req.TrxID, err)
	}
	return o, replay, nil
}

func (s *Store) placeOrder(ctx context.Context, tx *sql.Tx, p topupd.PlaceOrder) (topupd.Order, bool, error) {
	req := &p.Request
	fingerprint := req.Fingerprint()
	// Idempotency first: a repeat is answered whatever the catalog says now.
	prev, err := s.orderBy(ctx, tx, `trxid = $1`, req.TrxID)
	if err == nil {
		switch {
		case prev.AccountID != p.AccountID:
			return topupd.Order{}, false, topupd.Fail(topupd.EForbidden)
		case prev.Fingerprint != fingerprint:
			return topupd.Order{}, false, topupd.Errorf(topupd.EIdempotencyReused, "trxid %q was used for a different request", req.TrxID)
		}
		return prev, true, nil
	} else if !isNoRows(err) {
		return prev, false, err
	}
	// The account's idempotency key (idempotencyKey, or else the trxid) names
	// one request: under another trxid it is a different request.
	var one int
	err = tx.QueryRowContext(ctx, qIdemKeyUsed, p.AccountID, req.Key()).Scan(&one)
	if err == nil {
		return topupd.Order{}, false, topupd.Errorf(topupd.EIdempotencyReused, "idempotency key %q was used for a different request", req.Key())
	} else if !isNoRows(err) {
		return topupd.Order{}, false, err
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
	draft, err := topupd.Prepare(req, &line, &pack)
	if err != nil {
		return topupd.Order{}, false, err
	}
	reject := func(code topupd.ErrorCode) error { return &topupd.Error{Code: code, Game: line.Game} }
	bal, _, err := balanceOf(ctx, tx, p.AccountID)
	if err != nil {
		return topupd.Order{}, false, err
	}
	if bal < draft.Amount {
		return topupd.Order{}, false, reject(topupd.EInsufficientBalance)
	}
	if draft.DrawsStock {
		var avail int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT available FROM stock_levels WHERE pid = $1), 0)`, pack.PID).Scan(&avail); err != nil {
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
	o := topupd.Order{
		ID: topupd.NewID("ord_"), AccountID: p.AccountID, TrxID: req.TrxID, IdempotencyKey: req.Key(), Fingerprint: fingerprint,
		PID: pack.PID, Slug: line.Slug, Game: line.Game, Kind: line.Kind, PackName: pack.Name, Provider: pack.Provider,
		Quantity: draft.Quantity, Amount: draft.Amount, Fields: draft.Fields, Status: topupd.StatusProcessing,
		CreatedAt: p.Now, DeadlineAt: p.Now.Add(p.Deadline), Supplier: topupd.SupplierNew,
	}
	if pack.Provider == topupd.ProviderUpstream {
		o.Upstream, o.UpstreamPID = pack.Upstream, pack.UpstreamPID
	}
	var nextAttempt, leaseOwner, leaseUntil any = ms(p.Now), nil, nil
	switch {
	case draft.DrawsStock:
		o.Status, o.FinishedAt, nextAttempt = topupd.StatusCompleted, p.Now, nil
	case p.LeaseOwner != "":
		// The caller submits at once: record now that the outcome of a submit
		// may become unknown, so that nobody submits again without asking.
		leaseOwner, leaseUntil, o.Supplier = p.LeaseOwner, ms(p.LeaseUntil), topupd.SupplierSubmitting
	}
	err = tx.QueryRowContext(ctx, `INSERT INTO orders (id, account_id, account_seq, trxid, idem_key, fingerprint, pid, slug, game, kind, pack_name, provider,
			quantity, amount, user_id, zone_id, server_id, region, more_id, status, created_at, finished_at, deadline_at, next_attempt_at, lease_owner, lease_until, supplier,
			upstream, upstream_pid)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29) RETURNING seq`,
		o.ID, o.AccountID, accountSeq, o.TrxID, o.IdempotencyKey, o.Fingerprint, o.PID, o.Slug, o.Game, string(o.Kind), o.PackName, o.Provider,
		o.Quantity, int64(o.Amount), o.Fields.UserID, o.Fields.ZoneID, o.Fields.ServerID, o.Fields.Region, o.Fields.MoreID, string(o.Status),
		ms(o.CreatedAt), msOrNull(o.FinishedAt), ms(o.DeadlineAt), nextAttempt, leaseOwner, leaseUntil, string(o.Supplier),
		o.Upstream, o.UpstreamPID).Scan(&o.Seq)
	if err != nil {
		return o, false, err
	}
	if _, err := appendEntry(ctx, tx, topupd.LedgerEntry{AccountID: p.AccountID, Kind: topupd.EntryCharge, Amount: -o.Amount, CreatedAt: p.Now}, o.Seq); err != nil {
		if topupd.CodeOf(err) == topupd.EInsufficientBalance {
			return o, false, reject(topupd.EInsufficientBalance)
		}
		return o, false, err
	}
	if draft.DrawsStock {
		res, err := tx.ExecContext(ctx, qDrawCodes, o.Seq, pack.PID, o.Quantity)
		if err != nil {
			return o, false, err
		}
		if n, _ := res.RowsAffected(); n != int64(o.Quantity) {
			return o, false, reject(topupd.EInsufficientStock)
		}
	}
	// Read the order back, so that what is returned now (times at the
	// stored precision, codes) is exactly what a replay or a lookup returns.
	o, err = s.orderBy(ctx, tx, `seq = $1`, o.Seq)
	return o, false, err
}

// Order returns one order by public or internal id.
func (s *Store) Order(ctx context.Context, accountID, id string) (topupd.Order, error) {
	where, arg := `id = $1`, any(id)
	if seq, err := strconv.ParseInt(id, 10, 64); err == nil {
		where, arg = `seq = $1`, seq
	}
	o, err := s.orderBy(ctx, s.read, where, arg)
	if isNoRows(err) || (err == nil && accountID != "" && o.AccountID != accountID) {
		return topupd.Order{}, topupd.Fail(topupd.EOrderNotFound)
	}
	if err != nil {
		return o, fmt.Errorf("store.Order %s: %w", id, err)
	}
	return o, nil
}

// History returns a page of the account's orders, newest first. Each order
// carries its place in the account (account_seq), so any page is one index
// range, whatever the page number or the account's size.
func (s *Store) History(ctx context.Context, accountID string, q topupd.HistoryQuery) ([]topupd.Order, int, error) {
	var total int
	err := s.read.QueryRowContext(ctx, `SELECT order_count FROM accounts WHERE id = $1`, accountID).Scan(&total)
	if err != nil {
		return nil, 0, fmt.Errorf("store.History %s: %w", accountID, err)
	}
	orders, err := s.listOrders(ctx, qHistoryTail, accountID, total-q.Offset, q.Limit)
	if err != nil {
		return nil, 0, fmt.Errorf("store.History %s: %w", accountID, err)
	}
	return orders, total, nil
}

// Orders returns orders of every account, newest first.
func (s *Store) Orders(ctx context.Context, q topupd.OrdersQuery) ([]topupd.Order, error) {
	var orders []topupd.Order
	var err error
	switch {
	case q.Overdue:
		orders, err = s.listOrders(ctx, `WHERE status = 'processing' AND deadline_at < $1 ORDER BY seq DESC LIMIT $2`, ms(q.Now), q.Limit)
	case q.Status != "":
		orders, err = s.listOrders(ctx, `WHERE status = $1 ORDER BY seq DESC LIMIT $2`, string(q.Status), q.Limit)
	default:
		orders, err = s.listOrders(ctx, `ORDER BY seq DESC LIMIT $1`, q.Limit)
	}
	if err != nil {
		return nil, fmt.Errorf("store.Orders: %w", err)
	}
	return orders, nil
}

func (s *Store) listOrders(ctx context.Context, tail string, args ...any) ([]topupd.Order, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+orderColumns+` FROM orders `+tail, args...)
	if err != nil {
		return nil, err
	}
	orders := []topupd.Order{}
	for rows.Next() {
		o, err := scanOrder(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		orders = append(orders, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range orders {
		if err := s.loadCodes(ctx, s.read, &orders[i]); err != nil {
			return nil, err
		}
	}
	return orders, nil
}
