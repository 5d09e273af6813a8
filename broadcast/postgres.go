package broadcast

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/topupd/topupd"
)

// Postgres carries invalidations on PostgreSQL's LISTEN/NOTIFY, for a
// deployment without Redis. Each node keeps one session listening, named by
// its application_name so that an announcer can count the listeners; each
// announcement opens a session of its own to hear the acknowledgements. It
// needs direct (or session-pooled) connections: LISTEN does not work
// through a pooler in transaction mode.
type Postgres struct {
	conn    *pgx.ConnConfig
	log     *slog.Logger
	timeout time.Duration
	channel string // announcements
	ack     string // acknowledgements
	appName string // the listeners' application_name
}

var _ topupd.Invalidations = (*Postgres)(nil)

// NewPostgres returns invalidations on the database and schema of url (a
// URL that postgres.Open takes); timeout bounds each call that is not a wait.
func NewPostgres(ctx context.Context, url string, timeout time.Duration, log *slog.Logger) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(url) // takes the pool's parameters, and drops them
	if err != nil {
		return nil, fmt.Errorf("broadcast.NewPostgres: %w", err)
	}
	p := &Postgres{conn: cfg.ConnConfig, log: log, timeout: timeout}
	conn, err := p.connect(ctx, "topupd")
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	var where string
	if err := conn.QueryRow(ctx, `SELECT current_database() || '/' || COALESCE(current_schema(), '')`).Scan(&where); err != nil {
		return nil, fmt.Errorf("broadcast.NewPostgres: %w", err)
	}
	h := fnv.New64a()
	h.Write([]byte(where))
	name := fmt.Sprintf("%016x", h.Sum64()) // one deployment per database and schema
	p.channel, p.ack, p.appName = "topupd_inv_"+name, "topupd_ack_"+name, "topupd-listen-"+name
	return p, nil
}

// connect opens a session named app.
func (p *Postgres) connect(ctx context.Context, app string) (*pgx.Conn, error) {
	cfg := p.conn.Copy()
	cfg.RuntimeParams["application_name"] = app
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("broadcast: connecting to PostgreSQL: %w", err)
	}
	return conn, nil
}

// Announce counts the listening sessions, notifies a fresh id and waits for
// that many acknowledgements, at most within. When PostgreSQL fails it
// waits out within, since it cannot know who heard.
func (p *Postgres) Announce(ctx context.Context, within time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	listeners, acked, err := p.announce(ctx)
	switch {
	case err == nil && acked == listeners:
	case ctx.Err() != nil:
		p.log.WarnContext(ctx, "invalidation not acknowledged by every node: waited out the cache's lifetime", "listening", listeners, "acknowledged", acked)
	default:
		p.log.WarnContext(ctx, "invalidation not announced: waiting out the cache's lifetime", "err", err)
		<-ctx.Done()
	}
	return nil
}

// announce is Announce's work: it returns how many sessions listened and
// how many acknowledged, once all did or ctx ends.
func (p *Postgres) announce(ctx context.Context) (listeners, acked int, err error) {
	conn, err := p.connect(ctx, "topupd-announce")
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+p.ack); err != nil {
		return 0, 0, err
	}
	err = conn.QueryRow(ctx, `SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
		p.appName).Scan(&listeners)
	if err != nil {
		return 0, 0, err
	}
	id := newID()
	if _, err := conn.Exec(ctx, `SELECT pg_notify($1, $2)`, p.channel, id); err != nil {
		return listeners, 0, err
	}
	for acked < listeners {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return listeners, acked, err
		}
		if n.Payload == id {
			acked++
		}
	}
	return listeners, acked, nil
}

// Listen keeps a session listening and, on each announcement, forgets and
// acknowledges. It hears while the session lives; when it fails, it stops
// hearing, forgets, and connects again.
func (p *Postgres) Listen(ctx context.Context, forget func(), hearing func(bool)) {
	for ctx.Err() == nil {
		err := p.listen(ctx, forget, hearing)
		hearing(false)
		forget()
		if ctx.Err() != nil {
			return
		}
		p.log.WarnContext(ctx, "invalidations: the PostgreSQL listener failed; connecting again", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(reconnectDelay):
		}
	}
}

// listen is one session of Listen; it returns why the session ended.
func (p *Postgres) listen(ctx context.Context, forget func(), hearing func(bool)) error {
	conn, err := p.connect(ctx, p.appName)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+p.channel); err != nil {
		return err
	}
	forget() // word sent while this node was not listening is lost
	hearing(true)
	for {
		wait, cancel := context.WithTimeout(ctx, pingEvery)
		n, err := conn.WaitForNotification(wait)
		cancel()
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil && (errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)):
			if err := conn.Ping(ctx); err != nil {
				return err
			}
			continue
		case err != nil:
			return err
		}
		forget()
		if _, err := conn.Exec(ctx, `SELECT pg_notify($1, $2)`, p.ack, n.Payload); err != nil {
			return err
		}
	}
}
