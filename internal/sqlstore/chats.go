package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"github.com/topupd/topupd"
)

// The messaging app's chats, link codes, handled updates and the bot's
// state (one row of bot_state: the poller's lease and the next offset).

const chatColumns = `chat_id, username, account_id, operator, linked_at, balance_alert, balance_low, linked_tx, linked_seq`

func scanChat(row scanner) (topupd.Chat, error) {
	var c topupd.Chat
	var account, operator sql.NullString
	var linked int64
	var alert sql.NullInt64
	err := row.Scan(&c.ChatID, &c.Username, &account, &operator, &linked, &alert, &c.BalanceLow, &c.LinkedPos.Tx, &c.LinkedPos.Seq)
	c.AccountID, c.Operator, c.LinkedAt = account.String, operator.String, fromMS(linked)
	if alert.Valid {
		m := topupd.Money(alert.Int64)
		c.BalanceAlert = &m
	}
	return c, err
}

// chatFields are what the action log shows of a chat's link.
func chatFields(c topupd.Chat) map[string]any {
	f := map[string]any{"chatId": c.ChatID, "username": c.Username}
	if c.AccountID != "" {
		f["accountId"] = c.AccountID
	} else {
		f["operator"] = c.Operator
	}
	return f
}

// noteChatChange sets what a change did to a chat: the chat is its target
// unless the caller named one.
func noteChatChange(ctx context.Context, chatID int64, accountID string, before, after map[string]any) {
	if c := changeOf(ctx); c != nil && c.Target == "" {
		c.Target = strconv.FormatInt(chatID, 10)
	}
	noteChange(ctx, accountID, before, after)
}

// CreateChatLink stores a link code's hash, for an account or an operator.
func (s *Store) CreateChatLink(ctx context.Context, ch *topupd.Change, l topupd.ChatLink) error {
	ctx = withChange(ctx, ch)
	if (l.AccountID == "") == (l.Operator == "") {
		return fmt.Errorf("store.CreateChatLink: %w", topupd.Errorf(topupd.EInvalidRequest, "a link code is for an account or for an operator"))
	}
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		what, query, id := "account", `SELECT 1 FROM accounts WHERE id = $1`, l.AccountID
		if l.Operator != "" {
			what, query, id = "operator", `SELECT 1 FROM operators WHERE name = $1`, l.Operator
		}
		var one int
		if err := tx.QueryRowContext(ctx, query, id).Scan(&one); isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "%s %s", what, id)
		} else if err != nil {
			return err
		}
		var account, operator any
		if l.AccountID != "" {
			account = l.AccountID
		} else {
			operator = l.Operator
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO chat_links (hash, account_id, operator, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
			l.Code[:], account, operator, ms(l.CreatedAt), ms(l.ExpiresAt)); err != nil {
			return err
		}
		if c := changeOf(ctx); c != nil && c.Target == "" {
			c.Target = id
		}
		noteChange(ctx, l.AccountID, map[string]any{}, map[string]any{"chatLinkExpiresAt": fromMS(ms(l.ExpiresAt)).Format(time.RFC3339Nano)})
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.CreateChatLink: %w", err)
	}
	return nil
}

