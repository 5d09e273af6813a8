package service

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// Paging of the operators' lists: a page holds 1 to MaxPage rows,
// DefaultPage when its length is not said (0).
const (
	DefaultPage = 50
	MaxPage     = 500
)

// The kinds of list cursors: each list's cursors start with its letter, so
// that one list's cursor is refused by another.
const (
	OrdersCursor  = "o"
	ActionsCursor = "x"
)

// ListCursor spells the cursor of a newest-first list's next page: its
// kind, a colon, the last row's time in Unix milliseconds, a dot, and its
// number.
func ListCursor(kind string, k topupd.ListKey) string {
	return kind + ":" + strconv.FormatInt(k.At.UnixMilli(), 10) + "." + strconv.FormatInt(k.Seq, 10)
}

// ParseListCursor reads a cursor ListCursor spelt for kind ("" is the
// first page: nil); any other is 400 INVALID_REQUEST.
func ParseListCursor(kind, s string) (*topupd.ListKey, error) {
	if s == "" {
		return nil, nil
	}
	bad := topupd.Errorf(topupd.EInvalidRequest, "cursor: not one this list gave")
	k, row, ok := strings.Cut(s, ":")
	if !ok || k != kind || row == "" {
		return nil, bad
	}
	at, seq, _ := strings.Cut(row, ".")
	ms, err1 := strconv.ParseInt(at, 10, 64)
	n, err2 := strconv.ParseInt(seq, 10, 64)
	if err1 != nil || err2 != nil || n < 1 || ms < 0 {
		return nil, bad
	}
	return &topupd.ListKey{At: time.UnixMilli(ms).UTC(), Seq: n}, nil
}

// pageLength checks a page's length: 1 to MaxPage, DefaultPage for 0.
func pageLength(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultPage, nil
	case n < 1 || n > MaxPage:
		return 0, topupd.Errorf(topupd.EInvalidRequest, "limit: a whole number from 1 to %d", MaxPage)
	}
	return n, nil
}

// OrderPage is one page of orders, newest first, each code masked.
type OrderPage struct {
	Orders []topupd.Order
	// Next is where the next page starts (its query's Before); nil on the
	// last page.
	Next *topupd.ListKey
	// More says a search by trxid prefix (which has no next page) matched
	// more orders than the page holds.
	More bool
	// Names are the names of the page's accounts, by live account id,
	// when its reader filled them (AccountNames); Orders leaves them nil.
	Names map[string]string
}

// Orders reads the page of orders q selects (Now is the service's clock),
// each code masked (topupd.MaskCode): GET /admin/orders/{orderId}/codes
// (OrderCodes) is the one way to read them. A reseller's chat reads its
// own account's alone, and its sandbox's.
func (s *Service) Orders(ctx context.Context, a Actor, q topupd.OrdersQuery) (OrderPage, error) {
	if err := Allowed(a, OpRead); err != nil {
		return OrderPage{}, err
	}
	switch q.Status {
	case "", topupd.StatusProcessing, topupd.StatusCompleted, topupd.StatusCancelled:
	default:
		return OrderPage{}, topupd.Errorf(topupd.EInvalidRequest, "status: processing, completed or cancelled")
	}
	limit, err := pageLength(q.Limit)
	if err != nil {
		return OrderPage{}, err
	}
	if a.Role == topupd.RoleResellerChat {
		if q.AccountID == "" {
			q.AccountID = books(a.Account, q.Sandbox)
		}
		if err := a.OwnBooks(q.AccountID); err != nil {
			return OrderPage{}, err
		}
	}
	if q.Code != "" {
		if err := Allowed(a, OpSearchCodes); err != nil {
			return OrderPage{}, err
		}
	}
	q.Now, q.Limit = s.d.Now(), limit+1 // one more than asked tells whether a next page exists
	orders, err := s.d.Store.Orders(ctx, q)
	if err != nil {
		return OrderPage{}, err
	}
	if q.Code != "" { // every search, found or not, in the action log
		target := ""
		if len(orders) > 0 {
			target = orders[0].ID
		}
		if err := s.d.Store.RecordCodeSearch(ctx, change(a, OpSearchCodes, target), len(orders) > 0); err != nil {
			return OrderPage{}, err
		}
	}
	var page OrderPage
	if len(orders) > limit {
		orders = orders[:limit]
		last := orders[len(orders)-1]
		if q.TrxIDPrefix != "" {
			page.More = true
		} else {
			page.Next = &topupd.ListKey{At: last.CreatedAt, Seq: last.Seq}
		}
	}
	for i := range orders {
		orders[i].Codes = topupd.MaskCodes(orders[i].Codes)
	}
	page.Orders = orders
	return page, nil
}

