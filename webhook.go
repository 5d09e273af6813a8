package topupd

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The webhook events an endpoint may ask for (integration.md "Events").
const (
	// WebhookOrderCompleted: an order became completed; data is the order.
	WebhookOrderCompleted = "order.completed"
	// WebhookOrderCancelled: a created order ended cancelled; data is the order.
	WebhookOrderCancelled = "order.cancelled"
	// WebhookBalanceCredited: the operator credited or debited the account.
	WebhookBalanceCredited = "balance.credited"
	// WebhookCatalogChanged: packs the account can see changed; data is {pids}.
	WebhookCatalogChanged = "catalog.changed"
	// WebhookDepositConfirmed, WebhookDepositRejected and
	// WebhookDepositExpired: a deposit ticket was credited, rejected or
	// expired; data is the deposit.
	WebhookDepositConfirmed = "deposit.confirmed"
	WebhookDepositRejected  = "deposit.rejected"
	WebhookDepositExpired   = "deposit.expired"
	// WebhookDisputeOpened: the account disputed an order; data is the
	// dispute.
	WebhookDisputeOpened = "dispute.opened"
	// WebhookTest: an operator or a chat asked for a test; data is {}.
	WebhookTest = "webhook.test"
)

// WebhookEventTypes are every type an endpoint may list, in the spec's
// order: the webhook types of the stream's events (EventKinds), then
// webhook.test, which no stream event makes.
var WebhookEventTypes = append(StreamWebhookTypes(), WebhookTest)

// StreamWebhookTypes are the webhook types made of the stream's events
// (EventKinds), in the registry's order: what GET /events lists.
func StreamWebhookTypes() []string {
	var out []string
	for _, k := range EventKinds {
		if k.Webhook != "" && !slices.Contains(out, k.Webhook) {
			out = append(out, k.Webhook)
		}
	}
	return out
}

// Webhook limits and times.
const (
	// MaxWebhookEndpoints is the most endpoints one account may have.
	MaxWebhookEndpoints = 5
	// MaxWebhookURL is the longest endpoint URL, in bytes.
	MaxWebhookURL = 2000
	// WebhookSecretOverlap is how long deliveries are signed with the old
	// secret as well after a rotation.
	WebhookSecretOverlap = 24 * time.Hour
	// WebhookEventsKept is how long events are kept (and can be pulled or
	// replayed).
	WebhookEventsKept = 30 * 24 * time.Hour
	// WebhookFailingAfter is how long an endpoint may go without a
	// successful delivery, with at least one failed, before it is disabled.
	WebhookFailingAfter = 5 * 24 * time.Hour
)

// The reasons an endpoint is disabled (disabledReason).
const (
	// WebhookGone: the receiver answered 410.
	WebhookGone = "gone"
	// WebhookFailing: no success for WebhookFailingAfter, with a failed delivery.
	WebhookFailing = "failing"
)

// The states of a delivery.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// WebhookEndpoint is an HTTPS address an account registered for events.
type WebhookEndpoint struct {
	ID, AccountID, URL string
	// Events are the types it wants; empty means all but catalog.changed.
	Events      []string
	Description string
	Enabled     bool
	// DisabledReason says why the server disabled it (gone, failing), or
	// "" (enabled, or disabled by a person).
	DisabledReason string
	CreatedAt      time.Time
	// Secret is the signing secret (whsec_…), and OldSecret the one before
	// the last rotation, valid until OldSecretUntil; the store keeps them
	// sealed and they are never shown after they are made.
	Secret, OldSecret string
	OldSecretUntil    time.Time
}

// Wants reports whether the endpoint is sent events of type typ. A test
// event is sent to the endpoint it names, whatever it wants.
func (e *WebhookEndpoint) Wants(typ string) bool {
	if len(e.Events) == 0 {
		return typ != WebhookCatalogChanged
	}
	return slices.Contains(e.Events, typ)
}

// LogFields are what the action log shows of an endpoint: never a secret.
func (e *WebhookEndpoint) LogFields() map[string]any {
	events := e.Events
	if events == nil {
		events = []string{}
	}
	return map[string]any{"url": e.URL, "events": events, "description": e.Description, "enabled": e.Enabled,
		"disabledReason": e.DisabledReason}
}

