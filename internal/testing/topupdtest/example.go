package topupdtest

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// exampleTB is the testing.TB of a server started for an example, which
// has no *testing.T: a failure panics, and the cleanups run at stop. A
// method of testing.TB not written here panics (the embedded TB is nil).
type exampleTB struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
}

// Helper does nothing.
func (e *exampleTB) Helper() {}

// Fatal panics with the message.
func (e *exampleTB) Fatal(args ...any) { panic("topupdtest: " + fmt.Sprint(args...)) }

// Fatalf panics with the message.
func (e *exampleTB) Fatalf(format string, args ...any) {
	panic("topupdtest: " + fmt.Sprintf(format, args...))
}

// Errorf panics with the message.
func (e *exampleTB) Errorf(format string, args ...any) { e.Fatalf(format, args...) }

// Logf writes the message to stderr.
func (e *exampleTB) Logf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

// Cleanup runs f at stop, the last one first.
func (e *exampleTB) Cleanup(f func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cleanups = append(e.cleanups, f)
}

// TempDir makes a directory that stop removes.
func (e *exampleTB) TempDir() string {
	dir, err := os.MkdirTemp("", "topupdtest-")
	if err != nil {
		e.Fatal(err)
	}
	e.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// stop runs the cleanups.
func (e *exampleTB) stop() {
	e.mu.Lock()
	fs := e.cleanups
	e.cleanups = nil
	e.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// StartExample starts a server for an example (which has no *testing.T):
// a failure panics, and stop shuts the server down and removes its files.
func StartExample(opts ...Option) (h *T, stop func()) {
	tb := &exampleTB{}
	return New(tb, opts...), tb.stop
}
