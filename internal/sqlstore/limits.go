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