// LinkChat spends a link code and links the chat to the code's account or
// operator, replacing any earlier link of the chat (and its balance alert),
// with the update, in one transaction. It is linked at c.LinkedAt (now when
// zero), which is also when the code must still be valid.
func (s *Store) LinkChat(ctx context.Context, ch *topupd.Change, code topupd.KeyHash, c topupd.Chat, u topupd.BotUpdate) (topupd.Chat, error) {
	ctx = withChange(ctx, ch)
	now := c.LinkedAt
	if now.IsZero() {
		now = s.now()
	}
	var out topupd.Chat
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := s.recordChatUpdate(ctx, tx, u); err != nil {
			return err
		}
		var account, operator sql.NullString
		err := tx.QueryRowContext(ctx, `UPDATE chat_links SET used_at = $2 WHERE hash = $1 AND used_at IS NULL AND expires_at > $2
			RETURNING account_id, operator`, code[:], ms(now)).Scan(&account, &operator)
		if isNoRows(err) {
			return topupd.Errorf(topupd.EInvalidRequest, "this link code is unknown, used or expired")
		} else if err != nil {
			return err
		}
		before := map[string]any{}
		if old, err := scanChat(tx.QueryRowContext(ctx, `SELECT `+chatColumns+` FROM chats WHERE chat_id = $1`+s.d.LockRow, c.ChatID)); err == nil {
			before = chatFields(old)
		} else if !isNoRows(err) {
			return err
		}
		var accountArg, operatorArg any
		if account.Valid {
			accountArg = account.String
		} else {
			operatorArg = operator.String
		}
		pos, err := s.streamEnd(ctx, tx, false)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO chats (chat_id, username, account_id, operator, linked_at, balance_alert, balance_low, linked_tx, linked_seq)
			VALUES ($1, $2, $3, $4, $5, NULL, 0, $6, $7)
			ON CONFLICT (chat_id) DO UPDATE SET username = excluded.username, account_id = excluded.account_id,
				operator = excluded.operator, linked_at = excluded.linked_at, balance_alert = NULL, balance_low = 0,
				linked_tx = excluded.linked_tx, linked_seq = excluded.linked_seq`,
			c.ChatID, c.Username, accountArg, operatorArg, ms(now), pos.Tx, pos.Seq); err != nil {
			return err
		}
		out = topupd.Chat{ChatID: c.ChatID, Username: c.Username, AccountID: account.String, Operator: operator.String, LinkedAt: fromMS(ms(now)), LinkedPos: pos}
		noteChatChange(ctx, c.ChatID, out.AccountID, before, chatFields(out))
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("store.LinkChat %d: %w", c.ChatID, err)
	}
	return out, nil
}

// Chat returns a linked chat, or ENotFound.
func (s *Store) Chat(ctx context.Context, chatID int64) (topupd.Chat, error) {
	c, err := scanChat(s.read.QueryRowContext(ctx, `SELECT `+chatColumns+` FROM chats WHERE chat_id = $1`, chatID))
	if isNoRows(err) {
		return c, topupd.Errorf(topupd.ENotFound, "chat %d is not linked", chatID)
	} else if err != nil {
		return c, fmt.Errorf("store.Chat %d: %w", chatID, err)
	}
	return c, nil
}

// Chats returns an account's chats (accountID set) or an operator's,
// oldest link first.
func (s *Store) Chats(ctx context.Context, accountID, operator string) ([]topupd.Chat, error) {
	col, v := "account_id", accountID
	if accountID == "" {
		col, v = "operator", operator
	}
	if v == "" {
		return nil, fmt.Errorf("store.Chats: %w", topupd.Errorf(topupd.EInvalidRequest, "an account or an operator is required"))
	}
	return s.chats(ctx, `SELECT `+chatColumns+` FROM chats WHERE `+col+` = $1 ORDER BY linked_at, chat_id`, v)
}

// BalanceAlertChats returns every chat with a balance alert.
func (s *Store) BalanceAlertChats(ctx context.Context) ([]topupd.Chat, error) {
	return s.chats(ctx, `SELECT `+chatColumns+` FROM chats WHERE balance_alert IS NOT NULL ORDER BY chat_id`)
}

// OperatorChats returns the linked chats of every operator who is not
// disabled, oldest link first.
func (s *Store) OperatorChats(ctx context.Context) ([]topupd.Chat, error) {
	return s.chats(ctx, `SELECT `+chatColumns+` FROM chats WHERE operator IN (SELECT name FROM operators WHERE disabled = 0)
		ORDER BY linked_at, chat_id`)
}

// chats reads the chats a query selects.
func (s *Store) chats(ctx context.Context, query string, args ...any) ([]topupd.Chat, error) {
	return readAll(ctx, s, "store.Chats", scanChat, query, args...)
}

// UnlinkChat removes an account's chat; ENotFound when the chat is not the
// account's.
func (s *Store) UnlinkChat(ctx context.Context, ch *topupd.Change, accountID string, chatID int64) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		c, err := scanChat(tx.QueryRowContext(ctx, `DELETE FROM chats WHERE chat_id = $1 AND account_id = $2 RETURNING `+chatColumns,
			chatID, accountID))
		if isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "chat %d of account %s", chatID, accountID)
		} else if err != nil {
			return err
		}
		noteChatChange(ctx, chatID, accountID, chatFields(c), map[string]any{})
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.UnlinkChat %d: %w", chatID, err)
	}
	return nil
}

// SetBalanceAlert sets or (nil) clears a chat's balance alert and whether
// the balance is below it now (never, without one), with the update, in
// one transaction. A chat not linked is ENotFound; a negative amount is
// EInvalidRequest.
func (s *Store) SetBalanceAlert(ctx context.Context, ch *topupd.Change, chatID int64, below *topupd.Money, low bool, u topupd.BotUpdate) error {
	ctx = withChange(ctx, ch)
	var alert any
	if below != nil {
		if *below < 0 {
			return topupd.Errorf(topupd.EInvalidRequest, "a balance alert is an amount of 0 or more")
		}
		alert = int64(*below)
	} else {
		low = false
	}
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := s.recordChatUpdate(ctx, tx, u); err != nil {
			return err
		}
		c, err := scanChat(tx.QueryRowContext(ctx, `SELECT `+chatColumns+` FROM chats WHERE chat_id = $1`+s.d.LockRow, chatID))
		if isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "chat %d is not linked", chatID)
		} else if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE chats SET balance_alert = $2, balance_low = $3 WHERE chat_id = $1`,
			chatID, alert, boolInt(low)); err != nil {
			return err
		}
		noteChatChange(ctx, chatID, c.AccountID, map[string]any{"balanceAlertUsd": moneyField(c.BalanceAlert)},
			map[string]any{"balanceAlertUsd": moneyField(below)})
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.SetBalanceAlert %d: %w", chatID, err)
	}
	return nil
}

