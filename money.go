package topupd

import "github.com/topupd/topupd/client"

// Money is an amount of USD as an integer count of ten-thousandths of a
// dollar; it is never converted through floating point. It is the client's
// Money: the server and the Go client read and write the API's amounts
// with one implementation, so neither can see a different amount in the
// same JSON (the client module needs only the standard library, so the
// server imports it, never the reverse).
type Money = client.Money

// MoneyScale is how many minor units make one USD: amounts are kept in
// ten-thousandths of a dollar.
const MoneyScale = client.MoneyScale

// MaxMoney is the largest amount ParseMoney accepts, far below int64
// overflow, so that sums of many amounts cannot overflow either.
const MaxMoney = client.MaxMoney

// The errors of ParseMoney and of reading Money from JSON.
var (
	// ErrMoneySyntax reports text that is not a decimal number.
	ErrMoneySyntax = client.ErrMoneySyntax
	// ErrMoneyPrecision reports an amount with more than four decimal places.
	ErrMoneyPrecision = client.ErrMoneyPrecision
	// ErrMoneyRange reports an amount too large to hold.
	ErrMoneyRange = client.ErrMoneyRange
)

// USD returns whole dollars as Money.
func USD(dollars int64) Money { return client.USD(dollars) }

// ParseMoney converts a JSON number (or its text) to Money exactly. It
// accepts a sign, a fraction and an exponent ("1.5", "-0.25", "2e-2"); it
// refuses more than four significant decimal places rather than rounding.
func ParseMoney(s string) (Money, error) { return client.ParseMoney(s) }
