package clienttest_test

import (
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// TestClientConstants: the values the client spells out for itself are
// the server's. (Money needs no such test: topupd.Money is client.Money.)
func TestClientConstants(t *testing.T) {
	if client.DurationOverflow != topupd.DurationOverflow {
		t.Errorf("client.DurationOverflow = %v, the server's %v", client.DurationOverflow, topupd.DurationOverflow)
	}
}