// moneyField is an amount that may be absent, as the action log shows it.
func moneyField(m *topupd.Money) any {
	if m == nil {
		return nil
	}
	return *m
}

// SetBalanceLow records whether a chat's balance was last seen below its
// alert, and reports whether that changed. A chat without an alert is
// never low, and one not linked never changes.
func (s *Store) SetBalanceLow(ctx context.Context, chatID int64, low bool) (bool, error) {
	n, err := s.retryExec(ctx, `UPDATE chats SET balance_low = $2 WHERE chat_id = $1 AND balance_low <> $2 AND balance_alert IS NOT NULL`,
		chatID, boolInt(low))
	if err != nil {
		return false, fmt.Errorf("store.SetBalanceLow %d: %w", chatID, err)
	}
	return n == 1, nil
}

// TakeBotLease takes or renews the poller's lease for holder until until,
// unless another holder's lease runs past now; it reports whether holder
// has it.
func (s *Store) TakeBotLease(ctx context.Context, holder string, now, until time.Time) (bool, error) {
	n, err := s.retryExec(ctx, `UPDATE bot_state SET lease_holder = $1, lease_until = $3
		WHERE id = 1 AND (lease_holder = $1 OR lease_holder IS NULL OR lease_until <= $2)`, holder, ms(now), ms(until))
	if err != nil {
		return false, fmt.Errorf("store.TakeBotLease %s: %w", holder, err)
	}
	return n == 1, nil
}

// ReleaseBotLease gives the lease up if holder has it.
func (s *Store) ReleaseBotLease(ctx context.Context, holder string) error {
	_, err := s.retryExec(ctx, `UPDATE bot_state SET lease_holder = NULL, lease_until = 0 WHERE id = 1 AND lease_holder = $1`, holder)
	if err != nil {
		return fmt.Errorf("store.ReleaseBotLease %s: %w", holder, err)
	}
	return nil
}

// BotOffset returns the next getUpdates offset (0 before any).
func (s *Store) BotOffset(ctx context.Context) (int64, error) {
	var offset int64
	if err := s.read.QueryRowContext(ctx, `SELECT next_offset FROM bot_state WHERE id = 1`).Scan(&offset); err != nil {
		return 0, fmt.Errorf("store.BotOffset: %w", err)
	}
	return offset, nil
}

// SetBotOffset stores the next getUpdates offset if it is larger than the
// one stored.
func (s *Store) SetBotOffset(ctx context.Context, offset int64) error {
	_, err := s.retryExec(ctx, `UPDATE bot_state SET next_offset = $1 WHERE id = 1 AND next_offset < $1`, offset)
	if err != nil {
		return fmt.Errorf("store.SetBotOffset: %w", err)
	}
	return nil
}

// BotAlerts returns the operator alerts told as started and not cleared.
func (s *Store) BotAlerts(ctx context.Context) (map[string]string, error) {
	out, err := queryMap[string, string](ctx, s.read, `SELECT key, message FROM bot_alerts`)
	if err != nil {
		return nil, fmt.Errorf("store.BotAlerts: %w", err)
	}
	return out, nil
}

// SetBotAlert records an alert as started or cleared, reporting whether
// that changed anything: of racing callers, one sees the change.
func (s *Store) SetBotAlert(ctx context.Context, key, message string, on bool, at time.Time) (bool, error) {
	var changed bool
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var res sql.Result
		var err error
		if on {
			res, err = tx.ExecContext(ctx, `INSERT INTO bot_alerts (key, message, since) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING`, key, message, ms(at))
		} else {
			res, err = tx.ExecContext(ctx, `DELETE FROM bot_alerts WHERE key = $1`, key)
		}
		n, err := rowsAffected(res, err)
		changed = n == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store.SetBotAlert %s: %w", key, err)
	}
	return changed, nil
}
