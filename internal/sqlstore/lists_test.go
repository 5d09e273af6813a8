package sqlstore

import (
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// TestDeepPageDropsItsUpperBound: a page after a cursor inside a period is
// bounded above by the cursor alone, so that the index range starts at the
// cursor (with to as well, SQLite starts at to and filters every row down
// to the cursor: 76 ms instead of 0.4 ms at page 9,000 of a million
// orders). A cursor at or past to, which no page of the list gives, keeps
// to.
func TestDeepPageDropsItsUpperBound(t *testing.T) {
	from, to := time.UnixMilli(1_000), time.UnixMilli(9_000)
	for _, c := range []struct {
		at     int64
		wantTo bool
	}{{5_000, false}, {9_000, true}, {12_000, true}} {
		key := &topupd.ListKey{At: time.UnixMilli(c.at), Seq: 7}
		orders, _ := ordersPage(topupd.OrdersQuery{From: from, To: to, Before: key, Limit: 50}, Dialect{}, nil)
		actions, _ := actionsPage(topupd.ActionsQuery{From: from, To: to, Before: key, Limit: 50})
		for what, sql := range map[string]string{"created_at < $": orders, "at < $": actions} {
			if got := strings.Contains(sql, " "+what); got != c.wantTo {
				t.Errorf("after a cursor at %d: bounded by to %v, want %v:\n%s", c.at, got, c.wantTo, sql)
			}
		}
	}
}
