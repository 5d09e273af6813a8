package ratelimit

import (
	"time"

	"github.com/topupd/topupd/internal/testing/fakeclock"
)

// t0 is the fake clock's starting instant in every test.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeClock is the tests' clock, starting at t0; Set(d) moves it to t0+d.
type fakeClock = fakeclock.Clock

func newFakeClock() *fakeClock { return fakeclock.New(t0) }
