package sqlstore

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/topupd/topupd"
)

// The spending limits are columns of accounts, one a topupd.LimitSetting,
// read and written here by the registry: no query names them.

// limitColumns lists the limits' columns, each after prefix ("a.").
func limitColumns(prefix string) string {
	cols := make([]string, len(topupd.LimitSettings))
	for i, l := range topupd.LimitSettings {
		cols[i] = prefix + l.Column
	}
	return strings.Join(cols, ", ")
}

// limitAssignments sets the limits' columns from the placeholders from
// $first on, in limitArgs's order.
func limitAssignments(first int) string {
	sets := make([]string, len(topupd.LimitSettings))
	for i, l := range topupd.LimitSettings {
		sets[i] = fmt.Sprintf("%s = $%d", l.Column, first+i)
	}
	return strings.Join(sets, ", ")
}

// limitArgs are the limits' values for their columns, in limitColumns's
// order.
func limitArgs(l topupd.Limits) []any {
	args := make([]any, len(topupd.LimitSettings))
	for i, s := range topupd.LimitSettings {
		args[i] = moneyOrNull(*s.Of(&l))
	}
	return args
}

// limitsRow holds the limits' columns as scanned.
type limitsRow []sql.NullInt64

// dest is where a scan puts the limits' columns, in limitColumns's order.
func (r *limitsRow) dest() []any {
	*r = make(limitsRow, len(topupd.LimitSettings))
	out := make([]any, len(*r))
	for i := range *r {
		out[i] = &(*r)[i]
	}
	return out
}

// limits are the limits scanned.
func (r limitsRow) limits() topupd.Limits {
	var l topupd.Limits
	for i, s := range topupd.LimitSettings {
		if i < len(r) {
			*s.Of(&l) = nullMoney(r[i])
		}
	}
	return l
}

// limitsAuditSQL is the audit's check of the spending limits: the orders
// placed since an account's limits were set above a PerOrder limit, and
// the days with such an order whose charges, net of refunds, are above a
// PerDay limit.
func limitsAuditSQL() string {
	var parts []string
	for _, l := range topupd.LimitSettings {
		switch l.Per {
		case topupd.PerOrder:
			parts = append(parts, fmt.Sprintf(`SELECT o.id FROM orders o JOIN accounts a ON a.id = o.account_id
		WHERE o.account_seq > a.limits_from_seq AND o.amount > a.%s`, l.Column))
		case topupd.PerDay:
			parts = append(parts, fmt.Sprintf(`SELECT a.id || ' ' || CAST(d.day AS TEXT) FROM accounts a JOIN sales_daily d ON d.account_id = a.id
		WHERE a.%[1]s IS NOT NULL AND EXISTS (SELECT 1 FROM orders o
			WHERE o.account_id = a.id AND o.account_seq > a.limits_from_seq AND o.created_at / 86400000 = d.day)
		GROUP BY a.id, d.day, a.%[1]s HAVING SUM(d.charged - d.refunds) > a.%[1]s`, l.Column))
		default:
			panic(fmt.Sprintf("sqlstore: limit %s: no audit for its kind %d", l.Name, l.Per))
		}
	}
	return strings.Join(parts, "\n\t\tUNION ALL ")
}
