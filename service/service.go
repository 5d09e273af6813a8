// Package service is topupd's one set of operations: every change a person
// or a client can ask for, typed, whoever asks (the admin API, the
// operator's console, the messaging app's bot, the command line). Each
// operation takes an explicit Actor, checks that the actor's role allows
// it (the role rules' one home), validates its input, records the change
// in the action log in the change's own transaction, and answers domain
// errors (topupd.Error) that each front end shows in its own way.
//
// The front ends are thin adapters over it: they decode a request, build
// the Actor from their own authentication, call one operation, and encode
// its answer. Operations move here a piece at a time (issue 20): orders
// first.
package service

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/topupd/topupd"
)

// Actor is who asks for an operation: an operator (by the admin API's
// bearer token, a console session, or the command line as root), or a
// chat of the messaging app linked to an operator or to an account.
type Actor struct {
	// Operator names the operator, or the chat (topupd.ChatActor) of a
	// reseller.
	Operator string
	// Role is the operator's role (RoleResellerChat for a reseller's chat).
	Role topupd.Role
	// Account, for a reseller's chat, is the one account it may act on.
	Account string
	// IP and RequestID say where the request came from, for the action log.
	IP, RequestID string
	// Update, when its UpdateID is not zero, is the messaging app's update
	// that asked, and its chat: it is acted on once (see
	// topupd.Change.Update).
	Update topupd.BotUpdate
}

// Store is what the service needs of the database: each area of
// operations declares its own part, next to its operations.
type Store interface {
	orderStore
	accountStore
	catalogStore
	adminStore
	actorStore
	webhookStore
	loginStore
	chatStore
	resellerStore
	topupd.FundsStore
	topupd.ReconciliationStore
	topupd.DepositStore
	topupd.PricingStore
	topupd.DisputeStore
	topupd.PriceChangeStore
}

// Deps are the service's dependencies.
type Deps struct {
	// Store is the database.
	Store Store
	// Suppliers checks upstreams (GET /balance); nil refuses a checked
	// save or a check as INTERNAL.
	Suppliers topupd.SupplierChecker
	// Books reads suppliers' books for a reconciliation's pull; nil
	// refuses a pull as INTERNAL.
	Books topupd.SupplierBooks
	// SupplierOrders reads one order from its upstream for a
	// reconciliation's complete-order; nil refuses it.
	SupplierOrders topupd.SupplierOrders
	// Instance is this deployment's instance id (topupd.Route): orders and
	// player checks that name it are refused as UPSTREAM_LOOP. Empty
	// refuses only too many hops.
	Instance string
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Deadline is how long an order may stay processing before it is
	// cancelled and refunded, from its placement or an operator's retry
	// (topupd.DefaultOrderDeadline when zero).
	Deadline time.Duration
	// Fulfiller makes a new order's first supplier call (PlaceOrder needs
	// it), and InlineWait bounds how long PlaceOrder waits for its answer
	// (10 s when zero).
	Fulfiller  Fulfiller
	InlineWait time.Duration
	// Players asks suppliers about players (CheckPlayer needs it).
	Players Players
	// Wake, when set, tells the fulfilment engine that an order is due.
	Wake func()
	// Invalidate, when set, makes every node forget what it cached of
	// accounts, keys and settings (the reseller API's auth cache): the
	// service calls it after every change it makes, before it answers.
	Invalidate func(ctx context.Context) error
	// Logger logs what goes wrong besides the answer (nil: slog.Default).
	Logger *slog.Logger
	// SimOff refuses packs fulfilled by sim (--sim off) with SIM_DISABLED.
	SimOff bool
	// Health, when set, reports how each supplier's recent calls went.
	Health func() []topupd.Health
	// ConsoleURL, when set, is the console's public address, which setup
	// links start with.
	ConsoleURL string
	// BotUsername, when set, is the messaging app bot's username, which
	// chat link codes' URLs open ("" while it is not known).
	BotUsername func() string
	// CheckWebhookURL, when set, checks a webhook endpoint's URL: its form
	// and where its host points (the webhooks package's Guard); without it
	// only the form and a host written as an address are checked.
	CheckWebhookURL func(ctx context.Context, raw string) error
	// WakeWebhooks, when set, tells the webhook deliverer that a delivery
	// is due.
	WakeWebhooks func()
}

