package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// Tool is the service layer for the command line: over the database,
// without a server or an engine, acting as root.
type Tool struct {
	// Service runs the operations; the command line asks as Actor.
	Service *service.Service
	// Actor is root, from the command line: the action log names its
	// changes' request "cli".
	Actor service.Actor
	// Base is the admin address the tool acts for: the setup links it
	// makes start with Base/console/ unless Config.ConsoleURL is set.
	Base  string
	store topupd.Store
}

// OpenTool opens the database of cfg and the service layer over it. Base
// is the admin address the command line acts for (it starts the setup
// links unless cfg.ConsoleURL is set).
func OpenTool(ctx context.Context, cfg Config, base string) (*Tool, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	store, _, err := openChecked(ctx, cfg, now)
	if err != nil {
		return nil, err
	}
	svc, err := service.New(service.Deps{Store: store, Now: now, Logger: cfg.Logger, ConsoleURL: cfg.ConsoleURL})
	if err != nil {
		store.Close()
		return nil, err
	}
	act := service.RootActor("cli")
	act.IP = ""
	return &Tool{Service: svc, Actor: act, Base: base, store: store}, nil
}

// Close closes the database.
func (t *Tool) Close() error {
	if t.store == nil {
		return errors.New("app.Tool: closed twice")
	}
	err := t.store.Close()
	t.store = nil
	return err
}
