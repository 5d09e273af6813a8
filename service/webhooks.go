package service

import (
	"context"
	"net/netip"
	"strings"
	"time"
	"unicode"

	"github.com/topupd/topupd"
)

// The operations on webhook endpoints (integration.md "Webhooks").
const (
	OpCreateWebhook       Op = "webhook.create"
	OpUpdateWebhook       Op = "webhook.update"
	OpDeleteWebhook       Op = "webhook.delete"
	OpRotateWebhookSecret Op = "webhook.rotate-secret"
	OpReplayWebhook       Op = "webhook.replay"
	// OpTestWebhook queues a test event; it changes nothing, so the action
	// log has no entry for it.
	OpTestWebhook Op = "webhook.test"
)

// webhookOps are the permissions of the operations on webhook endpoints:
// an account's, like its keys.
var webhookOps = map[Op]rule{
	OpCreateWebhook:       {topupd.PermAccounts, topupd.AccountChanged},
	OpUpdateWebhook:       {topupd.PermAccounts, topupd.AccountChanged},
	OpDeleteWebhook:       {topupd.PermAccounts, topupd.AccountChanged},
	OpRotateWebhookSecret: {topupd.PermAccounts, topupd.AccountChanged},
	OpReplayWebhook:       {topupd.PermAccounts, topupd.AccountChanged},
	OpTestWebhook:         {topupd.PermAccounts, topupd.AccountChanged},
}

// webhookStore is what the operations on webhook endpoints need of the database.
type webhookStore interface {
	Account(ctx context.Context, id string) (topupd.Account, error)
	CreateWebhook(ctx context.Context, ch *topupd.Change, e topupd.WebhookEndpoint) (topupd.WebhookEndpoint, error)
	Webhook(ctx context.Context, id string) (topupd.WebhookEndpoint, error)
	Webhooks(ctx context.Context, accountID string) ([]topupd.WebhookEndpoint, error)
	UpdateWebhook(ctx context.Context, ch *topupd.Change, id string, p topupd.WebhookPatch) (topupd.WebhookEndpoint, error)
	DeleteWebhook(ctx context.Context, ch *topupd.Change, id string) error
	RotateWebhookSecret(ctx context.Context, ch *topupd.Change, id, secret string, until time.Time) error
	QueueWebhookTest(ctx context.Context, endpointID string, now time.Time) (topupd.WebhookEvent, error)
	ReplayWebhook(ctx context.Context, ch *topupd.Change, endpointID string, q topupd.WebhookReplay, now time.Time) (int, error)
	WebhookDeliveries(ctx context.Context, endpointID string, before *topupd.ListKey, limit int) ([]topupd.WebhookDelivery, error)
	DisabledWebhooks(ctx context.Context) ([]topupd.WebhookEndpoint, error)
}

// MaxWebhookDescription is the longest description of an endpoint, in bytes.
const MaxWebhookDescription = 500

// WebhookInput is what an endpoint is made of.
type WebhookInput struct {
	URL         string
	Events      []string
	Description string
}

// checkWebhookURL checks an endpoint's URL: its form, and where its host
// points (Deps.CheckWebhookURL; without it, a host written as an address).
func (s *Service) checkWebhookURL(ctx context.Context, raw string) error {
	if s.d.CheckWebhookURL != nil {
		return s.d.CheckWebhookURL(ctx, raw)
	}
	u, err := topupd.CheckWebhookURL(raw, false)
	if err != nil {
		return err
	}
	if ip, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && topupd.WebhookAddrForbidden(ip) {
		return topupd.Errorf(topupd.EWebhookURLForbidden, "url: %s is not a public address", ip)
	}
	return nil
}

// checkWebhookDescription refuses a description too long or with control characters.
func checkWebhookDescription(d string) error {
	if len(d) > MaxWebhookDescription {
		return topupd.Errorf(topupd.EInvalidBody, "description: at most %d characters", MaxWebhookDescription)
	}
	if strings.IndexFunc(d, unicode.IsControl) >= 0 {
		return topupd.Errorf(topupd.EInvalidBody, "description: no control characters")
	}
	return nil
}

// withoutSecrets is an endpoint as it is shown after it was made.
func withoutSecrets(e topupd.WebhookEndpoint) topupd.WebhookEndpoint {
	e.Secret, e.OldSecret, e.OldSecretUntil = "", "", time.Time{}
	return e
}

