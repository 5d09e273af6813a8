package clienttest_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// moneyInputs are texts on which the client's Money must agree with the
// server's: plain, signed, with exponents, at and past the limits.
var moneyInputs = []string{
	"0", "1", "-1", "+1", "0.89", "1.99", "0.0001", "-0.0001", "12.3400000", "1e2", "1.5E-2",
	"25e-4", ".5", "5.", "0.00", "-0", "0.00001", "1.23456", "1e-5", "", "abc", "1.2.3", "-", ".",
	"1e", "1e+2", "1e1234567", `"1"`, "1,5", "1e30", "99999999999999999999", "1000000000000",
	"1000000000000.0001", "-1000000000000", "0x10", " 1", "1 ", "١",
}

// FuzzClientMoney: the client reads every amount as the server does (the
// same value, or the same kind of refusal) and writes it back identically,
// so that neither side can see a different amount in the same JSON.
func FuzzClientMoney(f *testing.F) {
	for _, s := range moneyInputs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, werr := topupd.ParseMoney(s)
		got, gerr := client.ParseMoney(s)
		if int64(got) != int64(want) || moneyErr(gerr) != moneyErr(werr) {
			t.Fatalf("ParseMoney(%q): client %d, %v; server %d, %v", s, got, gerr, want, werr)
		}
		if werr != nil {
			return
		}
		wb, _ := json.Marshal(want)
		gb, _ := json.Marshal(got)
		if string(gb) != string(wb) || got.String() != want.String() || got.Dollars() != want.Dollars() {
			t.Fatalf("%q: the client writes %s (%s, %s), the server %s (%s, %s)", s, gb, got, got.Dollars(), wb, want, want.Dollars())
		}
		for _, q := range []int{0, 1, 3, 500} {
			gq, gok := got.Times(q)
			wq, wok := want.Times(q)
			if int64(gq) != int64(wq) || gok != wok {
				t.Fatalf("%q × %d: client %d %v, server %d %v", s, q, gq, gok, wq, wok)
			}
		}
	})
}

// moneyErr names which of the money errors err is.
func moneyErr(err error) string {
	switch {
	case err == nil:
		return "nil"
	case errors.Is(err, topupd.ErrMoneySyntax), errors.Is(err, client.ErrMoneySyntax):
		return "syntax"
	case errors.Is(err, topupd.ErrMoneyPrecision), errors.Is(err, client.ErrMoneyPrecision):
		return "precision"
	case errors.Is(err, topupd.ErrMoneyRange), errors.Is(err, client.ErrMoneyRange):
		return "range"
	}
	return "other: " + err.Error()
}

// TestClientConstants: the values the client spells out for itself are
// the server's.
func TestClientConstants(t *testing.T) {
	if client.MoneyScale != topupd.MoneyScale {
		t.Errorf("client.MoneyScale = %d, the server's %d", client.MoneyScale, topupd.MoneyScale)
	}
	if client.DurationOverflow != topupd.DurationOverflow {
		t.Errorf("client.DurationOverflow = %v, the server's %v", client.DurationOverflow, topupd.DurationOverflow)
	}
	if int64(client.USD(7)) != int64(topupd.USD(7)) {
		t.Errorf("client.USD(7) = %d, the server's %d", client.USD(7), topupd.USD(7))
	}
}
