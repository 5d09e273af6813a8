package sqlstore

import (
	"strconv"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// conds builds the WHERE clause of a list query and its numbered arguments.
type conds struct {
	where []string
	args  []any
}

// add appends a condition whose ?s are, in turn, the arguments vals.
func (c *conds) add(cond string, vals ...any) {
	for _, v := range vals {
		c.args = append(c.args, v)
		cond = strings.Replace(cond, "?", "$"+strconv.Itoa(len(c.args)), 1)
	}
	c.where = append(c.where, cond)
}

// span bounds a time column to [from, to); a zero time leaves its side open.
func (c *conds) span(col string, from, to time.Time) {
	if !from.IsZero() {
		c.add(col+" >= ?", ms(from))
	}
	if !to.IsZero() {
		c.add(col+" < ?", ms(to))
	}
}

// untilCursor is the upper time bound a page needs besides its cursor: none
// when the cursor is below to, as it is on every page after the first, so
// that the page's index range starts at the cursor rather than at to.
func untilCursor(to time.Time, cursor *topupd.ListKey) time.Time {
	if cursor != nil && cursor.At.Before(to) {
		return time.Time{}
	}
	return to
}

// tail ends the query: the conditions, the order and the page's limit.
func (c *conds) tail(order string, limit int) string {
	t := ""
	if len(c.where) > 0 {
		t = "WHERE " + strings.Join(c.where, " AND ") + " "
	}
	c.args = append(c.args, limit)
	return t + "ORDER BY " + order + " LIMIT $" + strconv.Itoa(len(c.args))
}
