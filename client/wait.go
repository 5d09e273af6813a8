package client

import (
	"context"
	"fmt"
	"iter"
)

// WaitForOrder polls the order (GET /orders/{id}) at the poll interval until
// it is completed or cancelled, and returns it. A cancelled order is not an
// error: check Status, Error and Refunded. When ctx ends first, or its
// deadline would pass before the next poll, it returns at once the last
// order it saw (nil if none) with an error matching context.Canceled or
// context.DeadlineExceeded.
func (c *Client) WaitForOrder(ctx context.Context, orderID string) (*Order, error) {
	var last *Order
	for {
		o, err := c.Order(ctx, orderID)
		if err != nil {
			return last, err
		}
		if o.Final() {
			return o, nil
		}
		last = o
		if err := c.sleep(ctx, c.poll); err != nil {
			return last, fmt.Errorf("client: waiting for order %s: %w", orderID, err)
		}
	}
}

// AllOrders iterates over all of the account's orders, newest first, one
// history page of pageSize (0: the server's default, at most 50) at a time.
// An order placed during the iteration shifts older ones to later pages;
// AllOrders skips those it has already yielded, so no order is yielded
// twice. On a failure it yields (nil, err) and stops.
func (c *Client) AllOrders(ctx context.Context, pageSize int) iter.Seq2[*Order, error] {
	return func(yield func(*Order, error) bool) {
		seen := map[string]bool{}
		for page := 1; ; page++ {
			p, err := c.HistoryPage(ctx, page, pageSize)
			if err != nil {
				yield(nil, err)
				return
			}
			for i := range p.Orders {
				o := &p.Orders[i]
				if o.OrderID != "" {
					if seen[o.OrderID] {
						continue
					}
					seen[o.OrderID] = true
				}
				if !yield(o, nil) {
					return
				}
			}
			if !p.HasMore || len(p.Orders) == 0 {
				return
			}
		}
	}
}
