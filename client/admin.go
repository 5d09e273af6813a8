package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
)

// DefaultAdminUserAgent is the User-Agent of an Admin client.
const DefaultAdminUserAgent = "topupd-admin-go/1"

// Admin calls one topupd's admin API with one operator token. It sends
// "Authorization: Bearer <token>", and its failures are *Error, as the
// reseller Client's are. Reads and writes the server dedupes (PUT, PATCH,
// DELETE, and credits, which carry their reference) are retried as the
// Client retries; other writes are sent once, since sending them again
// could create a second account or key.
type Admin struct {
	c *Client
}

// NewAdmin returns a client of the admin API at baseURL (for example
// "http://127.0.0.1:8081") with an operator token. It takes the Client's
// options; the token always goes as a bearer token.
func NewAdmin(baseURL, token string, opts ...Option) (*Admin, error) {
	c, err := New(baseURL, token, append([]Option{WithUserAgent(DefaultAdminUserAgent)}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("client.NewAdmin: %w", err)
	}
	c.bearer = true
	return &Admin{c: c}, nil
}

// Do calls method path (which may carry a query string) with body (encoded
// to JSON; nil for none) and decodes a 2xx answer into out (when not nil;
// a *[]byte gets it as it came, such as a CSV).
// The typed methods use it; it serves any call they do not cover.
func (a *Admin) Do(ctx context.Context, method, path string, body, out any) error {
	r := request{method: method, path: path}
	if p, q, ok := strings.Cut(path, "?"); ok {
		query, err := url.ParseQuery(q)
		if err != nil {
			return fmt.Errorf("client: %s %s: %w", method, path, err)
		}
		r.path, r.query = p, query
	}
	if body != nil && !isNil(body) {
		raw, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("client: %s %s: encoding the body: %w", method, path, err)
		}
		r.body = raw
	}
	r.once = method == http.MethodPost && !strings.HasSuffix(r.path, "/credits")
	return a.c.do(ctx, r, out)
}

// esc escapes one path segment.
func esc(s string) string { return url.PathEscape(s) }

// isNil reports whether v holds a nil map, slice or pointer: no body.
func isNil(v any) bool {
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer:
		return rv.IsNil()
	}
	return false
}