// CreateWebhook registers an endpoint for the account, enabled, and
// answers it with its secret: shown this once.
func (s *Service) CreateWebhook(ctx context.Context, a Actor, accountID string, in WebhookInput) (topupd.WebhookEndpoint, error) {
	if err := Allowed(a, OpCreateWebhook); err != nil {
		return topupd.WebhookEndpoint{}, err
	}
	if err := a.Own(accountID); err != nil {
		return topupd.WebhookEndpoint{}, err
	}
	if err := topupd.CheckWebhookEvents(in.Events); err != nil {
		return topupd.WebhookEndpoint{}, err
	}
	if err := checkWebhookDescription(in.Description); err != nil {
		return topupd.WebhookEndpoint{}, err
	}
	if err := s.checkWebhookURL(ctx, in.URL); err != nil {
		return topupd.WebhookEndpoint{}, err
	}
	e := topupd.WebhookEndpoint{ID: topupd.NewID("whe_"), AccountID: accountID, URL: in.URL, Events: in.Events,
		Description: in.Description, Enabled: true, CreatedAt: s.d.Now().UTC().Truncate(time.Millisecond), Secret: topupd.NewWebhookSecret()}
	if e.Events == nil {
		e.Events = []string{}
	}
	if _, err := s.d.Store.CreateWebhook(ctx, change(a, OpCreateWebhook, e.ID), e); err != nil {
		return topupd.WebhookEndpoint{}, err
	}
	return e, nil
}

// Webhooks lists the account's endpoints, oldest first, without secrets.
func (s *Service) Webhooks(ctx context.Context, a Actor, accountID string) ([]topupd.WebhookEndpoint, error) {
	if err := Allowed(a, OpRead); err != nil {
		return nil, err
	}
	if err := a.Own(accountID); err != nil {
		return nil, err
	}
	if _, err := s.d.Store.Account(ctx, accountID); err != nil {
		return nil, err
	}
	list, err := s.d.Store.Webhooks(ctx, accountID)
	for i := range list {
		list[i] = withoutSecrets(list[i])
	}
	return list, err
}

// webhook reads an endpoint the actor may act on: another account's is
// NOT_FOUND to a reseller's chat, as if there were none.
func (s *Service) webhook(ctx context.Context, a Actor, id string) (topupd.WebhookEndpoint, error) {
	e, err := s.d.Store.Webhook(ctx, id)
	if err != nil {
		return e, err
	}
	if a.Own(e.AccountID) != nil {
		return topupd.WebhookEndpoint{}, topupd.Errorf(topupd.ENotFound, "webhook endpoint %s", id)
	}
	return e, nil
}

// Webhook reads one endpoint, without its secrets.
func (s *Service) Webhook(ctx context.Context, a Actor, id string) (topupd.WebhookEndpoint, error) {
	if err := Allowed(a, OpRead); err != nil {
		return topupd.WebhookEndpoint{}, err
	}
	e, err := s.webhook(ctx, a, id)
	return withoutSecrets(e), err
}

// UpdateWebhook changes an endpoint's URL, events, description or
// enabled; enabling one the server disabled clears why.
func (s *Service) UpdateWebhook(ctx context.Context, a Actor, id string, p topupd.WebhookPatch) (topupd.WebhookEndpoint, error) {
	if err := Allowed(a, OpUpdateWebhook); err != nil {
		return topupd.WebhookEndpoint{}, err
	}
	if _, err := s.webhook(ctx, a, id); err != nil {
		return topupd.WebhookEndpoint{}, err
	}
	if p.Events != nil {
		if err := topupd.CheckWebhookEvents(*p.Events); err != nil {
			return topupd.WebhookEndpoint{}, err
		}
	}
	if p.Description != nil {
		if err := checkWebhookDescription(*p.Description); err != nil {
			return topupd.WebhookEndpoint{}, err
		}
	}
	if p.URL != nil {
		if err := s.checkWebhookURL(ctx, *p.URL); err != nil {
			return topupd.WebhookEndpoint{}, err
		}
	}
	e, err := s.d.Store.UpdateWebhook(ctx, change(a, OpUpdateWebhook, id), id, p)
	if err == nil && e.Enabled {
		s.d.WakeWebhooks()
	}
	return withoutSecrets(e), err
}

// DeleteWebhook removes an endpoint: nothing more is sent to it.
func (s *Service) DeleteWebhook(ctx context.Context, a Actor, id string) error {
	if err := Allowed(a, OpDeleteWebhook); err != nil {
		return err
	}
	if _, err := s.webhook(ctx, a, id); err != nil {
		return err
	}
	return s.d.Store.DeleteWebhook(ctx, change(a, OpDeleteWebhook, id), id)
}

