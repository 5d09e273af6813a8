package httpapi

import (
	"sync"

	"github.com/topupd/topupd"
)

// finalOrdersCap bounds the answers finalOrders keeps: a few MB.
const finalOrdersCap = 8192

// finalOrders keeps the JSON answers of GET /orders/{orderId} for orders
// that are final: a final order never changes (no statement updates one,
// and the store refuses to settle or retry it), so its answer is the same
// on every node for as long as it exists, and a client that polls an
// order after it finished, or reads it again, is answered without the
// database. Only live orders without codes are kept: a sandbox's orders
// go when it is reset, and delivered codes are never held in memory
// longer than their request.
type finalOrders struct {
	mu      sync.Mutex
	answers map[string][]byte
}

// finalOrderKey is the cache key of an account's lookup of id.
func finalOrderKey(books, id string) string { return books + "\x00" + id }

// get returns the kept answer for key.
func (c *finalOrders) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.answers[key]
	return b, ok
}

// keep remembers the answer b of order o under key, if o may be kept.
func (c *finalOrders) keep(key string, o *topupd.Order, b []byte) {
	if !o.Status.Final() || o.Sandbox || len(o.Codes) > 0 || o.CodeCount > 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.answers == nil {
		c.answers = make(map[string][]byte)
	}
	if len(c.answers) >= finalOrdersCap { // drop a quarter, in the map's own random order
		n := finalOrdersCap / 4
		for k := range c.answers {
			if n == 0 {
				break
			}
			delete(c.answers, k)
			n--
		}
	}
	c.answers[key] = b
}
