// Package logctx carries a request's id through a context and puts it on
// every log line written with that context: the request's own line, the
// errors it meets, and the engine's work on the order it placed.
package logctx

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// Key is the log attribute that holds the request id.
const Key = "requestId"

type requestIDKey struct{}

// WithRequestID returns ctx carrying a request id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request id ctx carries, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// Detach returns a context that carries ctx's request id (and nothing
// else): for work that outlives the request but belongs to it.
func Detach(ctx context.Context) context.Context {
	if id := RequestID(ctx); id != "" {
		return WithRequestID(context.Background(), id)
	}
	return context.Background()
}

// handler adds the request id of a record's context to the record.
type handler struct{ slog.Handler }

// Handle adds the request id, when the context carries one.
func (h handler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String(Key, id))
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs keeps the wrapper around the handler with the attributes.
func (h handler) WithAttrs(as []slog.Attr) slog.Handler { return handler{h.Handler.WithAttrs(as)} }

// WithGroup keeps the wrapper around the handler with the group.
func (h handler) WithGroup(name string) slog.Handler { return handler{h.Handler.WithGroup(name)} }

// Logger returns l writing the request id of each call's context; a
// logger that already does is returned as it is.
func Logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(handler{slog.DiscardHandler})
	}
	if _, ok := l.Handler().(handler); ok {
		return l
	}
	return slog.New(handler{l.Handler()})
}

// New returns the service's logger: one JSON object a line ("json") or
// key=value text for people ("text"), at level and above (debug, info,
// warn or error), with request ids.
func New(format, level string, w io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch strings.ToLower(format) {
	case "json", "":
		return Logger(slog.New(slog.NewJSONHandler(w, opts))), nil
	case "text":
		return Logger(slog.New(slog.NewTextHandler(w, opts))), nil
	}
	return nil, fmt.Errorf("log format %q: want json or text", format)
}
