package client_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/topupd/topupd/client"
)

func TestParseMoney(t *testing.T) {
	tests := []struct {
		in   string
		want client.Money
		err  error
	}{
		{"0", 0, nil},
		{"1", 10000, nil},
		{"1.99", 19900, nil},
		{"0.1", 1000, nil},
		{"0.0001", 1, nil},
		{"-0.0001", -1, nil},
		{"+2", 20000, nil},
		{"12.3400000", 123400, nil},
		{"1e2", 1000000, nil},
		{"1.5E-2", 150, nil},
		{"25e-4", 25, nil},
		{"0.00", 0, nil},
		{".5", 5000, nil},
		{"5.", 50000, nil},
		{"0.00001", 0, client.ErrMoneyPrecision},
		{"1.23456", 0, client.ErrMoneyPrecision},
		{"1e-5", 0, client.ErrMoneyPrecision},
		{"", 0, client.ErrMoneySyntax},
		{"abc", 0, client.ErrMoneySyntax},
		{"1.2.3", 0, client.ErrMoneySyntax},
		{"-", 0, client.ErrMoneySyntax},
		{".", 0, client.ErrMoneySyntax},
		{"1e", 0, client.ErrMoneySyntax},
		{"1e1234567", 0, client.ErrMoneySyntax},
		{"\"1\"", 0, client.ErrMoneySyntax},
		{"1,5", 0, client.ErrMoneySyntax},
		{"1e30", 0, client.ErrMoneyRange},
		{"99999999999999999999", 0, client.ErrMoneyRange},
		{"1000000000000", 1000000000000 * client.MoneyScale, nil},
		{"1000000000000.0001", 0, client.ErrMoneyRange},
	}
	for _, tt := range tests {
		got, err := client.ParseMoney(tt.in)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("ParseMoney(%q) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// TestMoneyTenCents is the sum that float arithmetic gets wrong.
func TestMoneyTenCents(t *testing.T) {
	dime, err := client.ParseMoney("0.10")
	if err != nil {
		t.Fatal(err)
	}
	if got := (dime + dime + dime).String(); got != "0.3" {
		t.Fatalf("0.10×3 = %s, want 0.3", got)
	}
}

// TestMoneyJSON: amounts are written as the server writes them, plain
// exact numbers, and read back to the same value; strings are refused.
func TestMoneyJSON(t *testing.T) {
	for m, want := range map[client.Money]string{
		0: "0", 1: "0.0001", -1: "-0.0001", 9999: "0.9999", 10000: "1", 123456789: "12345.6789",
		-50000: "-5", 19900: "1.99", 255_000: "25.5",
	} {
		b, err := json.Marshal(m)
		if err != nil || string(b) != want {
			t.Errorf("Marshal(%d) = %s, %v; want %s", m, b, err, want)
		}
		var back client.Money
		if err := json.Unmarshal(b, &back); err != nil || back != m {
			t.Errorf("Unmarshal(%s) = %d, %v; want %d", b, back, err, m)
		}
	}
	var m client.Money
	if err := json.Unmarshal([]byte(`"1.5"`), &m); err == nil {
		t.Errorf(`Unmarshal("1.5") = %d, want an error`, m)
	}
	if err := json.Unmarshal([]byte(`1.23456`), &m); !errors.Is(err, client.ErrMoneyPrecision) {
		t.Errorf("Unmarshal(1.23456): %v, want %v", err, client.ErrMoneyPrecision)
	}
}

func TestMoneyTimes(t *testing.T) {
	if got, ok := client.Money(19900).Times(3); !ok || got != 59700 {
		t.Errorf("1.99×3 = %v %v", got, ok)
	}
	if _, ok := client.USD(1_000_000_000_000).Times(500); ok {
		t.Error("overflow not caught")
	}
	if _, ok := client.Money(-1).Times(2); ok {
		t.Error("a negative price multiplied")
	}
}

// TestMoneyDollars: at least two decimals, and every decimal kept.
func TestMoneyDollars(t *testing.T) {
	for m, want := range map[client.Money]string{
		0: "0.00", client.USD(3): "3.00", 255_000: "25.50", 125: "0.0125", -client.USD(3): "-3.00", 12_345: "1.2345", -5000: "-0.50",
	} {
		if got := m.Dollars(); got != want {
			t.Errorf("Money(%d).Dollars() = %q, want %q", m, got, want)
		}
	}
}
