// Package topupd is the domain of a game top-up, game key and gift card
// reselling service: accounts and their API keys, service lines and packs,
// orders, money and ledger entries, error codes, and the interfaces of the
// store and of a supplier (provider). It imports nothing else of the project;
// the adapters (sqlite, httpapi, fulfil, provider/…) import it.
//
// # Glossary
//
// One word for each concept, in code, comments, logs, the console and the
// bot. The wire keeps the specs' words (reseller-api.md, operator-api.md):
// where the code's word differs, the wire's is given and why.
//
//   - Line (Line, Slug): a game or product family that orders are placed
//     for, such as "PUBG Mobile UC"; it says which account fields an order
//     needs (RequiredField) and how it is fulfilled (LineKind: topup,
//     subscription, gamekey, giftcard). On the wire it is a "service":
//     GET /services, /admin/services/{slug}, and the catalog row's
//     serviceName is the pack's name. The code says line because
//     "service" means too many other things in a server (the service
//     layer, the systemd service).
//   - Pack (Pack, PID): one orderable thing of a line, with a price, such
//     as "60 UC"; identified by its PID. On the wire it is a "product":
//     GET /products (and /catalog), /admin/products/{pid}, and an order's
//     pid and packName. The code says pack because "product" is the
//     line's productName on the wire too. The action log names changes
//     in the code's words: line.put, line.update, pack.put, pack.update.
//   - Catalog: the packs a caller may order, with its own prices
//     (GET /products); in the admin API, every line and pack.
//   - Stock: the codes held to sell for a pack (keys, gift cards, and
//     stock-based top-ups); each code is delivered to one order, ever.
//     A batch (Batch) is one upload of codes to a pack's stock; voiding it
//     withdraws its unsold codes. A pack is low on stock at LowStock codes
//     or its own lowStockAt.
//   - Supplier (Supplier, SupplierState, SupplierAttempt): whoever fulfils
//     an order: a pack lists one or several, tried in order (failover).
//   - Provider: the kind of supplier, the value of a pack's or supplier's
//     provider field: sim (the built-in simulator, for demos), stock (the
//     pack's own codes), manual (an operator completes or cancels each
//     order) or upstream. The Provider interface is what a kind that is
//     called implements (provider/sim, provider/manual, provider/upstream);
//     stock needs no call: the store draws the codes when the order is
//     placed. GET /admin/providers reports their health (Health).
//   - Upstream (Upstream): another server that speaks the reseller API,
//     from which packs whose provider is upstream are bought, under our own
//     API key there; the pack names it and the upstream's PID (upstreamPid).
//   - Order (Order): one purchase of a pack by an account, placed with
//     POST /orders: processing, then completed or cancelled (and then
//     refunded). Its order id (Order.ID, "ord_…") is public; Order.Seq is
//     the internal number (the admin API's id), which both APIs accept in
//     place of the order id. The trxid is the client's own reference of the order; the
//     idempotency key (the idempotencyKey field, else the trxid) makes a
//     request sent again return the same order (idempotentReplay) instead
//     of buying twice. An order that the submit refused is rejected
//     (orderCreated false): no order exists, no money moves.
//   - Account (Account): a reseller, with a prepaid USD balance, flags that
//     admit its calls (apiEnabled, adminDisabled, banned, restrictedUntil,
//     the IPv4 allow-list), a price tier and spending limits. An API key
//     (APIKey) is one of its secrets for the reseller API, kept only as a
//     hash (KeyHash) and shown once; rotating a key makes a new one and
//     revokes the old one a day later.
//   - Money (Money): an integer count of ten-thousandths of a USD; JSON
//     numbers in USD at the edge only.
//   - Ledger entry (LedgerEntry, EntryKind): one movement of an account's
//     money: a credit (the operator adds money; reference makes it once),
//     a charge (an order placed) or a refund (a cancelled order's charge
//     returned). The balance is the sum of the entries; a statement is
//     the entries of a period.
//   - Price: what an account pays for a pack, fixed when the order is
//     placed: its own price for the pack, else its tier's (Tier: a price
//     level with its own prices, or a markup on the pack's cost), else the
//     pack's. Cost is what a pack, a supplier or a batch costs the
//     business; a price below cost is BELOW_COST unless allowed.
//   - Operator (Operator): a person or tool that uses the admin API and
//     the console, with a role (Role: owner, finance, support, viewer);
//     a role allows permissions (Permission: one kind of admin call, such
//     as credit or catalog; Permissions lists them all). root is the
//     built-in owner. An action (Action, Change) is one change in the
//     action log, by an operator or a chat, recorded in the transaction of
//     the change.
//   - Chat (Chat): a messaging-app chat linked, with a one-time link code,
//     to an account (a reseller's chat, acting as chat:<id>) or to an
//     operator; an update (BotUpdate) is one message or button press the
//     bot acts on at most once.
//   - Alert: what needs the operator, told once when it starts and once
//     when it clears: an order past its deadline, a supplier that needs
//     the operator, a pack low on stock; a chat's balance alert is a
//     reseller's own threshold.
package topupd
