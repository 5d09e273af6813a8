package client

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Event is one of the account's events, as a webhook delivery's body
// carries it and Events lists it.
type Event struct {
	// ID is the event's id (evt_…), the same on every delivery, replay and
	// listing: dedupe on it.
	ID string `json:"id"`
	// Type is order.completed, order.cancelled, balance.credited,
	// catalog.changed or webhook.test.
	Type string `json:"type"`
	// Timestamp is when the change was made.
	Timestamp time.Time `json:"timestamp"`
	// Data is the event's data: for an order's event, an Order (without
	// codes); decode it by Type.
	Data json.RawMessage `json:"data"`
}

// EventsPage is a page of the account's events, oldest first.
type EventsPage struct {
	Events []Event `json:"events"`
	// HasMore says that events follow the last one listed.
	HasMore bool `json:"hasMore"`
}

// Events lists the account's events after the one named (from the oldest
// kept when after is ""), at most limit (1 to 100; 0 is 100): the fallback
// for deliveries a webhook receiver missed.
func (c *Client) Events(ctx context.Context, after string, limit int) (*EventsPage, error) {
	query := url.Values{}
	if after != "" {
		query.Set("after", after)
	}
	if limit != 0 {
		query.Set("limit", strconv.Itoa(limit))
	}
	var out EventsPage
	if err := c.do(ctx, request{method: http.MethodGet, path: "/events", query: query}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ErrWebhookSignature is returned by VerifyWebhook for a delivery that is
// not signed with the secret, or signed too long ago.
var ErrWebhookSignature = errors.New("client: the webhook's signature does not verify")

// WebhookTolerance is how far a delivery's webhook-timestamp may be from
// now for VerifyWebhook: older ones are refused as replays.
const WebhookTolerance = 5 * time.Minute

// VerifyWebhook checks a delivery, as a receiver gets it, against the
// endpoint's secret (whsec_…) per Standard Webhooks 1.0: one of the
// webhook-signature header's signatures (two during a rotation) is the
// HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}", and the
// timestamp is within WebhookTolerance of now. Pass the raw body, before
// decoding it; on success it is decoded into the Event.
func VerifyWebhook(secret string, header http.Header, body []byte, now time.Time) (*Event, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) == 0 {
		return nil, errors.New("client: a webhook secret is whsec_ and base64")
	}
	id, ts := header.Get("webhook-id"), header.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || id == "" {
		return nil, ErrWebhookSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > WebhookTolerance || d < -WebhookTolerance {
		return nil, ErrWebhookSignature
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(header.Get("webhook-signature")) {
		version, b64, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		if got, err := base64.StdEncoding.DecodeString(b64); err == nil && hmac.Equal(got, want) {
			var e Event
			if err := json.Unmarshal(body, &e); err != nil {
				return nil, err
			}
			return &e, nil
		}
	}
	return nil, ErrWebhookSignature
}
