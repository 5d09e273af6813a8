package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/topupd/topupd"
)

// A Bot API update is acted on once: its id goes into bot_updates in the
// transaction of the change it asked for (recordChange, with the action
// log's entry) or of the chat write it made (recordChatUpdate), or alone
// when it changed nothing (RecordUpdate). An update redelivered after a
// crash finds its id there and changes nothing again (EConflict).

// updateActedOn is the answer to an update recorded before.
func updateActedOn(id int64) error {
	return topupd.Errorf(topupd.EConflict, "update %d was acted on before", id)
}

// recordUpdate records a bot update in tx; one recorded before is EConflict.
func (s *Store) recordUpdate(ctx context.Context, tx *sql.Tx, u topupd.BotUpdate) error {
	at := u.At
	if at.IsZero() {
		at = s.now()
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO bot_updates (update_id, chat_id, at) VALUES ($1, $2, $3)
		ON CONFLICT (update_id) DO NOTHING`, u.UpdateID, u.ChatID, ms(at))
	n, err := rowsAffected(res, err)
	if err != nil {
		return fmt.Errorf("recording update %d: %w", u.UpdateID, err)
	}
	if n == 0 {
		return updateActedOn(u.UpdateID)
	}
	return nil
}

// recordChatUpdate records the update a chat write was made for, unless it
// has none (id 0) or ctx's change carries the same update and records it
// in this transaction (see recordChange).
func (s *Store) recordChatUpdate(ctx context.Context, tx *sql.Tx, u topupd.BotUpdate) error {
	if u.UpdateID == 0 {
		return nil
	}
	if c := changeOf(ctx); c != nil && c.Update.UpdateID == u.UpdateID && !c.Recorded {
		return nil
	}
	return s.recordUpdate(ctx, tx, u)
}

// RecordUpdate records an update that changed nothing; one recorded before
// is EConflict.
func (s *Store) RecordUpdate(ctx context.Context, u topupd.BotUpdate) error {
	err := s.retryTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return s.recordUpdate(ctx, tx, u)
	})
	if err != nil {
		return fmt.Errorf("store.RecordUpdate: %w", err)
	}
	return nil
}

// UpdateSeen reports whether an update was recorded, alone or with a change.
func (s *Store) UpdateSeen(ctx context.Context, updateID int64) (bool, error) {
	var one int
	err := s.read.QueryRowContext(ctx, `SELECT 1 FROM bot_updates WHERE update_id = $1`, updateID).Scan(&one)
	if isNoRows(err) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("store.UpdateSeen %d: %w", updateID, err)
	}
	return true, nil
}
