package topupd_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
)

// TestEventKinds: every type is registered once, each payload says its own
// type, and a payload written reads back as it was.
func TestEventKinds(t *testing.T) {
	at := time.UnixMilli(1_790_000_000_000).UTC()
	o := topupd.Order{Seq: 7, ID: "ord_1", AccountID: "acc_1", TrxID: "T-1", PID: "uc60", Slug: "pubg", Provider: "upstream",
		Upstream: "up-1", Status: topupd.StatusCancelled, Amount: topupd.USD(1) + 2500, Refunded: true, Error: "INVALID PLAYER",
		CreatedAt: at, FinishedAt: at.Add(time.Second), Sandbox: true}
	facts := topupd.FactsOf(&o)
	change := topupd.ChangeFacts{Action: "key.create", Target: "acc_1", By: "kim", Before: map[string]any{},
		After: map[string]any{"keyId": "key_1", "n": 2.5, "list": []any{"a"}}}
	samples := map[topupd.EventType]topupd.EventData{
		topupd.OrderPlaced:     &topupd.OrderPlacedData{OrderFacts: facts},
		topupd.OrderCompleted:  &topupd.OrderCompletedData{OrderFacts: facts},
		topupd.OrderCancelled:  &topupd.OrderCancelledData{OrderFacts: facts},
		topupd.OrderRetried:    &topupd.OrderRetriedData{OrderFacts: facts, By: "by kim"},
		topupd.OrderMoved:      &topupd.OrderMovedData{OrderFacts: facts, From: "upstream a", Outcome: "refused", Why: "no"},
		topupd.BalanceCredited: &topupd.BalanceCreditedData{Amount: 12345, Balance: -1, Reference: "r<&>\"é", By: "kim", Sandbox: true},
		topupd.AccountChanged:  &topupd.AccountChangedData{ChangeFacts: change},
		topupd.CatalogChanged:  &topupd.CatalogChangedData{ChangeFacts: change},
		topupd.PacksChanged:    &topupd.PacksChangedData{PIDs: []string{"a", "b"}, AllPacks: true, Accounts: []string{"acc_1"}},
		topupd.WebhookDisabled: &topupd.WebhookDisabledData{EndpointID: "we_1", URL: "https://x", Reason: topupd.WebhookGone, Status: 410},
	}
	bal, burnt := topupd.USD(3)+topupd.MoneyScale/2, topupd.USD(72)
	up := topupd.Upstream{Name: "up-1", Balance: &bal, Day: burnt}
	samples[topupd.ReconciliationFailed] = &topupd.ReconciliationFailedData{Supplier: "b", From: "2026-12-01", To: "2026-12-01", Error: "UPSTREAM_UNREACHABLE"}
	samples[topupd.ReconciliationMismatches] = &topupd.ReconciliationMismatchesData{ReconciliationID: "rec_1", Supplier: "b",
		From: "2026-12-01", To: "2026-12-01", Mismatches: 2}
	dep := topupd.Deposit{ID: "dep_1", Requested: topupd.USD(50), Amount: topupd.USD(50) + 3_700, Memo: "TPD-ABC234",
		Bank: topupd.DepositBank{BankName: "BCA", AccountNumber: "123", AccountHolder: "Shop Ltd"}, Status: topupd.DepositExpired,
		CreatedAt: at, ExpiresAt: at.Add(24 * time.Hour), Sandbox: true}
	for _, typ := range []topupd.EventType{topupd.EventDepositConfirmed, topupd.EventDepositRejected, topupd.EventDepositExpired} {
		samples[typ] = &topupd.DepositData{Type: typ, DepositView: dep.View()}
	}
	dsp := topupd.Dispute{ID: "dsp_1", OrderID: "ord_1", Status: topupd.DisputeOpen, Reason: "code_used", Codes: []string{"AAAA-BBBB"},
		CreatedAt: at, DueAt: at.Add(48 * time.Hour), Sandbox: true}
	samples[topupd.EventDisputeOpened] = &topupd.DisputeData{Type: topupd.EventDisputeOpened, DisputeView: dsp.View()}
	samples[topupd.EventPriceHeld] = &topupd.PriceHeldData{PID: "ww-60", Rule: "ww", Cost: 7_000, OldPrice: 8_000, NewPrice: 11_000}
	for _, level := range []string{topupd.BalanceAlertWarn, topupd.BalanceAlertCritical, topupd.BalanceAlertNone} {
		d := topupd.SupplierBalanceEvent(&up, level)
		samples[d.Type] = d
	}
	if d := samples[topupd.SupplierBalanceWarn].(*topupd.SupplierBalanceData); d.RunwayHours == nil || *d.RunwayHours != 1.1 {
		t.Errorf("runway of $3.50 at $72 a day: %v, want 1.1 hours", d.RunwayHours)
	}
	seen := map[topupd.EventType]bool{}
	for _, k := range topupd.EventKinds {
		if seen[k.Type] {
			t.Errorf("%s registered twice", k.Type)
		}
		seen[k.Type] = true
		if got := k.New().EventType(); got != k.Type {
			t.Errorf("%s's payload says %s", k.Type, got)
		}
		d, ok := samples[k.Type]
		if !ok {
			t.Errorf("%s: no sample payload in this test", k.Type)
			continue
		}
		raw, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		back, err := topupd.DecodeEventData(k.Type, raw)
		if err != nil {
			t.Fatalf("%s: %v", k.Type, err)
		}
		if diff := cmp.Diff(d, back); diff != "" {
			t.Errorf("%s read back (-wrote +read):\n%s", k.Type, diff)
		}
		if reflect.TypeOf(back) != reflect.TypeOf(k.New()) {
			t.Errorf("%s reads as %T", k.Type, back)
		}
	}
	if len(samples) != len(topupd.EventKinds) {
		t.Errorf("%d samples for %d kinds", len(samples), len(topupd.EventKinds))
	}
}

