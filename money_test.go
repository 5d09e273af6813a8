package topupd

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestParseMoney(t *testing.T) {
	tests := []struct {
		in   string
		want Money
		err  error
	}{
		{"0", 0, nil},
		{"1", 10000, nil},
		{"1.99", 19900, nil},
		{"0.1", 1000, nil},
		{"0.0001", 1, nil},
		{"-0.0001", -1, nil},
		{"12.3400000", 123400, nil},
		{"1e2", 1000000, nil},
		{"1.5E-2", 150, nil},
		{"25e-4", 25, nil},
		{"0.00001", 0, ErrMoneyPrecision},
		{"1.23456", 0, ErrMoneyPrecision},
		{"1e-5", 0, ErrMoneyPrecision},
		{"", 0, ErrMoneySyntax},
		{"abc", 0, ErrMoneySyntax},
		{"1.2.3", 0, ErrMoneySyntax},
		{"-", 0, ErrMoneySyntax},
		{".", 0, ErrMoneySyntax},
		{"1e", 0, ErrMoneySyntax},
		{"\"1\"", 0, ErrMoneySyntax},
		{"1e30", 0, ErrMoneyRange},
		{"99999999999999999999", 0, ErrMoneyRange},
		{"1000000000000", 1000000000000 * MoneyScale, nil},
		{"1000000000000.0001", 0, ErrMoneyRange},
	}
	for _, tt := range tests {
		got, err := ParseMoney(tt.in)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("ParseMoney(%q) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// TestMoneyTenCents is the sum that float arithmetic gets wrong.
func TestMoneyTenCents(t *testing.T) {
	dime, err := ParseMoney("0.10")
	if err != nil {
		t.Fatal(err)
	}
	if got := (dime + dime + dime).String(); got != "0.3" {
		t.Fatalf("0.10×3 = %s, want 0.3", got)
	}
}

func TestMoneyJSONRoundTrip(t *testing.T) {
	for _, m := range []Money{0, 1, -1, 9999, 10000, 123456789, -50000, 19900} {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var back Money
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("unmarshal %s: %v", b, err)
		}
		if back != m {
			t.Errorf("%d -> %s -> %d", m, b, back)
		}
	}
	if got, _ := json.Marshal(Money(19900)); string(got) != "1.99" {
		t.Errorf("Marshal(1.99) = %s", got)
	}
}

func TestMoneyTimes(t *testing.T) {
	if got, ok := Money(19900).Times(3); !ok || got != 59700 {
		t.Errorf("1.99×3 = %v %v", got, ok)
	}
	if _, ok := Money(maxMoneyUSD * MoneyScale).Times(500); ok {
		t.Error("overflow not caught")
	}
}

// TestMoneyDollars: at least two decimals, and every decimal kept.
func TestMoneyDollars(t *testing.T) {
	for m, want := range map[Money]string{0: "0.00", USD(3): "3.00", 255_000: "25.50", 125: "0.0125", -USD(3): "-3.00", 12_345: "1.2345", -5000: "-0.50"} {
		if got := m.Dollars(); got != want {
			t.Errorf("Money(%d).Dollars() = %q, want %q", m, got, want)
		}
	}
}