// RotateWebhookSecret gives an endpoint a new secret, answered this once;
// for topupd.WebhookSecretOverlap every delivery is signed with the old
// one as well.
func (s *Service) RotateWebhookSecret(ctx context.Context, a Actor, id string) (string, error) {
	if err := Allowed(a, OpRotateWebhookSecret); err != nil {
		return "", err
	}
	if _, err := s.webhook(ctx, a, id); err != nil {
		return "", err
	}
	secret := topupd.NewWebhookSecret()
	if err := s.d.Store.RotateWebhookSecret(ctx, change(a, OpRotateWebhookSecret, id), id, secret, s.d.Now().Add(topupd.WebhookSecretOverlap)); err != nil {
		return "", err
	}
	return secret, nil
}

// TestWebhook queues a webhook.test event for the endpoint alone.
func (s *Service) TestWebhook(ctx context.Context, a Actor, id string) (topupd.WebhookEvent, error) {
	if err := Allowed(a, OpTestWebhook); err != nil {
		return topupd.WebhookEvent{}, err
	}
	if _, err := s.webhook(ctx, a, id); err != nil {
		return topupd.WebhookEvent{}, err
	}
	ev, err := s.d.Store.QueueWebhookTest(ctx, id, s.d.Now())
	if err == nil {
		s.d.WakeWebhooks()
	}
	return ev, err
}

// MaxReplayIDs bounds the event ids one replay names.
const MaxReplayIDs = 1000

// ReplayWebhook sends the endpoint's account's events that q selects (of
// the types it wants) again, each as a new delivery with the event's own
// id, and says how many were queued.
func (s *Service) ReplayWebhook(ctx context.Context, a Actor, id string, q topupd.WebhookReplay) (int, error) {
	if err := Allowed(a, OpReplayWebhook); err != nil {
		return 0, err
	}
	if _, err := s.webhook(ctx, a, id); err != nil {
		return 0, err
	}
	switch {
	case len(q.EventIDs) > 0 && (!q.From.IsZero() || !q.To.IsZero()):
		return 0, topupd.Errorf(topupd.EInvalidBody, "eventIds, or from and to: not both")
	case len(q.EventIDs) > MaxReplayIDs:
		return 0, topupd.Errorf(topupd.EInvalidBody, "eventIds: at most %d", MaxReplayIDs)
	case len(q.EventIDs) == 0 && q.From.IsZero():
		return 0, topupd.Errorf(topupd.EInvalidBody, "eventIds, or from (and to)")
	case !q.To.IsZero() && !q.To.After(q.From):
		return 0, topupd.Errorf(topupd.EInvalidBody, "to: after from")
	}
	n, err := s.d.Store.ReplayWebhook(ctx, change(a, OpReplayWebhook, id), id, q, s.d.Now())
	if err == nil && n > 0 {
		s.d.WakeWebhooks()
	}
	return n, err
}

// DeliveriesCursor starts the cursors of an endpoint's deliveries.
const DeliveriesCursor = "d"

// DeliveriesPage is a page of an endpoint's deliveries, newest first.
type DeliveriesPage struct {
	Deliveries []topupd.WebhookDelivery
	// Next is where the next page starts (nil on the last).
	Next *topupd.ListKey
}

// WebhookDeliveries pages an endpoint's deliveries, newest first, from
// the cursor a page gave (ListCursor of DeliveriesCursor).
func (s *Service) WebhookDeliveries(ctx context.Context, a Actor, id string, before *topupd.ListKey, limit int) (DeliveriesPage, error) {
	if err := Allowed(a, OpRead); err != nil {
		return DeliveriesPage{}, err
	}
	limit, err := pageLength(limit)
	if err != nil {
		return DeliveriesPage{}, err
	}
	if _, err := s.webhook(ctx, a, id); err != nil {
		return DeliveriesPage{}, err
	}
	list, err := s.d.Store.WebhookDeliveries(ctx, id, before, limit+1)
	if err != nil {
		return DeliveriesPage{}, err
	}
	page := DeliveriesPage{Deliveries: list}
	if len(list) > limit {
		page.Deliveries = list[:limit]
		last := list[limit-1]
		page.Next = &topupd.ListKey{At: last.CreatedAt, Seq: last.Seq}
	}
	return page, nil
}

// DisabledWebhooks lists the endpoints the server disabled (gone or
// failing), of every account: what operators are alerted of. A
// reseller's chat may not read it.
func (s *Service) DisabledWebhooks(ctx context.Context, a Actor) ([]topupd.WebhookEndpoint, error) {
	if err := Allowed(a, OpRead); err != nil {
		return nil, err
	}
	if a.Role == topupd.RoleResellerChat {
		return nil, topupd.Errorf(topupd.ERoleForbidden, "a reseller's chat may act only on its own account")
	}
	return s.d.Store.DisabledWebhooks(ctx)
}
