package main

import (
	"bytes"
	"runtime"
	"sync"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader at a time.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runtimeProcs is GOMAXPROCS, which RunParallel multiplies by its parallelism.
func runtimeProcs() int { return runtime.GOMAXPROCS(0) }
