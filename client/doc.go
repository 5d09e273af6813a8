// Package client is the Go client of the topupd reseller API: the catalog,
// the balance, placing orders, polling them and reading the order history.
// Admin is the client of the admin API. The module,
// github.com/topupd/topupd/client, needs only the standard library.
//
// A Client is safe for concurrent use. Amounts are exact (Money counts
// ten-thousandths of a USD and never goes through float64), failures are
// *Error values carrying the HTTP status and the API's code, and transient
// failures are retried for you:
//
//	c, err := client.New("https://api.example.com", apiKey)
//	if err != nil {
//		return err
//	}
//	o, err := c.PlaceOrder(ctx, client.OrderRequest{
//		PID:    "pubg-60",
//		TrxID:  "shop-0001", // your own id; a new purchase needs a new one
//		UserID: "5123456789",
//	})
//	switch {
//	case client.IsCode(err, client.CodeInsufficientBalance):
//		return errTopUpFirst
//	case err != nil:
//		return err
//	}
//	if !o.Final() {
//		o, err = c.WaitForOrder(ctx, o.OrderID) // polls every 5 s by default
//	}
//
// # Retries
//
// A call is retried, up to WithRetries times (4 by default), when the answer
// is 429 (RATE_LIMIT or DUPLICATE_IN_FLIGHT), 502, 503 or 504, or when the
// request failed in transit (connection refused or reset, a response lost
// half-way, a timeout of the HTTP client). A Retry-After header is honoured;
// without one the client waits an exponentially growing, jittered backoff
// (WithBackoff). Other 4xx answers and 500 are never retried. No wait ever
// runs past the context's deadline: when the next wait would, the call ends
// at once with an error that matches both context.DeadlineExceeded and the
// last *Error.
//
// POST /orders is retried as well, and this is safe: every attempt re-sends
// the very same bytes, which always carry the caller's trxid (PlaceOrder
// refuses a request without one), and the server treats a repeated trxid as
// the same order. If an earlier attempt did reach the server, the retry is
// answered either DUPLICATE_IN_FLIGHT (the first attempt is still running; it
// is retried again) or with the existing order and IdempotentReplay set, and
// the account is charged once. Never reuse a trxid for a different purchase.
package client