// StuckOrders reads a page of the processing orders that need the
// operator: past their deadline (their outcome unknown), or carrying an
// alert.
func (s *Service) StuckOrders(ctx context.Context, a Actor, limit int, before *topupd.ListKey) (OrderPage, error) {
	return s.Orders(ctx, a, topupd.OrdersQuery{Stuck: true, Limit: limit, Before: before})
}

// Order reads one order by its public or internal id, its codes masked;
// a reseller's chat reads its own account's alone (ORDER_NOT_FOUND).
func (s *Service) Order(ctx context.Context, a Actor, orderID string) (topupd.Order, error) {
	if err := Allowed(a, OpRead); err != nil {
		return topupd.Order{}, err
	}
	o, err := s.order(ctx, a, orderID)
	if err != nil {
		return o, err
	}
	o.Codes = topupd.MaskCodes(o.Codes)
	return o, nil
}

// OrderDetail is one order as an operator reads it: the order (its codes
// masked), its whole history, its ledger entries and, when its pack listed
// suppliers, how trying each went.
type OrderDetail struct {
	topupd.Order
	// History is placed, the events the store recorded, and its final state.
	History []topupd.OrderEvent
	// Ledger is its charge and any refund, oldest first.
	Ledger []topupd.LedgerEntry
	// SupplierAttempts are its pack's suppliers as listed when it was placed.
	SupplierAttempts []topupd.SupplierAttempt
}

// OrderDetail reads one order with its history, ledger entries and
// supplier attempts.
func (s *Service) OrderDetail(ctx context.Context, a Actor, orderID string) (OrderDetail, error) {
	if err := Allowed(a, OpRead); err != nil {
		return OrderDetail{}, err
	}
	o, err := s.order(ctx, a, orderID)
	if err != nil {
		return OrderDetail{}, err
	}
	return s.Detail(ctx, a, o)
}

// Detail adds to an order an operation answered its history, ledger
// entries and supplier attempts; its codes are masked.
func (s *Service) Detail(ctx context.Context, a Actor, o topupd.Order) (OrderDetail, error) {
	if err := Allowed(a, OpRead); err != nil {
		return OrderDetail{}, err
	}
	if err := a.OwnBooks(o.AccountID); err != nil {
		return OrderDetail{}, err
	}
	events, err := s.d.Store.OrderEvents(ctx, o.Seq)
	if err != nil {
		return OrderDetail{}, err
	}
	d := OrderDetail{Order: o, History: topupd.OrderHistory(&o, events)}
	d.Codes = topupd.MaskCodes(o.Codes)
	if d.Ledger, err = s.d.Store.OrderEntries(ctx, o.Seq); err != nil {
		return OrderDetail{}, err
	}
	if d.SupplierAttempts, err = s.d.Store.SupplierAttempts(ctx, o.Seq); err != nil {
		return OrderDetail{}, err
	}
	return d, nil
}

// OrderCodes reads an order's delivered codes in full: the owner's alone
// (PermOrderCodes). The store reads them in the transaction that records
// the read in the action log (order.codes-viewed, about orderID), so that
// no code is answered unless that record is committed.
func (s *Service) OrderCodes(ctx context.Context, a Actor, orderID string) (topupd.Order, error) {
	if err := Allowed(a, OpOrderCodes); err != nil {
		return topupd.Order{}, err
	}
	return s.d.Store.OrderCodes(ctx, change(a, OpOrderCodes, orderID), orderID)
}
