// Places an order with the types openapi-typescript generates from
// api/reseller.yaml; .ci/generate checks it with tsc --noEmit --strict,
// beside the types of api/admin.yaml. The type tests below fail to
// compile when money is not a number, when an enum is a plain string, or
// when a field is any or unknown.
import type { paths } from "./reseller";
import type { components as admin } from "./admin";

type OrderRequest = paths["/orders"]["post"]["requestBody"]["content"]["application/json"];
type PlacedOrder = paths["/orders"]["post"]["responses"][200]["content"]["application/json"];

// Same is true exactly when T and U are one type, and neither is any.
type IsAny<T> = 0 extends 1 & T ? true : false;
type Same<T, U> = IsAny<T> extends true ? false : [T] extends [U] ? ([U] extends [T] ? true : false) : false;

// Check<X> compiles only when X is true.
type Check<X extends true> = X;
export type Checks = [
  Check<Same<PlacedOrder["amountUsd"], number>>,
  Check<Same<PlacedOrder["status"], "processing" | "completed" | "cancelled">>,
  Check<Same<PlacedOrder["idempotentReplay"], boolean>>,
  Check<Same<PlacedOrder["success"], true>>,
  Check<Same<OrderRequest["pid"], string>>,
  Check<Same<admin["schemas"]["Account"]["balanceUsd"], number>>,
  Check<Same<admin["schemas"]["LedgerEntry"]["kind"], "credit" | "charge" | "refund" | "deposit">>,
  Check<Same<admin["schemas"]["Role"], "owner" | "finance" | "support" | "viewer">>,
];

export async function placeOrder(base: string, key: string, body: OrderRequest): Promise<PlacedOrder> {
  const res = await fetch(`${base}/orders`, {
    method: "POST",
    headers: { "X-API-Key": key, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) {
    throw new Error(`POST /orders answered ${res.status}`);
  }
  return (await res.json()) as PlacedOrder;
}

export async function example(): Promise<number> {
  const order = await placeOrder("http://127.0.0.1:8080", "tpd_key", { pid: "pubg-60", trxid: "t-1", userId: "5123456789" });
  const charged: number = order.amountUsd;
  return order.status === "completed" ? charged : 0;
}
