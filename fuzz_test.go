package topupd

import (
	"math/big"
	"strings"
	"testing"
)

// FuzzParseMoney checks ParseMoney against exact rational arithmetic: an
// accepted amount is exactly the decimal it was parsed from, renders back to
// an equal amount, and a refused one really has too many decimals, is out of
// range, or is not a number.
func FuzzParseMoney(f *testing.F) {
	for _, s := range []string{"0", "1.99", "-0.0001", "1e2", "1.5E-2", "0.00001", "12.3400", "1e30", "abc", "", "-", "1.", ".5", "+3", "0e-9999"} {
		f.Add(s)
	}
	scale := big.NewRat(MoneyScale, 1)
	limit := new(big.Rat).SetInt64(maxMoneyUSD)
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMoney(s)
		exact, ok := new(big.Rat).SetString(s)
		if strings.ContainsAny(s, "/xXpP_ \t\n") || strings.HasPrefix(strings.TrimLeft(s, "+-"), "0x") {
			ok = false // big.Rat takes fractions and hex; JSON numbers have neither
		}
		if err != nil {
			if !ok {
				return
			}
			scaled := new(big.Rat).Mul(exact, scale)
			if scaled.IsInt() && new(big.Rat).Abs(exact).Cmp(limit) <= 0 && err != ErrMoneySyntax {
				t.Fatalf("ParseMoney(%q) refused %v with %v", s, exact, err)
			}
			return
		}
		if !ok {
			t.Fatalf("ParseMoney(%q) = %d but it is not a number", s, m)
		}
		if got := new(big.Rat).SetFrac64(int64(m), MoneyScale); got.Cmp(exact) != 0 {
			t.Fatalf("ParseMoney(%q) = %v, want %v", s, got, exact)
		}
		back, err := ParseMoney(m.String())
		if err != nil || back != m {
			t.Fatalf("round trip of %q: %q -> %d, %v", s, m.String(), back, err)
		}
	})
}

// FuzzParseAPIKey checks that only keys of the exact form are accepted and
// that nothing panics.
func FuzzParseAPIKey(f *testing.F) {
	key, _ := NewAPIKey()
	for _, s := range []string{key, "", "tpd_", "tpd_short", key + "x", strings.ToUpper(key), "tpd_" + strings.Repeat("é", 43)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseAPIKey(s)
		if err != nil {
			if CodeOf(err) != EKeyFormat {
				t.Fatalf("ParseAPIKey(%q): code %v", s, CodeOf(err))
			}
			return
		}
		if len(s) != len(APIKeyPrefix)+apiKeyBody || !strings.HasPrefix(s, APIKeyPrefix) {
			t.Fatalf("ParseAPIKey accepted %q", s)
		}
		if h == (KeyHash{}) {
			t.Fatal("zero hash")
		}
	})
}
