package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/topupd/topupd/internal/sqlstore"
)

// checkpointEvery is how often the checkpointer copies the write-ahead log
// into the database file.
const checkpointEvery = 100 * time.Millisecond

// fallbackCheckpoint is the writer's own auto-checkpoint, in WAL pages
// (about 32 MiB): the checkpointer copies most frames first, so the writer
// finds little left to copy, and the WAL then starts over from its beginning.
const fallbackCheckpoint = 8000

// checkpointer copies committed WAL frames into the database file from a
// connection of its own, so that the one writer does not do it (and wait
// for its fsync) inside a commit, as SQLite's auto-checkpoint would.
// Durability does not depend on it: a commit is durable once its WAL
// frames are synced, and the WAL is replayed after a crash.
type checkpointer struct {
	db   *sql.DB
	stop chan struct{}
	done chan struct{}
}

// startCheckpointer opens the checkpointer's connection and starts it.
func startCheckpointer(path string) (*checkpointer, error) {
	db, err := openDB(dsn(path, false), sqlstore.Options{})
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	c := &checkpointer{db: db, stop: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c, nil
}

func (c *checkpointer) loop() {
	defer close(c.done)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.checkpoint()
		}
	}
}

// checkpoint runs one PASSIVE checkpoint: it copies what no reader still
// needs, never waiting on the writer or the readers. A failure (the
// database busy or closing) is left for the next tick.
func (c *checkpointer) checkpoint() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var busy, walPages, copied int
	_ = c.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &walPages, &copied)
}

// close stops the checkpointer. (SQLite itself checkpoints and removes the
// WAL when the last connection to the file closes.)
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	return c.db.Close()
}
