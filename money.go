package topupd

import (
	"errors"
	"strconv"
	"strings"
)

// MoneyScale is how many minor units make one USD: amounts are kept in
// ten-thousandths of a dollar.
const MoneyScale = 10_000

// moneyDecimals is the number of decimal places MoneyScale allows.
const moneyDecimals = 4

// Money is an amount of USD as an integer count of ten-thousandths of a dollar.
// It is never converted through floating point.
type Money int64

// ErrMoneySyntax reports text that is not a decimal number.
var ErrMoneySyntax = errors.New("money: not a decimal number")

// ErrMoneyPrecision reports an amount with more decimals than MoneyScale allows.
var ErrMoneyPrecision = errors.New("money: more than 4 decimal places")

// ErrMoneyRange reports an amount too large to hold.
var ErrMoneyRange = errors.New("money: out of range")

// maxMoneyUSD bounds parsed amounts far below int64 overflow, so that sums of
// many amounts (quantity × price, ledger totals) cannot overflow either.
const maxMoneyUSD = 1_000_000_000_000

// USD returns whole dollars as Money.
func USD(dollars int64) Money { return Money(dollars * MoneyScale) }

// ParseMoney converts a JSON number (or its text) to Money exactly. It accepts
// a sign, a fraction and an exponent ("1.5", "-0.25", "2e-2"); it refuses more
// than four significant decimal places rather than rounding.
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
	intPart, frac, hasDot := strings.Cut(mant, ".")
	if intPart == "" && frac == "" || (hasDot && frac == "" && intPart == "") {
		return 0, ErrMoneySyntax
	}
	digits := intPart + frac
	if digits == "" {
		return 0, ErrMoneySyntax
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, ErrMoneySyntax
		}
	}
	// value = digits × 10^(exp - len(frac)); we want value × 10^4.
	shift := exp - len(frac) + moneyDecimals
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return 0, nil
	}
	if shift < 0 {
		cut := len(digits) + shift
		if cut < 0 {
			cut = 0
		}
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
	if err != nil || n > maxMoneyUSD*MoneyScale {
		return 0, ErrMoneyRange
	}
	if neg {
		n = -n
	}
	return Money(n), nil
}

// String renders the amount as a plain decimal number of USD with no trailing
// zeros ("12.5", "-0.0001", "3").
func (m Money) String() string {
	var b []byte
	return string(m.appendDecimal(b))
}

func (m Money) appendDecimal(b []byte) []byte {
	n := int64(m)
	if n < 0 {
		b = append(b, '-')
		n = -n // |n| ≤ maxMoneyUSD×scale in practice; MinInt64 is never produced by ParseMoney
	}
	b = strconv.AppendInt(b, n/MoneyScale, 10)
	if f := n % MoneyScale; f != 0 {
		frac := strconv.FormatInt(f+MoneyScale, 10)[1:] // zero-padded to 4 digits
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

// Times multiplies a unit price by a quantity; ok is false on overflow.
func (m Money) Times(q int) (Money, bool) {
	if q < 0 || m < 0 {
		return 0, false
	}
	if q != 0 && int64(m) > maxMoneyUSD*MoneyScale*10/int64(q) {
		return 0, false
	}
	return Money(int64(m) * int64(q)), true
}
