package httpapi_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// checked is the body of a player check's 200 answer.
type checked map[string]any

var (
	notSupported  = checked{"success": true, "supported": false}
	invalidPlayer = checked{"success": true, "valid": false, "error": "INVALID PLAYER"}
)

// validPlayer is the answer for a valid player named nickname.
func validPlayer(nickname string) checked {
	return checked{"success": true, "valid": true, "nickname": nickname}
}

// wantChecked checks a 200 answer of POST /players/check exactly.
func wantChecked(t *testing.T, r topupdtest.Reply, want checked) {
	t.Helper()
	if r.Status != 200 {
		t.Errorf("status %d, want 200; body %s", r.Status, r.Raw)
		return
	}
	if diff := cmp.Diff(map[string]any(want), r.Body); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
}

// TestPlayerCheckSim: the sim supplier checks by its rules, on every order
// shape; manual packs and packs drawing from stock cannot be checked; a
// trxid sent anyway is ignored; nothing is charged or recorded.
func TestPlayerCheckSim(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		a := h.NewAccount("100", nil)
		before := h.Snapshot(a)
		actions := len(h.AdminOK(200, "GET", "/admin/actions?limit=200", nil).Body["actions"].([]any))
		rows := []struct {
			name string
			body order
			want checked
		}{
			{"valid", order{"pid": topupdtest.PIDPubg, "userId": "5123456789"}, validPlayer("Player6789")},
			{"9999 is not valid", order{"pid": topupdtest.PIDPubg, "userId": "99995123"}, invalidPlayer},
			{"9999 alone is not valid", order{"pid": topupdtest.PIDFF, "userId": "99990"}, invalidPlayer},
			{"fewer than 4 characters", order{"pid": topupdtest.PIDPubg, "userId": "abc"}, validPlayer("Playerabc")},
			{"the last 4 characters, not bytes", order{"pid": topupdtest.PIDPubg, "userId": "игрок"}, validPlayer("Playerгрок")},
			{"Riot ID", order{"pid": topupdtest.PIDValorant, "userId": "player#EUW"}, validPlayer("Player#EUW")},
			{"zone", order{"pid": topupdtest.PIDMLBB, "userId": "12345678", "zoneId": 2001}, validPlayer("Player5678")},
			{"server", order{"pid": topupdtest.PIDWW, "userId": "800123", "serverId": "europe"}, validPlayer("Player0123")},
			{"region as serverId", order{"pid": topupdtest.PIDOH, "userId": "abc123", "serverId": "eu", "moreId": "s-1"}, validPlayer("Playerc123")},
			{"aliases", order{"PID": topupdtest.PIDPubg, "userID": "5123456789"}, validPlayer("Player6789")},
			{"a trxid is ignored", order{"pid": topupdtest.PIDPubg, "trxid": "shop-1", "userId": "5123456789"}, validPlayer("Player6789")},
			{"manual pack", order{"pid": topupdtest.PIDPubgManual, "userId": "5123456789"}, notSupported},
			{"key pack", order{"pid": topupdtest.PIDKey}, notSupported},
			{"gift cards", order{"pid": topupdtest.PIDGift, "quantity": 2}, notSupported},
			{"stock-based top-up", order{"pid": topupdtest.PIDPubgCodes, "userId": "5123456789"}, notSupported},
		}
		for _, tc := range rows {
			t.Run(tc.name, func(t *testing.T) {
				wantChecked(t, h.Do("POST", "/players/check", a.Key, tc.body), tc.want)
			})
		}
		if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
			t.Errorf("checks moved something (-before +after):\n%s", diff)
		}
		if n := len(h.AdminOK(200, "GET", "/admin/actions?limit=200", nil).Body["actions"].([]any)); n != actions {
			t.Errorf("the action log went from %d to %d entries", actions, n)
		}
		// The trxid a check carried was not taken.
		h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": "shop-1", "userId": "5123456789"})
	})
}

