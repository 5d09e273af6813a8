package storetest

import (
	"errors"
	"testing"

	"github.com/topupd/topupd"
)

var rejectTests = []test{
	{"MoveNothing", testRejections},
}

// testRejections places every kind of refused order in one store, and checks
// after each that no money, stock or order moved, for any account.
func testRejections(t *testing.T, e *env) {
	e.catalog()
	rich := e.account("rich", topupd.USD(1000))
	poor := e.account("poor", priceTopup-1)
	twoKeys := e.account("two-keys", 2*priceKey)
	e.stock(pidKey, 5)
	// Earlier orders that requests below collide with.
	e.place(rich.ID, topup("T-EXIST"), t0)
	withKey := topup("T-IK")
	withKey.IdempotencyKey = "IK-EXIST"
	e.place(rich.ID, withKey, t0)
	e.place(rich.ID, keys(pidKey, "T-KEYS-EXIST", 2), t0)
	accounts := []string{rich.ID, poor.ID, twoKeys.ID}

	withFields := func(f topupd.AccountFields) topupd.OrderRequest {
		r := topup(e.uniq("T"))
		r.Fields = f
		return r
	}
	cases := []struct {
		name    string
		account string
		req     topupd.OrderRequest
		code    topupd.ErrorCode
		game    string // Error.Game, when the code carries it
	}{
		{"unknown pid", rich.ID, topupd.OrderRequest{PID: "nope", TrxID: "T-R1", Fields: topupd.AccountFields{UserID: userID}}, topupd.EUnknownPID, ""},
		{"pack disabled", rich.ID, topupd.OrderRequest{PID: pidTopupOff, TrxID: "T-R2", Fields: topupd.AccountFields{UserID: userID}}, topupd.EProductDisabled, ""},
		{"line disabled", rich.ID, topupd.OrderRequest{PID: pidLineOff, TrxID: "T-R3", Fields: topupd.AccountFields{UserID: userID}}, topupd.EGameDisabled, ""},
		{"userId missing", rich.ID, withFields(topupd.AccountFields{}), topupd.EInvalidRequest, ""},
		{"userId blank", rich.ID, withFields(topupd.AccountFields{UserID: "   "}), topupd.EInvalidRequest, ""},
		{"userId does not match the pattern", rich.ID, withFields(topupd.AccountFields{UserID: "12ab5678"}), topupd.EInvalidRequest, ""},
		{"userId only partly matches", rich.ID, withFields(topupd.AccountFields{UserID: "1234"}), topupd.EInvalidRequest, ""},
		{"zoneId missing", rich.ID, topupd.OrderRequest{PID: pidZone, TrxID: "T-R4", Fields: topupd.AccountFields{UserID: "1"}}, topupd.EInvalidRequest, ""},
		{"quantity on a topup", rich.ID, topupd.OrderRequest{PID: pidTopup, TrxID: "T-R5", Quantity: 2, Fields: topupd.AccountFields{UserID: userID}}, topupd.EQuantityOnlyStock, ""},
		{"quantity over the maximum", rich.ID, keys(pidKey, "T-R6", topupd.MaxQuantity+1), topupd.EQuantityExceedsMax, ""},
		{"balance short of a topup", poor.ID, topup("T-R7"), topupd.EInsufficientBalance, gameTopup},
		{"balance short of a quantity", twoKeys.ID, keys(pidKey, "T-R8", 3), topupd.EInsufficientBalance, gameKeys},
		{"stock short of the quantity", rich.ID, keys(pidKey, "T-R9", 4), topupd.EInsufficientStock, gameKeys},
		{"no stock at all", rich.ID, keys(pidCard, "T-R10", 1), topupd.EInsufficientStock, gameCards},
		{"trxid reused for another pid", rich.ID, topupd.OrderRequest{PID: pidZone, TrxID: "T-EXIST", Fields: topupd.AccountFields{UserID: userID, ZoneID: "1"}}, topupd.EIdempotencyReused, ""},
		{"trxid reused for another quantity", rich.ID, keys(pidKey, "T-KEYS-EXIST", 1), topupd.EIdempotencyReused, ""},
		{"trxid reused for another userId", rich.ID, topupd.OrderRequest{PID: pidTopup, TrxID: "T-EXIST", Fields: topupd.AccountFields{UserID: "87654321"}}, topupd.EIdempotencyReused, ""},
		{"trxid reused with a new idempotencyKey for another userId", rich.ID, topupd.OrderRequest{PID: pidTopup, TrxID: "T-EXIST", IdempotencyKey: "IK-NEW", Fields: topupd.AccountFields{UserID: "87654321"}}, topupd.EIdempotencyReused, ""},
		{"trxid of another account", twoKeys.ID, topup("T-EXIST"), topupd.EForbidden, ""},
		{"trxid of another account, different request", poor.ID, keys(pidKey, "T-KEYS-EXIST", 1), topupd.EForbidden, ""},
		{"idempotencyKey reused for another userId", rich.ID, topupd.OrderRequest{PID: pidTopup, TrxID: "T-OTHER", IdempotencyKey: "IK-EXIST", Fields: topupd.AccountFields{UserID: "87654321"}}, topupd.EIdempotencyReused, ""},
		{"idempotencyKey reused for another pid", rich.ID, topupd.OrderRequest{PID: pidZone, TrxID: "T-OTHER", IdempotencyKey: "IK-EXIST", Fields: topupd.AccountFields{UserID: userID, ZoneID: "1"}}, topupd.EIdempotencyReused, ""},
		{"a trxid's key reused as an idempotencyKey for another userId", rich.ID, topupd.OrderRequest{PID: pidTopup, TrxID: "T-OTHER-2", IdempotencyKey: "T-EXIST", Fields: topupd.AccountFields{UserID: "87654321"}}, topupd.EIdempotencyReused, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := e.in(t)
			before := e.snapshot(accounts...)
			o, replay, err := e.try(c.account, c.req)
			if err == nil {
				t.Errorf("PlaceOrder accepted (replay %v): %+v", replay, o)
			} else if codeIs(t, err, c.code, "PlaceOrder") && c.game != "" {
				var te *topupd.Error
				if !errors.As(err, &te) || te.Game != c.game {
					t.Errorf("Error.Game = %q, want %q", gameOf(err), c.game)
				}
			}
			if replay || o.ID != "" || o.Seq != 0 {
				t.Errorf("a rejected order came back as replay %v, order %q (seq %d); want no order", replay, o.ID, o.Seq)
			}
			e.unchanged(before, "a rejected order")
		})
	}
	// A rejected trxid is free for a request that can be placed.
	o := e.place(twoKeys.ID, keys(pidKey, "T-R8", 2), t0)
	if o.Status != topupd.StatusCompleted || len(o.Codes) != 2 {
		t.Errorf("re-using a rejected trxid: %s with %d codes, want completed with 2", o.Status, len(o.Codes))
	}
}

func gameOf(err error) string {
	var te *topupd.Error
	if errors.As(err, &te) {
		return te.Game
	}
	return ""
}
