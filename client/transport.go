package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxAnswer bounds the size of an answer body.
const maxAnswer = 64 << 20

// request is one API call, re-sent byte-identical on every attempt.
type request struct {
	method string
	path   string // starts with "/", already escaped
	query  url.Values
	body   []byte // nil: no body
	// once forbids a retry: a write the server does not dedupe.
	once bool
	// ifNoneMatch, when set, is sent as If-None-Match: a 304 answer is
	// then a success without a body.
	ifNoneMatch string
	// meta, when set, is given the status and headers of the answer.
	meta *answerMeta
}

// answerMeta is what a call tells of its answer beyond the body.
type answerMeta struct {
	status int
	header http.Header
}

// attempt is the outcome of sending a request once.
type attempt struct {
	status int
	header http.Header
	raw    []byte
	err    error // the request failed in transit
	final  bool  // err must not be retried
}

// do sends r, retrying as the package documentation describes, and decodes
// a 2xx answer into out (when not nil).
func (c *Client) do(ctx context.Context, r request, out any) error {
	var last error
	for n := 0; ; n++ {
		a := c.once(ctx, r)
		var wait time.Duration
		retry := false
		switch {
		case a.err != nil:
			if cerr := ctx.Err(); cerr != nil {
				if errors.Is(a.err, cerr) {
					return a.err
				}
				return fmt.Errorf("%w: %w", cerr, a.err)
			}
			last, retry = a.err, !a.final && transient(a.err)
		case a.status == http.StatusNotModified && r.ifNoneMatch != "":
			if r.meta != nil {
				r.meta.status, r.meta.header = a.status, a.header
			}
			return nil
		case a.status >= 200 && a.status < 300:
			if r.meta != nil {
				r.meta.status, r.meta.header = a.status, a.header
			}
			if out == nil {
				return nil
			}
			if raw, ok := out.(*[]byte); ok { // an answer that is not JSON, such as a CSV
				*raw = append((*raw)[:0], a.raw...)
				return nil
			}
			if err := json.Unmarshal(a.raw, out); err != nil {
				return fmt.Errorf("client: %s %s: decoding the %d answer: %w", r.method, r.path, a.status, err)
			}
			return nil
		default:
			e := parseError(a.status, a.header, a.raw)
			last, retry, wait = e, retryableStatus(a.status), e.RetryAfter
		}
		if !retry || r.once || n >= c.retries {
			return last
		}
		if wait <= 0 {
			wait = c.backoff(n)
		}
		if err := c.pause(ctx, wait, last); err != nil {
			return err
		}
	}
}

// once sends r one time and reads the whole answer.
func (c *Client) once(ctx context.Context, r request) attempt {
	u := c.base + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, body)
	if err != nil {
		return attempt{err: fmt.Errorf("client: %w", err), final: true}
	}
	h := req.Header
	if c.bearer {
		h.Set("Authorization", "Bearer "+c.apiKey)
	} else {
		h.Set("X-API-Key", c.apiKey)
	}
	h.Set("Accept", "application/json")
	if c.userAgent != "" {
		h.Set("User-Agent", c.userAgent)
	}
	if r.body != nil {
		h.Set("Content-Type", "application/json")
	}
	if r.ifNoneMatch != "" {
		h.Set("If-None-Match", r.ifNoneMatch)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return attempt{err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return attempt{err: fmt.Errorf("client: %s %s: reading the %d answer: %w", r.method, r.path, resp.StatusCode, err)}
	}
	if len(raw) > maxAnswer {
		return attempt{err: fmt.Errorf("client: %s %s: answer larger than %d bytes", r.method, r.path, maxAnswer), final: true}
	}
	return attempt{status: resp.StatusCode, header: resp.Header, raw: raw}
}

// transient reports whether a request that failed in transit may succeed if
// sent again: anything but a certificate the client refuses.
func transient(err error) bool {
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	return !errors.As(err, &cv) && !errors.As(err, &ua) && !errors.As(err, &hn) && !errors.As(err, &ci)
}

// retryableStatus reports whether an answer with this status is worth
// retrying: rate limits, in-flight duplicates and unavailable or gateway errors.
func retryableStatus(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// backoff is the jittered wait before retry n+1 when the answer named none:
// base·2ⁿ capped at the maximum, then a random point in its upper half.
func (c *Client) backoff(n int) time.Duration {
	d := c.backoffMax
	if n < 32 {
		if b := c.backoffBase << n; b > 0 && b < d {
			d = b
		}
	}
	return d/2 + rand.N(d/2+1)
}

// pause waits d before the next retry; the error of a wait cut short by
// ctx matches both ctx's error and last.
func (c *Client) pause(ctx context.Context, d time.Duration, last error) error {
	if err := c.sleep(ctx, d); err != nil {
		return fmt.Errorf("client: %w (last error: %w)", err, last)
	}
	return nil
}

// parseRetryAfter reads a Retry-After header: delay seconds or an HTTP date.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if !(s > 0 && s <= 1e6) { // also refuses NaN
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}
