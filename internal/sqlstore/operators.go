package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// recordChange writes an admin change to the action log, in the
// transaction of the change. A store method that knows what changed has set
// Before and After; one that does not leaves them empty.
func (s *Store) recordChange(ctx context.Context, tx *sql.Tx, c *topupd.Change) error {
	if c.Before == nil {
		c.Before = map[string]any{}
	}
	if c.After == nil {
		c.After = map[string]any{}
	}
	var account any
	if c.AccountID != "" {
		account = c.AccountID
	}
	if c.Target == "" {
		c.Target = c.AccountID
	}
	now := s.now()
	// A bot update is acted on once: its id goes into the bot's updates
	// and onto the entry, with the first transaction of the change only.
	var update any
	if u := c.Update; u.UpdateID != 0 && !c.Recorded {
		update, u.At = u.UpdateID, now
		if err := s.recordUpdate(ctx, tx, u); err != nil {
			return err
		}
	}
	if c.SkipUnchanged && len(c.Before) == 0 && len(c.After) == 0 {
		return nil // a non-change: no entry
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO actions (at, operator, ip, request_id, action, target, account_id, before, after, update_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		ms(now), c.Operator, c.IP, c.RequestID, c.Action, c.Target, account, jsonText(c.Before), jsonText(c.After), update)
	if err != nil && update != nil && s.d.IsUniqueViolation(err) {
		return updateActedOn(c.Update.UpdateID)
	}
	if err != nil {
		return fmt.Errorf("recording %s: %w", c.Action, err)
	}
	if d, ok := toldAs(c); ok {
		return emit(ctx, tx, event(d, c.AccountID, now))
	}
	return nil
}

// toldAs is the stream event, if any, that tells of a change: the one its
// operation names (Change.Tells), when the change changed something; an
// account's change only with its account.
func toldAs(c *topupd.Change) (topupd.EventData, bool) {
	if len(c.After) == 0 {
		return nil, false
	}
	facts := topupd.ChangeFacts{Action: c.Action, Target: c.Target, By: c.Operator, Before: c.Before, After: c.After}
	switch c.Tells {
	case topupd.AccountChanged:
		return &topupd.AccountChangedData{ChangeFacts: facts}, c.AccountID != ""
	case topupd.CatalogChanged:
		return &topupd.CatalogChangedData{ChangeFacts: facts}, true
	}
	return nil, false
}

// noteChange sets what a change did, when ctx carries one.
func noteChange(ctx context.Context, accountID string, before, after map[string]any) {
	if c := changeOf(ctx); c != nil {
		if accountID != "" {
			c.AccountID = accountID
		}
		c.Diff(before, after)
	}
}

// logged is a pointer to a value whose changes the action log shows.
type logged[T any] interface {
	*T
	LogFields() map[string]any
}

// changeLocked reads with scan the row that query selects, which takes the
// row's lock (notFound when there is none), lets change change it, and
// notes the change for the action log. The caller writes the row.
func changeLocked[T any, P logged[T]](ctx context.Context, tx *sql.Tx, scan func(scanner) (T, error), notFound error,
	change func(P) error, query string, args ...any) (T, error) {
	v, err := scan(tx.QueryRowContext(ctx, query, args...))
	if isNoRows(err) {
		return v, notFound
	} else if err != nil {
		return v, err
	}
	before := P(&v).LogFields()
	if err := change(&v); err != nil {
		return v, err
	}
	noteChange(ctx, "", before, P(&v).LogFields())
	return v, nil
}

const operatorColumns = `name, role, disabled, created_at, last_seen_at`

func scanOperator(row scanner) (topupd.Operator, error) {
	var o topupd.Operator
	var role string
	var created int64
	var seen sql.NullInt64
	err := row.Scan(&o.Name, &role, &o.Disabled, &created, &seen)
	o.Role, o.CreatedAt = topupd.Role(role), fromMS(created)
	if seen.Valid {
		t := fromMS(seen.Int64)
		o.LastSeenAt = &t
	}
	return o, err
}

// CreateOperator stores a new operator with its first token; a name taken
// is EConflict.
func (s *Store) CreateOperator(ctx context.Context, ch *topupd.Change, o topupd.Operator, token topupd.KeyHash) (topupd.Operator, error) {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM operators WHERE name = $1`, o.Name).Scan(&one); err == nil {
			return topupd.Errorf(topupd.EConflict, "operator %s exists", o.Name)
		} else if !isNoRows(err) {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO operators (name, role, disabled, created_at) VALUES ($1, $2, $3, $4)`,
			o.Name, string(o.Role), boolInt(o.Disabled), ms(o.CreatedAt)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO operator_tokens (id, operator, hash, created_at) VALUES ($1, $2, $3, $4)`,
			topupd.NewID("otk_"), o.Name, token[:], ms(o.CreatedAt)); err != nil {
			return err
		}
		noteChange(ctx, "", map[string]any{}, o.LogFields())
		return nil
	})
	if err != nil {
		return o, fmt.Errorf("store.CreateOperator %s: %w", o.Name, err)
	}
	o.CreatedAt = fromMS(ms(o.CreatedAt))
	return o, nil
}

// Operators lists every operator, by name.
func (s *Store) Operators(ctx context.Context) ([]topupd.Operator, error) {
	return readAll(ctx, s, "store.Operators", scanOperator, `SELECT `+operatorColumns+` FROM operators ORDER BY name`)
}

// UpdateOperator changes an operator's role or disabled flag. A change
// that would leave no active owner (Operator.ActiveOwner) is ELastOwner.
func (s *Store) UpdateOperator(ctx context.Context, ch *topupd.Change, name string, p topupd.OperatorPatch) (topupd.Operator, error) {
	ctx = withChange(ctx, ch)
	var o topupd.Operator
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		owners, err := s.activeOwners(ctx, tx)
		if err != nil {
			return err
		}
		o, err = changeLocked(ctx, tx, scanOperator, topupd.Errorf(topupd.ENotFound, "operator %s", name), func(o *topupd.Operator) error {
			was := o.ActiveOwner()
			if p.Role != nil {
				o.Role = *p.Role
			}
			if p.Disabled != nil {
				o.Disabled = *p.Disabled
			}
			if was && !o.ActiveOwner() && owners <= 1 {
				return topupd.Errorf(topupd.ELastOwner, "%s is the only owner who is not disabled: make another operator an owner first", name)
			}
			return o.Validate()
		}, `SELECT `+operatorColumns+` FROM operators WHERE name = $1`+s.d.LockRow, name)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE operators SET role = $2, disabled = $3 WHERE name = $1`, name, string(o.Role), boolInt(o.Disabled))
		return err
	})
	if err != nil {
		return o, fmt.Errorf("store.UpdateOperator %s: %w", name, err)
	}
	return o, nil
}

