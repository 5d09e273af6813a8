package topupdtest

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/topupd/topupd/internal/logctx"
)

// Logs is everything a server wrote to its log, one JSON object a line.
type Logs struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	secrets map[string]string // secret -> what it is
}

// Write keeps p (and copies it to stderr when TOPUPD_TEST_LOG is set).
func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if os.Getenv("TOPUPD_TEST_LOG") != "" {
		os.Stderr.Write(p)
	}
	return l.buf.Write(p)
}

// String is the whole log so far.
func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Lines are the log's lines so far that contain every one of parts.
func (l *Logs) Lines(parts ...string) []string {
	var out []string
	for _, line := range strings.Split(l.String(), "\n") {
		ok := line != ""
		for _, p := range parts {
			ok = ok && strings.Contains(line, p)
		}
		if ok {
			out = append(out, line)
		}
	}
	return out
}

// Secret registers a value that must never appear in the log, such as an
// API key, a token, a code or an upstream key; what says what it is.
func (l *Logs) Secret(value, what string) {
	if value == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.secrets == nil {
		l.secrets = map[string]string{}
	}
	l.secrets[value] = what
}

// leaks lists the registered secrets the log holds.
func (l *Logs) leaks() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for s, what := range l.secrets {
		if bytes.Contains(l.buf.Bytes(), []byte(s)) {
			out = append(out, what)
		}
	}
	return out
}

// newLogger is a server's logger: JSON lines into logs, with request ids.
func newLogger(w io.Writer) *slog.Logger {
	return logctx.Logger(slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})))
}
