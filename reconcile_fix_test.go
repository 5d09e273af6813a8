package topupd_test

import (
	"strings"
	"testing"

	"github.com/topupd/topupd"
)

// TestFixApplies: each action applies to the mismatches and orders the
// spec's table says, and to no other (ACTION_NOT_APPLICABLE); accept
// always.
func TestFixApplies(t *testing.T) {
	completed := &topupd.FixTarget{ID: "o", Status: topupd.StatusCompleted, Provider: "upstream", Upstream: "b", Amount: usd("1.5")}
	processing := &topupd.FixTarget{ID: "o", Status: topupd.StatusProcessing, Provider: "upstream", Upstream: "b", Amount: usd("1.5")}
	cancelled := &topupd.FixTarget{ID: "o", Status: topupd.StatusCancelled, Provider: "upstream", Upstream: "b", Amount: usd("1.5"), Refunded: true}
	refunded := *completed
	refunded.Refunded = true
	moved := *processing
	moved.Upstream = "c"
	m := func(kind string, theirs topupd.OrderStatus, amount string) *topupd.Mismatch {
		mm := &topupd.Mismatch{ID: 1, Kind: kind, OrderID: "o", TheirStatus: theirs}
		if amount != "" {
			mm.Theirs = costOf(amount)
		}
		return mm
	}
	for _, c := range []struct {
		action string
		m      *topupd.Mismatch
		o      *topupd.FixTarget
		ok     bool
	}{
		{topupd.FixAccept, m(topupd.MismatchMissingHere, topupd.StatusCompleted, "2"), nil, true},
		{topupd.FixAccept, m(topupd.MismatchCost, topupd.StatusCompleted, "2"), completed, true},
		{topupd.FixCompleteOrder, m(topupd.MismatchStatus, topupd.StatusCompleted, "0.89"), processing, true},
		{topupd.FixCompleteOrder, m(topupd.MismatchStatus, topupd.StatusCompleted, "0.89"), &moved, false},
		{topupd.FixCompleteOrder, m(topupd.MismatchStatus, topupd.StatusCompleted, "0.89"), completed, false},
		{topupd.FixCompleteOrder, m(topupd.MismatchMissingHere, topupd.StatusCompleted, "0.89"), cancelled, false},
		{topupd.FixCompleteOrder, m(topupd.MismatchStatus, topupd.StatusCompleted, ""), processing, false},
		{topupd.FixCompleteOrder, m(topupd.MismatchMissingHere, topupd.StatusCompleted, "1"), nil, false},
		{topupd.FixRefundReseller, m(topupd.MismatchMissingUpstream, "", ""), completed, true},
		{topupd.FixRefundReseller, m(topupd.MismatchStatus, topupd.StatusCancelled, "0"), completed, true},
		{topupd.FixRefundReseller, m(topupd.MismatchStatus, topupd.StatusProcessing, "0.89"), completed, false},
		{topupd.FixRefundReseller, m(topupd.MismatchMissingUpstream, "", ""), &refunded, false},
		{topupd.FixRefundReseller, m(topupd.MismatchMissingUpstream, "", ""), processing, false},
		{topupd.FixRefundReseller, m(topupd.MismatchCost, topupd.StatusCompleted, "2"), completed, false},
		{topupd.FixRefundReseller, m(topupd.MismatchMissingHere, topupd.StatusCompleted, "1"), cancelled, false},
		{topupd.FixRecordCost, m(topupd.MismatchCost, topupd.StatusCompleted, "0.89"), completed, true},
		{topupd.FixRecordCost, m(topupd.MismatchDuplicate, topupd.StatusCompleted, "1.78"), completed, true},
		{topupd.FixRecordCost, m(topupd.MismatchDuplicate, topupd.StatusCompleted, "1.78"), nil, false},
		{topupd.FixRecordCost, m(topupd.MismatchDuplicate, topupd.StatusCompleted, "1.78"), processing, false},
		{topupd.FixRecordCost, m(topupd.MismatchCost, topupd.StatusCompleted, "-1"), completed, false},
		{topupd.FixRecordCost, m(topupd.MismatchStatus, topupd.StatusCompleted, "0.89"), processing, false},
	} {
		err := topupd.FixApplies(c.action, c.m, "b", c.o)
		if c.ok && err != nil || !c.ok && topupd.CodeOf(err) != topupd.EActionNotApplicable {
			t.Errorf("%s of a %s (theirs %q) with order %+v: %v; want applicable %v", c.action, c.m.Kind, c.m.TheirStatus, c.o, err, c.ok)
		}
	}
}

// TestCheckFix: an action the spec names and a note of 1 to 1,000
// characters; anything else is INVALID_BODY.
func TestCheckFix(t *testing.T) {
	for _, c := range []struct {
		action, note string
		ok           bool
	}{
		{"accept", "n", true},
		{"record-cost", strings.Repeat("é", 1000), true},
		{"accept", "", false},
		{"accept", strings.Repeat("n", 1001), false},
		{"accept", "\xff", false},
		{"Accept", "n", false},
		{"write-off", "n", false},
	} {
		if err := topupd.CheckFix(c.action, c.note); c.ok != (err == nil) || !c.ok && topupd.CodeOf(err) != topupd.EInvalidBody {
			t.Errorf("CheckFix(%q, %d characters) = %v, want ok %v", c.action, len([]rune(c.note)), err, c.ok)
		}
	}
}