// DefaultInlineWait is how long PlaceOrder waits for a new order's first
// supplier answer when Deps.InlineWait is zero.
const DefaultInlineWait = 10 * time.Second

// Service runs the operations.
type Service struct {
	d Deps
}

// New returns the service over its dependencies.
func New(d Deps) (*Service, error) {
	if d.Store == nil {
		return nil, errors.New("service.New: a store is required")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Deadline <= 0 {
		d.Deadline = topupd.DefaultOrderDeadline
	}
	if d.InlineWait <= 0 {
		d.InlineWait = DefaultInlineWait
	}
	if d.Wake == nil {
		d.Wake = func() {}
	}
	if d.Invalidate == nil {
		d.Invalidate = func(context.Context) error { return nil }
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Health == nil {
		d.Health = func() []topupd.Health { return nil }
	}
	if d.WakeWebhooks == nil {
		d.WakeWebhooks = func() {}
	}
	if d.BotUsername == nil {
		d.BotUsername = func() string { return "" }
	}
	return &Service{d: d}, nil
}

// Op names an operation; it is also the name of its change in the
// action log.
type Op string

// The operations, the permission each needs (the role rules' one home)
// and the stream event each change tells of itself with. Each area of
// operations declares its own in a table of its file (orderOps,
// accountOps, catalogOps, adminOps, webhookOps, chatOps).
//
// OpRead is every read: any operator may read, and a reseller's chat
// its own account (see Actor.Own).
const OpRead Op = "read"

// rule is what an operation needs and what it tells.
type rule struct {
	// perm is the permission the actor's role must have.
	perm topupd.Permission
	// tells is the stream event its change is told as (topupd.Change.Tells),
	// or "" for none: an operation whose store call writes events of its
	// own (credits, orders), or that changes nothing a reseller or a
	// consumer of the stream watches.
	tells topupd.EventType
}

// ruleOf is every operation's rule.
var ruleOf = func() map[Op]rule {
	all := map[Op]rule{OpRead: {perm: topupd.PermRead}}
	for _, table := range []map[Op]rule{orderOps, accountOps, catalogOps, adminOps, webhookOps, chatOps, reconOps, depositOps, pricingOps, disputeOps, priceChangeOps} {
		for op, r := range table {
			if _, dup := all[op]; dup {
				panic("service: operation " + string(op) + " declared twice")
			}
			all[op] = r
		}
	}
	return all
}()

// Allowed refuses an actor whose role does not allow op: 403
// ROLE_FORBIDDEN. Every operation checks it before it reads or changes
// anything; a front end may check it before it reads a request's body.
func Allowed(a Actor, op Op) error {
	r, ok := ruleOf[op]
	if !ok {
		return topupd.Errorf(topupd.EInternal, "service: no permission for %s", op)
	}
	if !a.Role.May(r.perm) {
		return topupd.Errorf(topupd.ERoleForbidden, "the %s role may not do this", a.Role)
	}
	return nil
}

// Own refuses, as 403 ROLE_FORBIDDEN, a reseller's chat that acts on an
// account not its own; any other actor may act on every account.
func (a Actor) Own(accountID string) error {
	if a.Role == topupd.RoleResellerChat && (a.Account == "" || accountID != a.Account) {
		return topupd.Errorf(topupd.ERoleForbidden, "a reseller's chat may act only on its own account")
	}
	return nil
}

// changed tells every node to forget what it cached of accounts, keys
// and settings, after a change and before its answer; a failure is
// logged (the caches expire by themselves).
func (s *Service) changed(ctx context.Context) {
	if err := s.d.Invalidate(ctx); err != nil {
		s.d.Logger.WarnContext(ctx, "invalidating the auth cache", "err", err)
	}
}

// change is the action log's entry of an operation, given to the store
// with the call: the store writes it in the change's own transaction.
func change(a Actor, op Op, target string) *topupd.Change {
	return newChange(a, op, target, false)
}

// update is change for an update: one that changes nothing writes no entry.
func update(a Actor, op Op, target string) *topupd.Change {
	return newChange(a, op, target, true)
}

func newChange(a Actor, op Op, target string, skipUnchanged bool) *topupd.Change {
	return &topupd.Change{Actor: topupd.Actor{Operator: a.Operator, IP: a.IP, RequestID: a.RequestID},
		Action: string(op), Target: target, Update: a.Update, SkipUnchanged: skipUnchanged, Tells: ruleOf[op].tells}
}
