package topupd

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestOrderHistory: placed first, the events as recorded, and a final state
// the events do not record taken from the order.
func TestOrderHistory(t *testing.T) {
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	events := []OrderEvent{{At: at(1), Kind: EventSubmitting, Note: "sim"}, {At: at(2), Kind: EventRetry, Note: "pending"}}
	tests := []struct {
		name   string
		o      Order
		events []OrderEvent
		want   []OrderEvent
	}{
		{"processing", Order{CreatedAt: t0, Status: StatusProcessing}, events,
			append([]OrderEvent{{At: t0, Kind: EventPlaced}}, events...)},
		{"completed from stock", Order{CreatedAt: t0, FinishedAt: t0, Status: StatusCompleted}, nil,
			[]OrderEvent{{At: t0, Kind: EventPlaced}, {At: t0, Kind: EventCompleted}}},
		{"cancelled before events", Order{CreatedAt: t0, FinishedAt: at(9), Status: StatusCancelled, Error: "INVALID PLAYER"}, nil,
			[]OrderEvent{{At: t0, Kind: EventPlaced}, {At: at(9), Kind: EventCancelled, Note: "INVALID PLAYER"}}},
		{"cancelled with its event", Order{CreatedAt: t0, FinishedAt: at(3), Status: StatusCancelled, Error: "x"},
			append(events[:2:2], OrderEvent{At: at(3), Kind: EventCancelled, Note: "x"}),
			append([]OrderEvent{{At: t0, Kind: EventPlaced}}, append(events[:2:2], OrderEvent{At: at(3), Kind: EventCancelled, Note: "x"})...)},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, OrderHistory(&tc.o, tc.events)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestEventNote: a long note is cut to MaxEventNote bytes, never inside a
// character.
func TestEventNote(t *testing.T) {
	if got := EventNote("short"); got != "short" {
		t.Errorf("EventNote(short) = %q", got)
	}
	long := strings.Repeat("é", MaxEventNote) // 2 bytes each
	got := EventNote("x" + long)
	if len(got) > MaxEventNote || !strings.HasPrefix("x"+long, got) || len(got) < MaxEventNote-1 {
		t.Errorf("EventNote of %d bytes: %d bytes", len(long)+1, len(got))
	}
	if !strings.HasSuffix(got, "é") {
		t.Errorf("EventNote split a character: ends %q", got[len(got)-2:])
	}
}