// TestPlayerCheckRefusedAsOrders: every body POST /orders refuses is
// refused by POST /players/check with the same status, code and error
// (the check's body is the order's without its trxid).
func TestPlayerCheckRefusedAsOrders(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("100", nil)
	invalidBody := errorBody{400, "INVALID_BODY", "INVALID BODY"}
	invalidRequest := errorBody{400, "INVALID_REQUEST", "INVALID REQUEST"}
	pubg := func(extra order) order {
		o := order{"pid": topupdtest.PIDPubg, "userId": "51234"}
		for k, v := range extra {
			if v == nil {
				delete(o, k)
			} else {
				o[k] = v
			}
		}
		return o
	}
	rows := []struct {
		name string
		body any // an order (a trxid is added for POST /orders) or a RawBody
		want errorBody
	}{
		{"not JSON", topupdtest.RawBody(`{"pid":`), errorBody{401, "", "INVALID JSON"}},
		{"body is an array", topupdtest.RawBody(`[{"pid":"pubg-60"}]`), invalidBody},
		{"a member twice", topupdtest.RawBody(`{"pid":"pubg-60","userId":"1","userId":"2"}`), invalidBody},
		{"pid as an object", pubg(order{"pid": map[string]any{"id": topupdtest.PIDPubg}}), invalidBody},
		{"userId as an object", pubg(order{"userId": map[string]any{}}), invalidBody},
		{"pid and PID disagree", pubg(order{"PID": topupdtest.PIDPubgBig}), invalidBody},
		{"userId with a control character", pubg(order{"userId": "51\n234"}), invalidBody},
		{"quantity as a word", order{"pid": topupdtest.PIDKey, "quantity": "x"}, invalidBody},
		{"quantity zero", order{"pid": topupdtest.PIDKey, "quantity": 0}, invalidBody},
		{"empty object", order{}, invalidRequest},
		{"missing pid", pubg(order{"pid": nil}), invalidRequest},
		{"missing userId", pubg(order{"userId": nil}), invalidRequest},
		{"blank userId", pubg(order{"userId": "   "}), invalidRequest},
		{"Free Fire userId with letters", order{"pid": topupdtest.PIDFF, "userId": "12ab567"}, invalidRequest},
		{"Riot ID without tag", order{"pid": topupdtest.PIDValorant, "userId": "player"}, invalidRequest},
		{"zone line without zoneId", order{"pid": topupdtest.PIDMLBB, "userId": "1234"}, invalidRequest},
		{"server line with an unknown server", order{"pid": topupdtest.PIDWW, "userId": "1234", "serverId": "mars"}, invalidRequest},
		{"Once Human without moreId", order{"pid": topupdtest.PIDOH, "userId": "1234", "region": "eu"}, invalidRequest},
		{"unknown pid", pubg(order{"pid": "no-such-pack"}), errorBody{400, "UNKNOWN_PID", "UNKNOWN PID"}},
		{"line disabled", order{"pid": topupdtest.PIDRetired, "userId": "1234"}, errorBody{400, "GAME_DISABLED", "GAME DISABLED"}},
		{"pack disabled", pubg(order{"pid": topupdtest.PIDPubgOld}), errorBody{400, "PRODUCT_DISABLED", "PRODUCT DISABLED"}},
		{"key pack disabled", order{"pid": topupdtest.PIDKeyOld}, errorBody{400, "PRODUCT_DISABLED", "PRODUCT DISABLED"}},
		{"pack whose price × quantity overflows", order{"pid": topupdtest.PIDHuge, "quantity": 200}, errorBody{400, "INVALID_PACK", "INVALID PACK"}},
		{"quantity on a top-up", pubg(order{"quantity": 2}), errorBody{400, "QUANTITY_ONLY_FOR_GAMEKEY_OR_GIFTCARD", "QUANTITY ONLY FOR GAMEKEY OR GIFTCARD"}},
		{"quantity 501", order{"pid": topupdtest.PIDKey, "quantity": 501}, errorBody{400, "QUANTITY_EXCEEDS_MAX", "QUANTITY EXCEEDS MAX"}},
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			before := h.Snapshot(a)
			orderBody := tc.body
			if o, ok := tc.body.(order); ok {
				withTrx := maps.Clone(o)
				withTrx["trxid"] = h.Trx()
				orderBody = withTrx
			}
			if diff := cmp.Diff(tc.want, errorOf(h.Do("POST", "/orders", a.Key, orderBody))); diff != "" {
				t.Fatalf("POST /orders: the row is wrong (-want +got):\n%s", diff)
			}
			r := h.Do("POST", "/players/check", a.Key, tc.body)
			wantFailure(t, r, tc.want.Status, tc.want.Code, tc.want.Error)
			if r.Has("valid") || r.Has("supported") {
				t.Errorf("a refusal carries a check's answer: %s", r.Raw)
			}
			if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
				t.Errorf("the refusals moved something (-before +after):\n%s", diff)
			}
		})
	}
}

// TestPlayerCheckSimOff: with --sim off, a sim pack is refused as its
// order is (PRODUCT_DISABLED), whatever the player.
func TestPlayerCheckSimOff(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	off := topupdtest.New(t, topupdtest.WithSimOff(), topupdtest.WithDB(h.DB), topupdtest.WithSecretKey(h.SecretKey))
	a := h.NewAccount("100", nil)
	body := order{"pid": topupdtest.PIDPubg, "userId": "5123456789"}
	wantChecked(t, h.Do("POST", "/players/check", a.Key, body), validPlayer("Player6789"))
	r := off.Do("POST", "/players/check", a.Key, body)
	wantFailure(t, r, 400, "PRODUCT_DISABLED", "PRODUCT DISABLED")
	wantChecked(t, off.Do("POST", "/players/check", a.Key, order{"pid": topupdtest.PIDPubgManual, "userId": "5123"}), notSupported)
}

// TestPlayerCheckRateLimited: checks count against the account's rate
// limits like every other call.
func TestPlayerCheckRateLimited(t *testing.T) {
	t.Parallel()
	clock := topupdtest.NewClock()
	h := topupdtest.New(t, topupdtest.WithClock(clock), topupdtest.WithRates(3, 200))
	h.LoadCatalog()
	a := h.NewAccount("100", nil)
	body := order{"pid": topupdtest.PIDPubg, "userId": "5123456789"}
	wantChecked(t, h.Do("POST", "/players/check", a.Key, body), validPlayer("Player6789"))
	mustPass(t, h.Do("GET", "/balance", a.Key, nil), "GET /balance")
	wantChecked(t, h.Do("POST", "/players/check", a.Key, body), validPlayer("Player6789"))
	if diff := cmp.Diff(wantLimited("1"), limitedOf(h.Do("POST", "/players/check", a.Key, body))); diff != "" {
		t.Errorf("the 4th call in a second, a check (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantLimited("1"), limitedOf(h.Do("GET", "/balance", a.Key, nil))); diff != "" {
		t.Errorf("the 5th call in a second (-want +got):\n%s", diff)
	}
	clock.Advance(1e9)
	wantChecked(t, h.Do("POST", "/players/check", a.Key, body), validPlayer("Player6789"))
}

// noDetailLeak fails when a failure's detail names a supplier's address.
func noDetailLeak(t *testing.T, r topupdtest.Reply) {
	t.Helper()
	if d := r.Str("detail"); strings.Contains(d, "127.0.0.1") || strings.Contains(d, "http") {
		t.Errorf("the detail names a supplier: %q", d)
	}
}
