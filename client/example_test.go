package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/topupd/topupd/client"
)

// A shop's whole purchase: read the price, place the order under the
// shop's own id, wait for it to be final, and hand over the codes. (The
// examples run against a stand-in of the API; use your service's address
// and your API key.)
func Example() {
	api := newStandIn("10") // a stand-in of the reseller API; the account holds 10 USD
	defer api.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	c, err := client.New(api.URL, "tpd_live_standin",
		client.WithPollInterval(10*time.Millisecond)) // keep the default 5 s against a real service
	if err != nil {
		log.Fatal(err)
	}
	products, err := c.Products(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range products {
		fmt.Println(p.ID, p.ServiceName, p.Price)
	}

	// Two Steam keys. The trxid is the shop's own id for this purchase:
	// sending it again (after a timeout, say) can never buy twice.
	o, err := c.PlaceOrder(ctx, client.OrderRequest{PID: "gamekey-steam", TrxID: "shop-1001", Quantity: 2})
	switch {
	case client.IsCode(err, client.CodeInsufficientBalance):
		log.Fatal("top up the account first")
	case err != nil:
		log.Fatal(err)
	}
	if !o.Final() {
		if o, err = c.WaitForOrder(ctx, o.OrderID); err != nil {
			log.Fatal(err)
		}
	}
	switch o.Status {
	case client.StatusCompleted:
		fmt.Println(o.Status, o.AmountUSD, o.Codes)
	case client.StatusCancelled:
		fmt.Println("cancelled:", o.Error, "refunded:", o.Refunded)
	}

	balance, err := c.Balance(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("balance:", balance.Dollars())
	// Output:
	// pubg-60 60 UC 0.89
	// gamekey-steam Steam key 1.2
	// completed 2.4 [STEAM-0001-1 STEAM-0001-2]
	// balance: 7.60
}

func ExampleClient_PlaceOrder() {
	api := newStandIn("1")
	defer api.Close()
	ctx := context.Background()

	c, err := client.New(api.URL, "tpd_live_standin")
	if err != nil {
		log.Fatal(err)
	}
	req := client.OrderRequest{PID: "pubg-60", TrxID: "shop-0001", UserID: "5123456789"}
	o, err := c.PlaceOrder(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(o.OrderID, o.Status, o.PackName, o.AmountUSD)

	// The same trxid again is the same order, not a second purchase.
	again, err := c.PlaceOrder(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("replay:", again.IdempotentReplay, again.OrderID == o.OrderID)

	// 9 keys at 1.20 cost more than the 0.11 left: rejected, nothing charged.
	_, err = c.PlaceOrder(ctx, client.OrderRequest{PID: "gamekey-steam", TrxID: "shop-0002", Quantity: 9})
	var e *client.Error
	if errors.As(err, &e) && e.Code == client.CodeInsufficientBalance {
		fmt.Println(e.StatusCode, e.Message, "orderCreated:", e.Order.OrderCreated)
	}
	// Output:
	// ord_0001 processing 60 UC 0.89
	// replay: true true
	// 400 INSUFFICIENT BALANCE orderCreated: false
}

func ExampleClient_WaitForOrder() {
	api := newStandIn("10") // its supplier answers a top-up on the third poll
	defer api.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// Poll every 10 ms for the example; against a real service keep the
	// default 5 s (the API asks for 3 to 10 s).
	c, err := client.New(api.URL, "tpd_live_standin", client.WithPollInterval(10*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	o, err := c.PlaceOrder(ctx, client.OrderRequest{PID: "pubg-60", TrxID: "shop-0003", UserID: "5123456789"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("placed:", o.Status)
	if o, err = c.WaitForOrder(ctx, o.OrderID); err != nil {
		log.Fatal(err)
	}
	fmt.Println("then:", o.Status, o.Duration())

	// The supplier refuses players whose id starts with 9999: the order is
	// cancelled and its charge given back. That is an answer, not an error.
	bad, err := c.PlaceOrder(ctx, client.OrderRequest{PID: "pubg-60", TrxID: "shop-0004", UserID: "99990001"})
	if err != nil {
		log.Fatal(err)
	}
	if bad, err = c.WaitForOrder(ctx, bad.OrderID); err != nil {
		log.Fatal(err)
	}
	fmt.Println("then:", bad.Status, bad.Error, "refunded:", bad.Refunded)
	// Output:
	// placed: processing
	// then: completed 3s
	// then: cancelled INVALID PLAYER refunded: true
}

func ExampleClient_AllOrders() {
	api := newStandIn("10")
	defer api.Close()
	ctx := context.Background()

	c, err := client.New(api.URL, "tpd_live_standin")
	if err != nil {
		log.Fatal(err)
	}
	for _, trx := range []string{"shop-1", "shop-2", "shop-3"} {
		if _, err := c.PlaceOrder(ctx, client.OrderRequest{PID: "gamekey-steam", TrxID: trx}); err != nil {
			log.Fatal(err)
		}
	}
	// Newest first, two orders per request.
	for o, err := range c.AllOrders(ctx, 2) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(o.TrxID, o.Status, o.AmountUSD)
	}
	// Output:
	// shop-3 completed 1.2
	// shop-2 completed 1.2
	// shop-1 completed 1.2
}

func ExampleIsCode() {
	api := newStandIn("10")
	defer api.Close()

	c, err := client.New(api.URL, "tpd_live_standin")
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.Order(context.Background(), "ord_9999")
	fmt.Println(client.IsCode(err, client.CodeOrderNotFound), client.StatusCode(err))
	fmt.Println(err)
	// Output:
	// true 404
	// topupd: 404 ORDER_NOT_FOUND: ORDER NOT FOUND
}

// Amounts are exact: Money counts ten-thousandths of a dollar and is read
// from and written to JSON numbers without floating point.
func ExampleMoney() {
	dime, err := client.ParseMoney("0.10")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(dime+dime+dime, (dime + dime + dime).Dollars()) // 0.1+0.1+0.1 in float64 is 0.30000000000000004

	var entry struct {
		AmountUSD client.Money `json:"amountUsd"`
	}
	if err := json.Unmarshal([]byte(`{"amountUsd":1.2345}`), &entry); err != nil {
		log.Fatal(err)
	}
	total, _ := entry.AmountUSD.Times(3)
	b, _ := json.Marshal(map[string]client.Money{"totalUsd": total})
	fmt.Println(int64(entry.AmountUSD), string(b))

	_, err = client.ParseMoney("0.00001")
	fmt.Println(err)
	// Output:
	// 0.3 0.30
	// 12345 {"totalUsd":3.7035}
	// money: more than 4 decimal places
}