// activeOwners counts the operators who are owners and not disabled, and
// locks their rows (FOR UPDATE on PostgreSQL; SQLite has one writer), so
// that two owners who demote each other at once are changed one after the
// other, and the second change sees the first.
func (s *Store) activeOwners(ctx context.Context, tx *sql.Tx) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM operators WHERE role = 'owner' AND disabled = 0 ORDER BY name`+s.d.LockRow)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}

// AddOperatorToken stores one more token of an operator.
func (s *Store) AddOperatorToken(ctx context.Context, ch *topupd.Change, name string, token topupd.KeyHash, now time.Time) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM operators WHERE name = $1`, name).Scan(&one); isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "operator %s", name)
		} else if err != nil {
			return err
		}
		id := topupd.NewID("otk_")
		if _, err := tx.ExecContext(ctx, `INSERT INTO operator_tokens (id, operator, hash, created_at) VALUES ($1, $2, $3, $4)`,
			id, name, token[:], ms(now)); err != nil {
			return err
		}
		noteChange(ctx, "", map[string]any{}, map[string]any{"tokenId": id})
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.AddOperatorToken %s: %w", name, err)
	}
	return nil
}

// OperatorByToken finds the operator a token belongs to: ENotFound when no
// operator has it.
func (s *Store) OperatorByToken(ctx context.Context, token topupd.KeyHash) (topupd.Operator, error) {
	o, err := scanOperator(s.read.QueryRowContext(ctx, `SELECT o.name, o.role, o.disabled, o.created_at, o.last_seen_at
		FROM operator_tokens t JOIN operators o ON o.name = t.operator WHERE t.hash = $1`, token[:]))
	if isNoRows(err) {
		return o, topupd.Errorf(topupd.ENotFound, "no operator has this token")
	}
	if err != nil {
		return o, fmt.Errorf("store.OperatorByToken: %w", err)
	}
	return o, nil
}

// SeeOperator records that an operator called, to the minute: most calls
// find it already seen this minute and write nothing.
func (s *Store) SeeOperator(ctx context.Context, name string, now time.Time) error {
	if err := s.seenAt(ctx, "operators", "name", "last_seen_at", name, now.Truncate(time.Minute)); err != nil {
		return fmt.Errorf("store.SeeOperator %s: %w", name, err)
	}
	return nil
}

// Actions reads the action log, newest first: by at, then id. Every page
// is one descending range of the index of its first filter.
func (s *Store) Actions(ctx context.Context, q topupd.ActionsQuery) ([]topupd.Action, error) {
	query, args := actionsPage(q)
	return readAll(ctx, s, "store.Actions", scanAction, query, args...)
}

func scanAction(row scanner) (topupd.Action, error) {
	var a topupd.Action
	var at int64
	var account sql.NullString
	var before, after string
	if err := row.Scan(&a.ID, &at, &a.Actor.Operator, &a.Actor.IP, &a.Actor.RequestID, &a.Action, &a.Target, &account, &before, &after); err != nil {
		return a, err
	}
	a.At, a.AccountID = fromMS(at), account.String
	var err error
	if a.Before, err = decodeFields(before); err == nil {
		a.After, err = decodeFields(after)
	}
	if err != nil {
		return a, fmt.Errorf("%d: %w", a.ID, err)
	}
	return a, nil
}

// actionsPage renders the query of a page of the action log, and its arguments.
func actionsPage(q topupd.ActionsQuery) (string, []any) {
	var w conds
	for _, f := range []struct{ col, v string }{{"operator", q.Operator}, {"account_id", q.AccountID}, {"action", q.Action}} {
		switch {
		case f.v == "":
		case f.col == "action" && strings.HasSuffix(f.v, "."): // a prefix: "pack." is every pack.* action
			w.add(fmt.Sprintf("substr(action, 1, %d) = ?", len(f.v)), f.v)
		default:
			w.add(f.col+" = ?", f.v)
		}
	}
	w.span("at", q.From, untilCursor(q.To, q.Before))
	if q.Before != nil {
		w.add("(at, id) < (?, ?)", ms(q.Before.At), q.Before.Seq)
	}
	return `SELECT id, at, operator, ip, request_id, action, target, account_id, before, after FROM actions ` + w.tail("at DESC, id DESC", q.Limit), w.args
}

// decodeFields reads a change's fields, numbers exactly (json.Number).
func decodeFields(s string) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	m := map[string]any{}
	return m, d.Decode(&m)
}
