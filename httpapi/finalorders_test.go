package httpapi_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestFinalOrderAnswersKept: GET /orders/{id} keeps the answers of final
// orders only. A processing order is read from the database on every
// call, so a poll sees it finish; once final, every read answers the same
// bytes; another account's read of it is still 404; and a cancelled,
// refunded order reads as it was settled.
func TestFinalOrderAnswersKept(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		a, other := h.NewAccount("50", nil), h.NewAccount("50", nil)
		h.Settings(map[string]any{"simDelayMs": 300})
		get := func(acct topupdtest.Account, id string) topupdtest.Reply {
			return h.DoH("GET", "/orders/"+id, topupdtest.Headers{"X-API-Key": acct.Key}, nil)
		}
		for _, player := range []string{"5000001", "99990001"} {
			placed := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": player})
			id := placed.Str("orderId")
			if s := placed.Str("status"); s != "processing" {
				t.Fatalf("%s: placed %s, want processing (simDelayMs 300)", player, s)
			}
			var final topupdtest.Reply
			deadline := time.Now().Add(20 * time.Second)
			for {
				final = get(a, id)
				if final.Str("status") != "processing" || time.Now().After(deadline) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			want := map[string]string{"5000001": "completed", "99990001": "cancelled"}[player]
			if final.Status != http.StatusOK || final.Str("status") != want {
				t.Fatalf("%s: polled %v, want %s", player, final, want)
			}
			for range 3 {
				if again := get(a, id); !bytes.Equal(again.Raw, final.Raw) {
					t.Errorf("%s: a second read answers %s, the first %s", player, again.Raw, final.Raw)
				}
			}
			if r := get(other, id); r.Status != http.StatusNotFound {
				t.Errorf("%s: another account reads the order: %v", player, r)
			}
		}
	})
}
