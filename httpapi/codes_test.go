package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestDeliveredCodesMasked: no admin view shows a delivered code in full,
// for any role (the order, the lists, stuck orders, the answers to
// complete): each code is masked to its last 4 characters. Only GET
// /admin/orders/{id}/codes answers them, to the owner alone (403
// ROLE_FORBIDDEN for the others), and each such call is in the action log
// as order.codes-viewed, naming the order and never a code. The reseller
// still reads its own codes in full.
func TestDeliveredCodesMasked(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		a := h.NewAccount("50", nil)
		keys := h.Place(a, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 3})
		keyCodes := stringsOf(keys.Body["codes"])
		if len(keyCodes) != 3 {
			t.Fatalf("the key order: %v", keys)
		}
		byHand(t, h)
		manual := h.Place(a, order{"pid": pidByHand, "trxid": h.Trx(), "userId": "5123"}).Str("orderId")
		handCodes := []string{"HAND-DELIVERED-0001", "ab"}
		h.Logs.Secret(handCodes[0], "a code delivered by hand")
		completed := h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+manual+"/complete", map[string]any{"codes": handCodes})
		if got := stringsOf(completed.Body["codes"]); !slices.Equal(got, []string{"•••••••••••••••0001", "••"}) {
			t.Errorf("the answer to complete shows codes %q, want them masked", got)
		}

		tokens := map[string]string{"root": h.Token}
		for _, role := range []string{"owner", "finance", "support", "viewer"} {
			tokens[role] = h.NewOperator("op-"+role, role)
		}
		all := append(slices.Clone(keyCodes), handCodes[0])
		for who, tok := range tokens {
			for _, path := range []string{"/admin/orders/" + keys.Str("orderId"), "/admin/orders?accountId=" + a.ID, "/admin/orders?limit=500",
				"/admin/orders/" + manual, "/admin/orders?trxid=" + keys.Str("trxid"), "/admin/orders/stuck", "/admin/actions?limit=500",
				"/admin/accounts/" + a.ID + "/ledger"} {
				r := h.AdminAs(tok, "GET", path, nil)
				if r.Status != http.StatusOK {
					t.Errorf("%s: GET %s: %v", who, path, r)
					continue
				}
				for _, code := range all {
					if strings.Contains(string(r.Raw), code) {
						t.Errorf("%s: GET %s shows the code %s in full", who, path, code)
					}
				}
			}
			o := h.AdminAs(tok, "GET", "/admin/orders/"+keys.Str("orderId"), nil)
			want := make([]string, len(keyCodes))
			for i, c := range keyCodes {
				want[i] = strings.Repeat("•", len([]rune(c))-4) + c[len(c)-4:]
			}
			if got := stringsOf(o.Body["codes"]); !slices.Equal(got, want) {
				t.Errorf("%s: the order's codes %q, want %q", who, got, want)
			}
		}

		for _, role := range []string{"finance", "support", "viewer"} {
			r := h.AdminAs(tokens[role], "GET", "/admin/orders/"+keys.Str("orderId")+"/codes", nil)
			wantFailure(t, r, http.StatusForbidden, "ROLE_FORBIDDEN", "ROLE FORBIDDEN")
			for _, code := range all {
				if strings.Contains(string(r.Raw), code) {
					t.Errorf("%s: the refusal shows %s", role, code)
				}
			}
		}
		seen := 0
		for _, c := range []struct {
			who, id string
			want    []string
		}{
			{"root", keys.Str("orderId"), keyCodes}, {"owner", keys.Str("orderId"), keyCodes}, {"owner", manual, handCodes},
		} {
			r := h.AdminAs(tokens[c.who], "GET", "/admin/orders/"+c.id+"/codes", nil)
			if r.Status != http.StatusOK || !slices.Equal(stringsOf(r.Body["codes"]), c.want) || r.Str("orderId") != c.id ||
				r.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("%s: the codes of %s: %v (Cache-Control %q), want %q", c.who, c.id, r, r.Header.Get("Cache-Control"), c.want)
			}
			seen++
		}
		wantFailure(t, h.AdminDo("GET", "/admin/orders/ord_nothing/codes", nil), http.StatusNotFound, "ORDER_NOT_FOUND", "ORDER NOT FOUND")

		log := h.AdminOK(http.StatusOK, "GET", "/admin/actions?action=order.codes-viewed", nil)
		var acts []struct {
			Operator, Target, Action string
			AccountID                string `json:"accountId"`
			Before, After            map[string]any
		}
		raw, _ := json.Marshal(log.Body["actions"])
		if err := json.Unmarshal(raw, &acts); err != nil {
			t.Fatal(err)
		}
		if len(acts) != seen {
			t.Fatalf("%d order.codes-viewed entries, want %d: %s", len(acts), seen, log.Raw)
		}
		wantTargets := []string{manual, keys.Str("orderId"), keys.Str("orderId")} // newest first
		for i, e := range acts {
			if e.Target != wantTargets[i] || e.AccountID != a.ID || e.Operator != []string{"op-owner", "op-owner", topupd.RootOperator}[i] {
				t.Errorf("entry %d: %+v, want target %s by the owner", i, e, wantTargets[i])
			}
		}
		for _, code := range all {
			if strings.Contains(string(log.Raw), code) {
				t.Errorf("the action log holds the code %s", code)
			}
		}

		// The reseller reads its own codes in full.
		if got := stringsOf(h.Do("GET", "/orders/"+keys.Str("orderId"), a.Key, nil).Body["codes"]); !slices.Equal(got, keyCodes) {
			t.Errorf("the reseller's own order shows %q, want %q", got, keyCodes)
		}
		h.AuditClean()
	})
}
