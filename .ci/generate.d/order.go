// Command order places an order with the Go client that oapi-codegen
// generates from api/reseller.yaml, against a stand-in for topupd on
// loopback that answers as the server does. .ci/generate builds and runs it
// in a module of its own, beside the clients of both documents.
//
// It does not compile when money is not float64 (a float32 turned a balance
// delta of 2.69 into 2.6900024), when an enum or a const is not a typed
// string or bool, or when an answer is not a struct.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"

	"example.com/generated/admin"
	"example.com/generated/reseller"
)

// answer is a 200 answer of POST /orders as topupd writes it.
const answer = `{"success":true,"orderCreated":true,"orderId":"ord_1","trxid":"t-1","status":"completed",` +
	`"game":"pubg","pid":"pubg-60","packName":"60 UC","quantity":1,"amountUsd":2.69,"durationSec":0,` +
	`"userId":"5123456789","createdAt":"2026-01-02T03:04:05.678Z","idempotentReplay":false}`

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "order:", err)
		os.Exit(1)
	}
	fmt.Println("order: placed with the generated Go client")
}

func run() error {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if r.Method != http.MethodPost || r.URL.Path != "/orders" || r.Header.Get("X-API-Key") != "tpd_key" ||
			json.NewDecoder(r.Body).Decode(&body) != nil || body["pid"] != "pubg-60" || body["trxid"] != "t-1" ||
			body["userId"] != "5123456789" {
			w.WriteHeader(http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	}))
	defer srv.Close()

	key := func(_ context.Context, r *http.Request) error { r.Header.Set("X-API-Key", "tpd_key"); return nil }
	c, err := reseller.NewClientWithResponses(srv.URL, reseller.WithRequestEditorFn(key))
	if err != nil {
		return err
	}
	user := "5123456789"
	resp, err := c.PlaceOrderWithResponse(context.Background(), reseller.PlaceOrderJSONRequestBody{Pid: "pubg-60", Trxid: "t-1", UserId: &user})
	if err != nil {
		return err
	}
	o := resp.JSON200
	if o == nil {
		return fmt.Errorf("answered %d: %s", resp.StatusCode(), resp.Body)
	}
	var (
		amount float64              = o.AmountUsd
		status reseller.OrderStatus = o.Status
		replay bool                 = o.IdempotentReplay
	)
	if amount != 2.69 || status != reseller.OrderStatusCompleted || replay || o.Success != reseller.PlacedOrderSuccessTrue {
		return fmt.Errorf("decoded amountUsd %v, status %q, idempotentReplay %v, success %v", amount, status, replay, o.Success)
	}
	if resp.JSON400 != nil || resp.JSON401 != nil {
		return fmt.Errorf("a failure decoded from a 200")
	}
	return adminTypes()
}

// adminTypes uses the admin client's types: money is float64 there too,
// and enums are typed.
func adminTypes() error {
	amount, reference := 2.69, "wire 42"
	credit := admin.CreditJSONRequestBody{AmountUsd: &amount, Reference: &reference}
	var (
		balance float64           = admin.Account{}.BalanceUsd
		price   float64           = admin.Pack{}.PriceUsd
		status  admin.OrderStatus = admin.OrderAnswer{}.Status
		kind    admin.LedgerEntryKind
		role    admin.Role = admin.Owner
	)
	kind = admin.LedgerEntry{}.Kind
	if _, err := admin.NewClientWithResponses("http://127.0.0.1:0"); err != nil {
		return err
	}
	b, err := json.Marshal(credit)
	if err != nil || string(b) != `{"amountUsd":2.69,"reference":"wire 42"}` {
		return fmt.Errorf("a credit body encodes as %s (%v)", b, err)
	}
	_, _, _, _, _ = balance, price, status, kind, role
	return nil
}