// TestEventDataAsStored: payloads as earlier releases and the database's
// triggers wrote them read as their structs: an order's, a backfilled one
// (00020), a packs.changed of every pack and every account (00025), and a
// type this release does not know, kept as it was.
func TestEventDataAsStored(t *testing.T) {
	for _, c := range []struct {
		typ  topupd.EventType
		raw  string
		want topupd.EventData
	}{
		{topupd.OrderCancelled, `{"amountUsd":1.25,"createdAt":1790000000000,"error":"X","finishedAt":1790000001000,"orderId":"ord_1","pid":"uc60","provider":"sim","refunded":false,"slug":"pubg","status":"cancelled","trxid":"T"}`,
			&topupd.OrderCancelledData{OrderFacts: topupd.OrderFacts{OrderID: "ord_1", TrxID: "T", PID: "uc60", Slug: "pubg", Provider: "sim",
				Status: topupd.StatusCancelled, Amount: 12500, CreatedAt: 1790000000000, FinishedAt: 1790000001000, Error: "X"}}},
		{topupd.OrderPlaced, `{"backfilled":true}`, &topupd.OrderPlacedData{OrderFacts: topupd.OrderFacts{Backfilled: true}}},
		{topupd.BalanceCredited, `{"backfilled": true}`, &topupd.BalanceCreditedData{Backfilled: true}},
		{topupd.PacksChanged, `{"allPacks": true}`, &topupd.PacksChangedData{AllPacks: true}},
		{topupd.PacksChanged, `{"pids": ["a"], "accounts": ["acc_1"]}`, &topupd.PacksChangedData{PIDs: []string{"a"}, Accounts: []string{"acc_1"}}},
		{"order.teleported", `{"x":1}`, &topupd.UnknownEventData{Type: "order.teleported", Raw: json.RawMessage(`{"x":1}`)}},
	} {
		got, err := topupd.DecodeEventData(c.typ, []byte(c.raw))
		if err != nil {
			t.Fatalf("%s %s: %v", c.typ, c.raw, err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", c.typ, c.raw, diff)
		}
	}
	if _, err := topupd.DecodeEventData(topupd.OrderPlaced, []byte(`{"amountUsd":"1"}`)); err == nil {
		t.Error("an amount as a string read as an order's event")
	}
}

// TestWebhookEventTypes: what endpoints may list is the registry's webhook
// types, in the spec's order, then webhook.test.
func TestWebhookEventTypes(t *testing.T) {
	want := []string{"order.completed", "order.cancelled", "balance.credited", "catalog.changed", "deposit.confirmed", "deposit.rejected",
		"deposit.expired", "dispute.opened", "webhook.test"}
	if diff := cmp.Diff(want, topupd.WebhookEventTypes); diff != "" {
		t.Errorf("(-spec +registry):\n%s", diff)
	}
}
