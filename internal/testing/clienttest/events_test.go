package clienttest_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/topupd/topupd/client"
)

// TestEvents: the client pages the account's events oldest first, and an
// after the server does not know is an *Error of INVALID_REQUEST.
func TestEvents(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	a := mustAccount(t, s, "2")
	s.Credit(a, "3")
	c := newClient(t, s, a.Key)
	ctx := t.Context()
	var page *client.EventsPage
	deadline := time.Now().Add(20 * time.Second)
	for {
		var err error
		if page, err = c.Events(ctx, "", 1); err != nil {
			t.Fatal(err)
		}
		if page.HasMore || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(page.Events) != 1 || page.Events[0].Type != "balance.credited" || !page.HasMore {
		t.Fatalf("the first page: %+v", page)
	}
	var credit struct{ AmountUsd client.Money }
	if err := json.Unmarshal(page.Events[0].Data, &credit); err != nil || credit.AmountUsd != client.USD(2) {
		t.Errorf("the first credit: %s (%v)", page.Events[0].Data, err)
	}
	next, err := c.Events(ctx, page.Events[0].ID, 0)
	if err != nil || len(next.Events) != 1 || next.HasMore || next.Events[0].ID == page.Events[0].ID {
		t.Errorf("the next page: %+v, %v", next, err)
	}
	var e *client.Error
	if _, err := c.Events(ctx, "evt_nope", 0); !errors.As(err, &e) || e.Code != "INVALID_REQUEST" {
		t.Errorf("an unknown after: %v", err)
	}
}
