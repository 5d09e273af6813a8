package topupdtest

import (
	"time"

	"github.com/topupd/topupd/internal/testing/fakeclock"
)

// Clock is a manually driven clock (see WithClock).
type Clock = fakeclock.Clock

// NewClock starts at the current wall time (whole second), so that times
// the store keeps stay plausible.
func NewClock() *Clock { return fakeclock.New(time.Now().UTC().Truncate(time.Second)) }
