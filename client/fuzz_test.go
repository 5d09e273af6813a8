package client_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/topupd/topupd/client"
)

// FuzzParseMoney checks ParseMoney against exact rational arithmetic (the
// server's topupd.Money is this Money): an accepted amount is exactly the
// decimal it was parsed from and renders back to itself; a refused one
// really has too many decimals, is out of range, or is not a number.
func FuzzParseMoney(f *testing.F) {
	for _, s := range []string{"0", "1.99", "-0.0001", "1e2", "1.5E-2", "0.00001", "12.3400", "1e30", "abc", "", "-", "1.", ".5", "+3", "0e-9999"} {
		f.Add(s)
	}
	scale := big.NewRat(client.MoneyScale, 1)
	limit := big.NewRat(int64(client.MaxMoney), client.MoneyScale)
	f.Fuzz(func(t *testing.T, s string) {
		m, err := client.ParseMoney(s)
		exact, ok := new(big.Rat).SetString(s)
		if strings.ContainsAny(s, "/xXpP_ \t\n") || strings.HasPrefix(strings.TrimLeft(s, "+-"), "0x") {
			ok = false // big.Rat takes fractions and hex; JSON numbers have neither
		}
		if err != nil {
			if !ok {
				return
			}
			scaled := new(big.Rat).Mul(exact, scale)
			if scaled.IsInt() && new(big.Rat).Abs(exact).Cmp(limit) <= 0 && err != client.ErrMoneySyntax {
				t.Fatalf("ParseMoney(%q) refused %v with %v", s, exact, err)
			}
			return
		}
		if !ok {
			t.Fatalf("ParseMoney(%q) = %d but it is not a number", s, m)
		}
		if got := new(big.Rat).SetFrac64(int64(m), client.MoneyScale); got.Cmp(exact) != 0 {
			t.Fatalf("ParseMoney(%q) = %v, want %v", s, got, exact)
		}
		back, err := client.ParseMoney(m.String())
		if err != nil || back != m {
			t.Fatalf("round trip of %q: %q -> %d, %v", s, m.String(), back, err)
		}
	})
}
