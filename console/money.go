package console

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/topupd/topupd"
)

// usdText writes an amount as people read dollars: "$1,234.56",
// "-$0.50", "$0.0125" (a fraction of a cent is kept, never rounded).
func usdText(m topupd.Money) string {
	d := m.Dollars()
	sign := ""
	if strings.HasPrefix(d, "-") {
		sign, d = "-", d[1:]
	}
	whole, frac, _ := strings.Cut(d, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + "$" + b.String() + "." + frac
}

// amountRe is an amount as the console's forms take it: an optional
// minus, an optional "$", whole dollars (plain, or with commas between
// thousands) and an optional fraction. No exponent, no spaces inside.
var amountRe = regexp.MustCompile(`^(-?)\$?([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.([0-9]+))?$`)

// Decimal places a form's amount may have: dollars and cents for credits,
// limits and prices (every price charged is whole cents, back-office.md
// 4 (a)); costs as finely as the admin API keeps them, so that a pack
// costing 0.0125 can be saved again from its own form.
const (
	centPlaces  = 2
	pricePlaces = 4
)

// parseAmount reads an amount typed into a form, as plain decimal dollars
// with at most places decimals ("1,500", "$25.50", "-10"), exactly, by
// the domain's ParseMoney. A refusal is a message (problem is not "")
// that says in plain words what to type.
func parseAmount(text string, places int) (amount topupd.Money, problem string) {
	v := strings.TrimSpace(text)
	example := "such as 25.00 or 1,500"
	if places > centPlaces {
		example = "such as 0.89 or 1,500"
	}
	m := amountRe.FindStringSubmatch(v)
	switch {
	case v == "":
		return 0, fmt.Sprintf("Enter an amount in dollars, %s.", example)
	case m == nil:
		return 0, fmt.Sprintf("“%s” is not an amount in dollars. Type digits with a point for the cents, %s (no letters or exponents).", v, example)
	case len(m[3]) > places:
		return 0, fmt.Sprintf("“%s” has more than %d decimal places: dollars and cents have %d.", v, places, places)
	}
	amount, err := topupd.ParseMoney(m[1] + strings.ReplaceAll(m[2], ",", "") + "." + m[3] + "0")
	if errors.Is(err, topupd.ErrMoneyRange) {
		return 0, fmt.Sprintf("“%s” is more than the largest amount, %s.", v, usdText(topupd.MaxMoney))
	} else if err != nil {
		return 0, fmt.Sprintf("“%s” is not an amount in dollars, %s.", v, example)
	}
	return amount, ""
}
