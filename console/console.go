// Package console is the operator's web console, served under /console/ on
// the admin address. It signs operators in with a password and a TOTP code
// and keeps their sessions server-side; everything else it does, it does
// by calling the service layer (Deps.Service) as the signed-in operator,
// so that the console can do exactly what the operator's role allows on
// the admin API, through the same operations, and every change it makes
// is in the action log under the operator's name.
//
// Pages are server-rendered HTML from embedded templates. The only script
// is an embedded file (no inline script: the Content-Security-Policy
// forbids it) that adds progress to stock uploads; every page works
// without it.
package console

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

//go:embed assets templates
var files embed.FS

// Store is what the console needs of the database: operators'
// credentials, sign-in attempts and sessions, and the dashboard's gauges,
// low stock, open mismatches, open deposit tickets and open disputes. Everything else
// goes through Deps.Service.
type Store interface {
	// Signing in and out.
	Operator(ctx context.Context, name string) (topupd.Operator, error)
	ConsoleCredentials(ctx context.Context, name string) (topupd.ConsoleCredentials, error)
	ReserveLogin(ctx context.Context, name string, now time.Time) (lockedUntil time.Time, ok bool, err error)
	RecordLogin(ctx context.Context, a topupd.LoginAttempt) error
	UseTOTPStep(ctx context.Context, name string, step int64) error
	UseRecoveryCode(ctx context.Context, name string, code topupd.KeyHash, now time.Time) error
	SetupLinkOperator(ctx context.Context, link topupd.KeyHash, now time.Time) (topupd.Operator, error)
	CompleteSetup(ctx context.Context, ch *topupd.Change, link topupd.KeyHash, c topupd.ConsoleCredentials, now time.Time) (topupd.Operator, error)
	// One's own sign-in, changed.
	ChangeConsolePassword(ctx context.Context, ch *topupd.Change, name, hash string, keep topupd.KeyHash) error
	RenewSecondFactor(ctx context.Context, ch *topupd.Change, name string, totpSealed []byte, step int64, recovery []topupd.KeyHash) error
	// Sessions.
	CreateSession(ctx context.Context, s topupd.ConsoleSession) error
	Session(ctx context.Context, id topupd.KeyHash, now time.Time) (topupd.ConsoleSession, topupd.Operator, error)
	EndSession(ctx context.Context, id topupd.KeyHash) error
	SeeOperator(ctx context.Context, name string, now time.Time) error
	// The dashboard's and the stock page's reads.
	Gauges(ctx context.Context) (topupd.Gauges, error)
	LowStock(ctx context.Context) (map[string]bool, error)
	// OpenMismatches counts the reconciliations' open mismatches by
	// supplier, for every supplier reconciled (the dashboard and the
	// reconciliations page).
	OpenMismatches(ctx context.Context) (map[string]int, error)
	// OpenDeposits counts the live deposit tickets pending and awaiting
	// a second approval, by status (the Deposits page and its menu entry).
	OpenDeposits(ctx context.Context) (map[string]int, error)
	// OpenDisputes counts the live open disputes, overdue at now and not
	// (the Disputes page and the dashboard).
	OpenDisputes(ctx context.Context, now time.Time) (overdue, onTime int, err error)
}

// Deps are what the console needs.
type Deps struct {
	// Store keeps operators' credentials and sessions.
	Store Store
	// Service runs every operation the console's pages ask for, as the
	// signed-in operator; StatusOf is the HTTP status of one of its errors.
	Service  *service.Service
	StatusOf func(error) int
	// Seen names, for the request's log line, the operator who made it.
	Seen func(ctx context.Context, operator string)
	// Vault seals the operators' TOTP secrets.
	Vault *topupd.Vault
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Logger gets what goes wrong.
	Logger *slog.Logger
	// ClientIP, when set, finds the address a request came from (behind a
	// trusted proxy, the one it forwards): sign-in limits, sessions and the
	// action log use it. Nil takes the peer's address.
	ClientIP func(*http.Request) string
	// SecureCookies marks the session cookie Secure: set it when the
	// console is reached over TLS.
	SecureCookies bool
}

// Console is the console's handler and what it keeps in memory.
type Console struct {
	Deps
	mux      *http.ServeMux
	pages    map[string]*template.Template
	failures *ipFailures
}

// New returns the console, to be served under /console/.
func New(d Deps) (*Console, error) {
	switch {
	case d.Store == nil || d.Vault == nil || d.Service == nil || d.StatusOf == nil:
		return nil, errors.New("console.New: a store, a vault, the service and StatusOf are required")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if d.Seen == nil {
		d.Seen = func(context.Context, string) {}
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	c := &Console{Deps: d, mux: http.NewServeMux(), pages: pages, failures: newIPFailures(d.Now)}
	c.routes()
	return c, nil
}

// Mux is the console's routes, for the request log to name them.
func (c *Console) Mux() *http.ServeMux { return c.mux }

// ServeHTTP answers a console request, with the headers every page has;
// one whose path, query or form is not clean text is a 400 page.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	if !cleanRequest(r) {
		c.fail(w, r, nil, http.StatusBadRequest, badTextMsg)
		return
	}
	c.mux.ServeHTTP(w, r)
}
