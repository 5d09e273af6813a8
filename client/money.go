package client

import (
	"errors"
	"strconv"
	"strings"
)

// MoneyScale is how many units of Money make one USD: the API's amounts
// have up to four decimals, so Money counts ten-thousandths of a dollar.
const MoneyScale = 10_000

// moneyDecimals is the number of decimal places MoneyScale allows.
const moneyDecimals = 4

// MaxMoney is the largest amount ParseMoney accepts (a trillion USD), as
// the server bounds them: far below int64 overflow, so that sums of many
// amounts cannot overflow either.
const MaxMoney Money = 1_000_000_000_000 * MoneyScale

// Money is an exact amount of USD: an integer count of ten-thousandths of a
// dollar (MoneyScale to the dollar). It is read from and written to JSON
// numbers as the server writes them, exactly, and never goes through
// floating point; sums of Money are exact too.
type Money int64

// ErrMoneySyntax reports text that is not a decimal number.
var ErrMoneySyntax = errors.New("money: not a decimal number")

// ErrMoneyPrecision reports an amount with more than four decimal places.
var ErrMoneyPrecision = errors.New("money: more than 4 decimal places")

// ErrMoneyRange reports an amount too large to hold.
var ErrMoneyRange = errors.New("money: out of range")

// USD returns whole dollars as Money.
func USD(dollars int64) Money { return Money(dollars * MoneyScale) }

// ParseMoney converts decimal text such as "0.89", or a JSON number's text
// ("1.5", "-0.25", "2e-2"), to Money exactly. It refuses more than four
// significant decimal places rather than rounding, as the server does.
func ParseMoney(s string) (Money, error) {
	if s == "" {
		return 0, ErrMoneySyntax
	}
	neg := false
	switch s[0] {
	case '-':
		neg = true
		s = s[1:]
	case '+':
		s = s[1:]
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || len(s[i+1:]) > 6 {
			return 0, ErrMoneySyntax
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" {
		return 0, ErrMoneySyntax
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, ErrMoneySyntax
		}
	}
	// value = digits × 10^(exp - len(frac)); Money is value × 10^4.
	shift := exp - len(frac) + moneyDecimals
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return 0, nil
	}
	if shift < 0 {
		cut := max(len(digits)+shift, 0)
		if strings.Trim(digits[cut:], "0") != "" {
			return 0, ErrMoneyPrecision
		}
		digits = digits[:cut]
		if digits == "" {
			return 0, nil
		}
	} else {
		if len(digits)+shift > 19 {
			return 0, ErrMoneyRange
		}
		digits += strings.Repeat("0", shift)
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > int64(MaxMoney) {
		return 0, ErrMoneyRange
	}
	if neg {
		n = -n
	}
	return Money(n), nil
}

// String renders the amount as a plain decimal number of USD with no
// trailing zeros ("12.5", "-0.0001", "3"), as the API writes it.
func (m Money) String() string { return string(m.appendDecimal(nil)) }

// appendDecimal appends m as String renders it.
func (m Money) appendDecimal(b []byte) []byte {
	n := uint64(m)
	if m < 0 {
		b = append(b, '-')
		n = -n // as unsigned, so that even the smallest int64 is exact
	}
	b = strconv.AppendUint(b, n/MoneyScale, 10)
	if f := n % MoneyScale; f != 0 {
		frac := strconv.FormatUint(f+MoneyScale, 10)[1:] // zero-padded to 4 digits
		b = append(b, '.')
		b = append(b, strings.TrimRight(frac, "0")...)
	}
	return b
}

// Dollars renders the amount as String does, with at least two decimals,
// as people read dollars and cents ("25.50", "0.0125", "-3.00").
func (m Money) Dollars() string {
	b := m.appendDecimal(nil)
	switch i := strings.IndexByte(string(b), '.'); {
	case i < 0:
		b = append(b, ".00"...)
	case len(b)-i == 2:
		b = append(b, '0')
	}
	return string(b)
}

// MarshalJSON writes the amount as an exact JSON number of USD.
func (m Money) MarshalJSON() ([]byte, error) { return m.appendDecimal(nil), nil }

// UnmarshalJSON reads a JSON number of USD exactly; strings are refused.
func (m *Money) UnmarshalJSON(data []byte) error {
	v, err := ParseMoney(string(data))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Times multiplies a unit price by a quantity, as the server prices an
// order of several codes; ok is false on overflow or a negative operand.
func (m Money) Times(q int) (Money, bool) {
	if q < 0 || m < 0 {
		return 0, false
	}
	if q != 0 && int64(m) > int64(MaxMoney)*10/int64(q) {
		return 0, false
	}
	return Money(int64(m) * int64(q)), true
}
