package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/httpapi"
)

// Tool is the admin API for the command line: the store and the admin
// API's handler, without a server or an engine, called in process as root.
type Tool struct {
	// Admin calls the admin API; its calls must carry AsRoot's context.
	Admin *client.Admin
	store topupd.Store
}

// OpenTool opens the database of cfg and the admin API over it. Base is
// the address the calls seem to be made to (it starts the setup links
// unless cfg.ConsoleURL is set).
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
	h, err := httpapi.NewAdmin(httpapi.AdminDeps{Store: store, Logger: cfg.Logger, Now: cfg.Now, ConsoleURL: cfg.ConsoleURL})
	if err != nil {
		store.Close()
		return nil, err
	}
	adm, err := client.NewAdmin(base, "in-process", client.WithRetries(0),
		client.WithHTTPClient(&http.Client{Transport: httpapi.Transport{Admin: h}}))
	if err != nil {
		store.Close()
		return nil, err
	}
	return &Tool{Admin: adm, store: store}, nil
}

// AsRoot is the context of the tool's calls: made as root, from the
// command line.
func AsRoot(ctx context.Context) context.Context {
	return httpapi.AsOperator(ctx, topupd.RootOperator, "", "cli", "")
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
