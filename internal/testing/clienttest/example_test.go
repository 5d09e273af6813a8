package clienttest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/topupd/topupd/client"
)

func Example_placeOrder() {
	demo := startDemo() // a topupd in-process, with an account holding 10 USD
	defer demo.Stop()
	ctx := context.Background()

	c, err := client.New(demo.URL, demo.Key)
	if err != nil {
		log.Fatal(err)
	}
	req := client.OrderRequest{PID: "pubg-60", TrxID: "shop-0001", UserID: "5123456789"}
	o, err := c.PlaceOrder(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(o.Status, o.PackName, o.AmountUSD)

	// The same trxid again is the same order, not a second purchase.
	again, err := c.PlaceOrder(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("replay:", again.IdempotentReplay, again.OrderID == o.OrderID)

	bal, err := c.Balance(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("balance:", bal)

	// 9 keys at 1.20 cost more than what is left: rejected, nothing charged.
	_, err = c.PlaceOrder(ctx, client.OrderRequest{PID: "gamekey-steam", TrxID: "shop-0002", Quantity: 9})
	var e *client.Error
	if errors.As(err, &e) && e.Code == client.CodeInsufficientBalance {
		fmt.Println(e.StatusCode, e.Message, "orderCreated:", e.Order.OrderCreated)
	}
	// Output:
	// completed 60 UC 0.89
	// replay: true true
	// balance: 9.11
	// 400 INSUFFICIENT BALANCE orderCreated: false
}

func Example_waitForOrder() {
	demo := startDemo()
	defer demo.Stop()
	demo.SimDelay(300 * time.Millisecond) // the supplier takes 300 ms
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// Poll every 50 ms for the demo; against a real service keep the default
	// 5 s (the API asks for 3 to 10 s).
	c, err := client.New(demo.URL, demo.Key, client.WithPollInterval(50*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	o, err := c.PlaceOrder(ctx, client.OrderRequest{PID: "pubg-60", TrxID: "shop-0003", UserID: "5123456789"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("placed:", o.Status)
	if !o.Final() {
		if o, err = c.WaitForOrder(ctx, o.OrderID); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("then:", o.Status)

	// The sim supplier refuses players whose id starts with 9999.
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
	// then: completed
	// then: cancelled INVALID PLAYER refunded: true
}

func Example_allOrders() {
	demo := startDemo()
	defer demo.Stop()
	ctx := context.Background()

	c, err := client.New(demo.URL, demo.Key)
	if err != nil {
		log.Fatal(err)
	}
	for _, trx := range []string{"shop-1", "shop-2", "shop-3"} {
		if _, err := c.PlaceOrder(ctx, client.OrderRequest{PID: "pubg-60", TrxID: trx, UserID: "5123456789"}); err != nil {
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
	// shop-3 completed 0.89
	// shop-2 completed 0.89
	// shop-1 completed 0.89
}

func Example_catalogSync() {
	demo := startDemo()
	defer demo.Stop()
	ctx := context.Background()

	c, err := client.New(demo.URL, demo.Key)
	if err != nil {
		log.Fatal(err)
	}
	all, err := c.SyncProducts(ctx, client.CatalogQuery{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(all.Products), "packs")

	// The same question with the answer's ETag: 304, nothing to read.
	same, err := c.SyncProducts(ctx, client.CatalogQuery{ETag: all.ETag})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("not modified:", same.NotModified)

	// After a price change, only what changed since the last serverTime.
	demo.Reprice("pubg-60", "0.99")
	changed, err := c.SyncProducts(ctx, client.CatalogQuery{UpdatedSince: all.ServerTime})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range changed.Products {
		fmt.Println(p.ID, p.Price, "gone:", p.Gone())
	}
	// Output:
	// 12 packs
	// not modified: true
	// pubg-60 0.99 gone: false
}
