package topupd

import (
	"testing"
	"time"
)

// TestRetryAfterSeconds: a Retry-After is whole seconds, rounded up, at least 1.
func TestRetryAfterSeconds(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want int
	}{
		{-time.Second, 1},
		{0, 1},
		{time.Nanosecond, 1},
		{999 * time.Millisecond, 1},
		{time.Second, 1},
		{time.Second + time.Nanosecond, 2},
		{2 * time.Second, 2},
		{59*time.Second + 1, 60},
		{60 * time.Second, 60},
	}
	for _, tt := range tests {
		if got := (RateDecision{RetryAfter: tt.d}).RetryAfterSeconds(); got != tt.want {
			t.Errorf("RetryAfterSeconds(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}
