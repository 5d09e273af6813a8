package loadgen

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// stopKey carries an action's cancel function in its context, so that the
// transport can end the whole action (and the client's retries) when the
// pacer has no slot left before the end of the run.
type stopKey struct{}

// withStop returns a context the transport can cancel with ErrStopped.
func withStop(parent context.Context) (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	return context.WithValue(ctx, stopKey{}, cancel), cancel
}

// Transport is the http.RoundTripper of one account's client: it waits for
// the account's pacer before every exchange (retries included, since the
// server counts them too), then times the exchange from sending the request
// to the last byte of the answer and records it by route.
type Transport struct {
	Base     http.RoundTripper
	Pacer    *Pacer // nil: no pacing
	Rec      *Recorder
	BasePath string    // the API's base path, stripped to name routes
	StopAt   time.Time // no exchange is started after this
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	route := RouteOf(req.Method, t.BasePath, req.URL.Path)
	if t.Pacer != nil {
		if err := t.Pacer.Wait(ctx, t.StopAt); err != nil {
			if errors.Is(err, ErrStopped) {
				if cancel, ok := ctx.Value(stopKey{}).(context.CancelCauseFunc); ok {
					cancel(ErrStopped)
				}
			}
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, err
		}
	}
	start := time.Now()
	resp, err := t.Base.RoundTrip(req)
	if err != nil {
		o := OutcomeNetError
		if ctx.Err() != nil {
			o = OutcomeAborted
		}
		t.Rec.Record(route, o, time.Since(start), 0)
		return nil, err
	}
	mb := &meteredBody{rc: resp.Body, peek: resp.StatusCode == http.StatusTooManyRequests}
	resp.Body = mb
	mb.done = func(n int64, readErr error) {
		o := outcomeOf(resp.StatusCode)
		if o == OutcomeRateLimited && bytes.Contains(mb.head, []byte("DUPLICATE_IN_FLIGHT")) {
			o = OutcomeInFlight // the same trxid still running, not the rate limit
		}
		if readErr != nil && readErr != io.EOF {
			o = OutcomeNetError
			if ctx.Err() != nil {
				o = OutcomeAborted
			}
		}
		t.Rec.Record(route, o, time.Since(start), n)
	}
	return resp, nil
}

func outcomeOf(status int) Outcome {
	switch {
	case status >= 200 && status < 300:
		return OutcomeOK
	case status == http.StatusTooManyRequests:
		return OutcomeRateLimited
	case status >= 400 && status < 500:
		return OutcomeClientError
	}
	return OutcomeServerError
}

// meteredBody counts an answer's bytes and reports once, at EOF, at a read
// error or at Close, whichever comes first.
type meteredBody struct {
	rc   io.ReadCloser
	n    int64
	once sync.Once
	done func(n int64, err error)
	peek bool   // keep the start of the answer in head
	head []byte // up to 256 bytes
}

func (b *meteredBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if b.peek && len(b.head) < 256 {
		b.head = append(b.head, p[:min(n, 256-len(b.head))]...)
	}
	if err != nil {
		b.once.Do(func() { b.done(b.n, err) })
	}
	return n, err
}

func (b *meteredBody) Close() error {
	b.once.Do(func() { b.done(b.n, nil) })
	return b.rc.Close()
}