// WebhookPatch changes an endpoint; nil fields stay.
type WebhookPatch struct {
	URL         *string
	Events      *[]string
	Description *string
	Enabled     *bool
}

// CheckWebhookEvents refuses an unknown or repeated type (INVALID_BODY).
func CheckWebhookEvents(events []string) error {
	for i, t := range events {
		if !slices.Contains(WebhookEventTypes, t) {
			return Errorf(EInvalidBody, "events: unknown type %q (one of %s)", t, strings.Join(WebhookEventTypes, ", "))
		}
		if slices.Contains(events[:i], t) {
			return Errorf(EInvalidBody, "events: %q given twice", t)
		}
	}
	return nil
}

// CheckWebhookURL checks an endpoint URL's form: an absolute http(s) URL
// of at most MaxWebhookURL bytes, with a host and without a user or
// password (INVALID_BODY), and https unless allowPrivate
// (WEBHOOK_URL_FORBIDDEN). Where its host points is checked apart (see
// the webhooks package), at save and at each delivery.
func CheckWebhookURL(raw string, allowPrivate bool) (*url.URL, error) {
	if raw == "" {
		return nil, Errorf(EInvalidBody, "url: required")
	}
	if len(raw) > MaxWebhookURL {
		return nil, Errorf(EInvalidBody, "url: at most %d characters", MaxWebhookURL)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Hostname() == "" || u.Opaque != "" {
		return nil, Errorf(EInvalidBody, "url: an absolute https:// URL")
	}
	if u.User != nil {
		return nil, Errorf(EInvalidBody, "url: no user or password")
	}
	if u.Fragment != "" {
		return nil, Errorf(EInvalidBody, "url: no fragment")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !allowPrivate {
			return nil, Errorf(EWebhookURLForbidden, "url: https:// only")
		}
	default:
		return nil, Errorf(EInvalidBody, "url: an https:// URL")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, Errorf(EInvalidBody, "url: a port from 1 to 65535")
		}
	}
	return u, nil
}

// WebhookSecretPrefix starts every signing secret.
const WebhookSecretPrefix = "whsec_"

// NewWebhookSecret returns a fresh signing secret: whsec_ and the base64
// of 32 random bytes.
func NewWebhookSecret() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b[:])
}

