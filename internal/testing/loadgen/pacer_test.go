package loadgen

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/fakeclock"
)

// maxInWindow is the most slots in any (t-period, t] of sorted slots, as the
// server counts them.
func maxInWindow(slots []time.Time, period time.Duration) int {
	most, j := 0, 0
	for i := range slots {
		for !slots[j].After(slots[i].Add(-period)) {
			j++
		}
		most = max(most, i-j+1)
	}
	return most
}

// reserveAll books n slots, moving the fake clock to each slot as a caller
// sleeping until it would.
func reserveAll(t *testing.T, p *Pacer, clk *fakeclock.Clock, n int) []time.Time {
	t.Helper()
	var slots []time.Time
	for range n {
		s, ok := p.Reserve(time.Time{})
		if !ok {
			t.Fatal("Reserve refused with no end")
		}
		if len(slots) > 0 && s.Before(slots[len(slots)-1]) {
			t.Fatalf("slot %v before the previous %v", s, slots[len(slots)-1])
		}
		slots = append(slots, s)
		clk.SetTime(s)
	}
	return slots
}

func TestPacerBurstStaysInBothWindows(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := fakeclock.New(start)
	p := NewPacer(ServerWindows(40, 200), 0, clk.Now)
	slots := reserveAll(t, p, clk, 650)
	if got := maxInWindow(slots, time.Second); got > 40 {
		t.Errorf("%d calls in one second, limit 40", got)
	}
	if got := maxInWindow(slots, time.Minute); got > 200 {
		t.Errorf("%d calls in one minute, limit 200", got)
	}
	// Burst: the first 40 go at once, then 40 more a second (and a margin) later.
	if !slots[39].Equal(start) || slots[40].Sub(start) < time.Second {
		t.Errorf("burst shape: slot 39 at %v, slot 40 at %v", slots[39].Sub(start), slots[40].Sub(start))
	}
	// The minute fills after 200 calls in about 5 s; the 201st waits for the minute.
	if d := slots[200].Sub(slots[0]); d < time.Minute {
		t.Errorf("call 201 only %v after the first", d)
	}
	// And the pacer does not waste the budget: the 201st is within a second of that.
	if d := slots[200].Sub(slots[0]); d > time.Minute+time.Second {
		t.Errorf("call 201 %v after the first: too slow", d)
	}
}

func TestPacerSmoothSpreadsCalls(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := fakeclock.New(start)
	spacing := SmoothSpacing(40, 200)
	if spacing < 300*time.Millisecond || spacing > 310*time.Millisecond {
		t.Fatalf("spacing %v, want just over 300ms", spacing)
	}
	p := NewPacer(ServerWindows(40, 200), spacing, clk.Now)
	slots := reserveAll(t, p, clk, 450)
	for i := 1; i < len(slots); i++ {
		if d := slots[i].Sub(slots[i-1]); d < spacing {
			t.Fatalf("slots %d and %d only %v apart", i-1, i, d)
		}
	}
	if got := maxInWindow(slots, time.Minute); got > 200 {
		t.Errorf("%d calls in one minute, limit 200", got)
	}
	// Raised limits: the one-second window decides.
	if d := SmoothSpacing(1000, 1_000_000); d != time.Millisecond+time.Millisecond/50 {
		t.Errorf("SmoothSpacing(1000, 1e6) = %v", d)
	}
}

func TestPacerRefusesSlotsAfterTheEnd(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := fakeclock.New(start)
	p := NewPacer(ServerWindows(2, 100), 0, clk.Now)
	end := start.Add(500 * time.Millisecond)
	for i := range 2 {
		if _, ok := p.Reserve(end); !ok {
			t.Fatalf("slot %d refused", i)
		}
	}
	if s, ok := p.Reserve(end); ok {
		t.Fatalf("a third call in the same second was given %v", s.Sub(start))
	}
	if err := p.Wait(context.Background(), end); !errors.Is(err, ErrStopped) {
		t.Fatalf("Wait = %v, want ErrStopped", err)
	}
	// A refused reservation books nothing: with no end, the next slot is the window's.
	if s, _ := p.Reserve(time.Time{}); s.Sub(start) != time.Second+25*time.Millisecond {
		t.Errorf("next slot at %v", s.Sub(start))
	}
}

func TestPacerWaitSleepsAndHonoursCancel(t *testing.T) {
	p := NewPacer([]Window{{Limit: 1, Period: 200 * time.Millisecond}}, 0, nil)
	t0 := time.Now()
	for range 3 {
		if err := p.Wait(context.Background(), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(t0); d < 400*time.Millisecond {
		t.Errorf("3 calls at 1 per 200ms took only %v", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Wait(ctx, time.Time{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait on a cancelled context = %v", err)
	}
}

func TestPacerForgetsOldSlots(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := fakeclock.New(start)
	p := NewPacer(ServerWindows(1_000_000, 100_000_000), 0, clk.Now)
	for i := range 20_000 {
		clk.SetTime(start.Add(time.Duration(i) * 10 * time.Millisecond))
		p.Reserve(time.Time{})
	}
	if n := len(p.log); n > 2*6100 {
		t.Errorf("the log holds %d slots; at most about a minute's (6,000) should stay", n)
	}
}
