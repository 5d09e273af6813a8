// Package loadgen is the load generator behind `topupd bench`: it drives a
// running topupd through the reseller API's own Go client (package client)
// from many accounts at once, measures every route, and then proves through
// the admin API that the books survived.
//
// # Setup
//
// Everything a run touches is its own, named after a random run id: four
// service lines (a top-up line needing userId, a zone line needing userId and
// zoneId, a gamekey line and a giftcard line, all fulfilled by the built-in
// sim supplier), their packs, stock for the key and card packs, and the
// accounts, each with a key and an opening credit. No manual-provider pack is
// used, since nothing would complete its orders. simDelayMs is set for the run
// (1 s by default) so that top-ups stay processing for a while and get polled,
// and put back afterwards. A restocker adds codes while the run goes, as an
// operator would. At the end the run's lines are disabled and its accounts get
// adminDisabled (Config.Cleanup).
//
// # The mix
//
// Each account starts like a shop does (services, products, balance, two
// orders, a poll, a history page), then draws each call from Mix:
//
//	products 10  GET /products
//	services  5  GET /services
//	balance  10  GET /balance
//	order    35  POST /orders: top-up 40, zone 25, game key (1-3) 20, gift card 15;
//	             InvalidPlayerPct of the top-ups are for a 9999 player (sim cancels
//	             and refunds them); ReplayPct of the orders resend an earlier order
//	             byte for byte, which must answer that same order as a replay
//	poll     25  GET /orders/{id}: the oldest processing order not polled for 1 s,
//	             else one of the account's recent orders
//	history  15  GET /history: paged (pageSize 20 or 50, the first page 70% of the
//	             time), or simple mode a quarter of the time
//
// # Pacing
//
// Every account has a Pacer: a sliding log mirroring the server's limiter (a
// call at t is allowed when fewer than Limit calls lie in (t-Period, t], for
// the 1 s and the 60 s window), plus a small margin per window for the time
// between sending a call and the server counting it. The pacer sits in the
// HTTP transport under the client, so the client's own retries are paced and
// timed too. Callers book the earliest slot and sleep until it; the sleep is
// not part of any latency. By default ("smooth") calls are also spread evenly
// at the rate both windows sustain for ever (60 s/200 = 300 ms, plus 2%, at
// the spec's limits); "burst" uses only the log, so an account sends 40 calls
// a second until the minute's 200 are used up, then waits. An account whose
// next slot lies after the end of the run is done. A 429 is counted in its
// route's row, never as a failure; the client retries it after Retry-After.
//
// # Measurements
//
// Every HTTP exchange is recorded under its route (method and path template,
// "GET /orders/{id}"), from sending the request to reading the last byte of
// the answer. Percentiles are exact: every duration is kept and pN is the
// nearest-rank value, the smallest recorded duration such that at least N% of
// the durations are at or below it (see Percentile). A run of a few minutes
// keeps a few MB of durations.
//
// With a baseline (Config.Baseline), a bare net/http handler serving a JSON
// answer the size of the run's mean answer is called over the same loopback,
// from as many clients, and every route's requests per second is also given
// as a ratio of the baseline's.
//
// # The books
//
// Checker proves, through the admin API only: every ledger chains and sums to
// its account's balance; no balance or balance-after is negative; every order
// has exactly one charge, of its amount; a cancelled order that says refunded
// has exactly one refund, of its amount, and no other order has one; a
// completed key or card order carries exactly its quantity of codes and no
// code went to two orders; every order is final (after waiting up to
// WaitFinal for the processing ones, which must then be gone from GET
// /admin/orders?status=processing); and every order the client got a
// confirmed answer for still exists in its account, with the same final
// status and the same codes. When the server has GET /admin/audit, its
// checks (computed in the database over every account) must pass too.
//
// # Chaos
//
// Chaos runs the server as a child process on a database and two ports of
// its own, and SIGKILLs and restarts it every so often while the load goes
// on; the client's retries ride out the outages, and the same checks follow.
package loadgen