// SignWebhook is the Standard Webhooks 1.0 signature of a delivery: "v1,"
// and the base64 of HMAC-SHA256, keyed with the base64-decoded part of the
// secret after whsec_, over "{id}.{timestamp}.{body}".
func SignWebhook(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, WebhookSecretPrefix))
	if err != nil {
		return "", fmt.Errorf("webhook secret: %w", err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(strconv.FormatInt(timestamp, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil)), nil
}

// WebhookEvent is an event as a webhook sends it and GET /events shows
// it: the stream event's id, the spec's type, the account, and data as sent.
type WebhookEvent struct {
	// Seq orders an account's events (GET /events pages by it).
	Seq       int64
	ID        string
	AccountID string
	Type      string
	At        time.Time
	// Data is the event's data object, JSON.
	Data []byte
	// EndpointID names the one endpoint a webhook.test event is for.
	EndpointID string
}

// WebhookDelivery is one event's delivery to one endpoint: the first, or
// a replay's.
type WebhookDelivery struct {
	Seq                  int64
	EndpointID, EventID  string
	Type, State          string
	Attempts, LastStatus int
	LastError            string
	CreatedAt, NextAt    time.Time
	LastAttemptAt        time.Time
	DeliveredAt          time.Time
}

// WebhookJob is a delivery claimed for one attempt, with what the attempt
// needs: the endpoint (its secrets open) and the event.
type WebhookJob struct {
	Delivery WebhookDelivery
	Endpoint WebhookEndpoint
	Event    WebhookEvent
}

// WebhookAttempt is how one attempt of a claimed delivery went.
type WebhookAttempt struct {
	// Seq is the delivery's; Owner the lease's holder that made the attempt.
	Seq   int64
	Owner string
	At    time.Time
	// Status is the receiver's HTTP status (0: none), Error what went
	// wrong ("" on success).
	Status int
	Error  string
	// OK is a 2xx answer; Gone a 410, which disables the endpoint.
	OK, Gone bool
	// NextAt is when to try again after a failure; zero when this was the
	// last attempt (the delivery is failed).
	NextAt time.Time
}

// WebhookReplay selects an endpoint's events to send again: by id, or by
// time [From, To).
type WebhookReplay struct {
	EventIDs []string
	From, To time.Time
}

// WebhookStore keeps webhook endpoints, their events and deliveries.
type WebhookStore interface {
	// CreateWebhook stores a new endpoint (EWebhookLimit past
	// MaxWebhookEndpoints, ENotFound for no account).
	CreateWebhook(ctx context.Context, ch *Change, e WebhookEndpoint) (WebhookEndpoint, error)
	// Webhook returns one endpoint with its secrets (ENotFound).
	Webhook(ctx context.Context, id string) (WebhookEndpoint, error)
	// Webhooks lists an account's endpoints, oldest first.
	Webhooks(ctx context.Context, accountID string) ([]WebhookEndpoint, error)
	// UpdateWebhook patches an endpoint; enabling it clears its reason.
	UpdateWebhook(ctx context.Context, ch *Change, id string, p WebhookPatch) (WebhookEndpoint, error)
	// DeleteWebhook removes an endpoint and its deliveries.
	DeleteWebhook(ctx context.Context, ch *Change, id string) error
	// RotateWebhookSecret makes secret the endpoint's, and keeps the one
	// before valid until until.
	RotateWebhookSecret(ctx context.Context, ch *Change, id, secret string, until time.Time) error
	// QueueWebhookTest writes a webhook.test event for the endpoint alone,
	// and its delivery.
	QueueWebhookTest(ctx context.Context, endpointID string, now time.Time) (WebhookEvent, error)
	// ReplayWebhook queues the endpoint's account's events that q selects
	// (of the types it wants) as new deliveries, and says how many.
	ReplayWebhook(ctx context.Context, ch *Change, endpointID string, q WebhookReplay, now time.Time) (int, error)
	// WebhookDeliveries lists an endpoint's deliveries, newest first.
	WebhookDeliveries(ctx context.Context, endpointID string, before *ListKey, limit int) ([]WebhookDelivery, error)
	// AddWebhookEvents stores events and queues their deliveries to the
	// enabled endpoints of their accounts that want them; an event or a
	// delivery already there is left as it is.
	AddWebhookEvents(ctx context.Context, events []WebhookEvent, now time.Time) error
	// ClaimWebhookDeliveries leases up to limit due deliveries of enabled
	// endpoints to owner until until.
	ClaimWebhookDeliveries(ctx context.Context, owner string, now, until time.Time, limit int) ([]WebhookJob, error)
	// RecordWebhookAttempt records an attempt of a delivery owner holds
	// (EConflict when it no longer does) and answers the reason the
	// endpoint was disabled by it ("" for none).
	RecordWebhookAttempt(ctx context.Context, a WebhookAttempt) (string, error)
	// ReleaseWebhookDeliveries gives up owner's leases.
	ReleaseWebhookDeliveries(ctx context.Context, owner string) error
	// WebhookEvents pages an account's events (webhook.test aside), oldest
	// first, after the event named (EInvalidRequest for an unknown or
	// another account's), and says whether more follow.
	WebhookEvents(ctx context.Context, accountID, after string, limit int) ([]WebhookEvent, bool, error)
	// DisabledWebhooks lists the endpoints the server disabled (a reason
	// set), of every account, without their secrets.
	DisabledWebhooks(ctx context.Context) ([]WebhookEndpoint, error)
	// DeleteWebhookEvents deletes the events from before t, with their
	// deliveries, and says how many.
	DeleteWebhookEvents(ctx context.Context, before time.Time) (int, error)
}

// WebhookAddrForbidden reports an address no endpoint may be reached at
// (unless private addresses are allowed): loopback, private, link-local
// or unspecified, in IPv4 or IPv6 (an IPv4-mapped IPv6 address as its IPv4).
func WebhookAddrForbidden(ip netip.Addr) bool {
	ip = ip.Unmap()
	return !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsUnspecified()
}

// WebhookBody is an event as a delivery's body and GET /events show it.
type WebhookBody struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// Body is the event as it is sent: its id, type, time (RFC 3339) and data.
func (e *WebhookEvent) Body() WebhookBody {
	return WebhookBody{ID: e.ID, Type: e.Type, Timestamp: e.At.UTC().Format(time.RFC3339Nano), Data: e.Data}
}
