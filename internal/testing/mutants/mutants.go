package main

import _ "embed"

// A Mutant is a deliberate bug that the simulator must find: edits of
// product files, and files it adds to a package, compiled into a test
// binary with go test -overlay and never written to the working tree.
type Mutant struct {
	// Name names it on the command line (-only) and in TOPUPD_MUTANT.
	Name string
	// Bug says what it breaks, in the domain's words.
	Bug string
	// Edits change files that exist, in order.
	Edits []Edit
	// Adds are whole files it adds, beside a package's own.
	Adds []Add
	// Seeds, when above 0, is how many seeds this mutant is given at the
	// least (a bug that needs rare conditions): -seeds, or this if more.
	Seeds int
}

// An Edit replaces Old, which must occur exactly once in File, by New.
// File is a slash-separated path from the module's root. When a refactor
// moves or rewrites the code Old quotes, the mutants' test fails and names
// the mutant: update Old (and New) to today's code, keeping the bug.
type Edit struct {
	File, Old, New string
}

// An Add is a new file of a package: Source is its whole text.
type Add struct {
	File, Source string
}

// chargeApartSource is the code the charge-apart mutant adds to
// internal/sqlstore (testdata/chargeapart.go, which gofmt sees but no
// build does).
//
//go:embed testdata/chargeapart.go
var chargeApartSource string

// eventsAfterSource and dailyReadSource are the code the mutants
// eventsafter and dailyread add to internal/sqlstore.
var (
	//go:embed testdata/eventsafter.go
	eventsAfterSource string
	//go:embed testdata/dailyread.go
	dailyReadSource string
)

// mutants are the bugs the simulator must find, each within seeds 1 to
// -seeds (20 by default). docs/simulation.md "Mutants" says how to add one.
var mutants = []Mutant{
	{
		Name: "refundguard",
		Bug: "expire refunds an order at its deadline even when a submit may " +
			"have reached the supplier",
		Edits: []Edit{{
			File: "fulfil/process.go",
			Old:  "\tif o.Supplier == topupd.SupplierNew {\n\t\tcancelled.Now = e.cfg.Now()\n",
			New:  "\tif o.Supplier == topupd.SupplierNew || true {\n\t\tcancelled.Now = e.cfg.Now()\n",
		}},
	},
	{
		Name: "failover",
		Bug: "failover moves an order on to its next supplier after a submit " +
			"whose outcome is unknown (any error), not only after a refusal",
		Edits: []Edit{{
			File: "fulfil/process.go",
			Old:  "return errors.Is(a.err, topupd.ErrSupplierRefused)\n",
			New:  "return errors.Is(a.err, topupd.ErrSupplierRefused) || true\n",
		}},
	},
	{
		Name: "codeunique",
		Bug: "a code a supplier delivers escapes the global code-uniqueness " +
			"index (Settle stores a fingerprint of the code and the order)",
		Edits: []Edit{{
			File: "internal/sqlstore/fulfil.go",
			Old:  "s.vault.CodeFingerprint(c), s.vault.Seal(o.PID, c), o.Seq, ms(now))",
			New:  `s.vault.CodeFingerprint(fmt.Sprintf("%s#%d", c, o.Seq)), s.vault.Seal(o.PID, c), o.Seq, ms(now))`,
		}},
	},
	{
		Name: "chargeapart",
		Bug: "PlaceOrder writes an order's charge in a transaction of its own, " +
			"after the order's has committed",
		Edits: []Edit{
			{
				File: "internal/sqlstore/place.go",
				Old:  "\tvar o topupd.Order\n\treplay := false\n",
				New:  "\tvar o topupd.Order\n\treplay := false\n\tctx, apart := withChargeApart(ctx)\n",
			},
			{
				File: "internal/sqlstore/place.go",
				Old:  "\tif err != nil {\n\t\t// No order: one rejected after its row was written was rolled back.\n",
				New:  "\tif err == nil {\n\t\terr = s.chargeApart(ctx, apart)\n\t}\n\tif err != nil {\n\t\t// No order: one rejected after its row was written was rolled back.\n",
			},
			{
				File: "internal/sqlstore/place.go",
				Old:  "s.appendEntryAfter(ctx, tx, charge, o.Seq, a.bal, a.balSeq)",
				New:  "deferCharge(ctx, charge, o.Seq, a.bal, a.balSeq)",
			},
		},
		Adds: []Add{{File: "internal/sqlstore/mutant_chargeapart.go", Source: chargeApartSource}},
	},
	{
		Name: "lease",
		Bug: "MarkSubmitting, MoveSupplier (and parking) and Settle no longer check that the " +
			"worker still holds the order's lease",
		Edits: []Edit{
			{
				File: "internal/sqlstore/fulfil.go",
				Old:  "AND status = 'processing' AND lease_owner = $2 RETURNING provider, upstream`",
				New:  "AND status = 'processing' AND (lease_owner = $2 OR TRUE) RETURNING provider, upstream`",
			},
			{
				File: "settlement.go",
				Old:  "if st.LeaseOwner != \"\" && owner != st.LeaseOwner {",
				New:  "if st.LeaseOwner != \"\" && owner != st.LeaseOwner && false {",
			},
			{
				File: "internal/sqlstore/parking.go",
				Old:  "\tcase leaseOwner == \"\" || owner != leaseOwner:\n",
				New:  "\tcase (leaseOwner == \"\" || owner != leaseOwner) && false:\n",
			},
		},
	},
	{
		Name: "eventsafter",
		Bug: "PlaceOrder writes the order's events to the stream in a " +
			"transaction of their own, after the order's has committed",
		Edits: []Edit{
			{
				File: "internal/sqlstore/place.go",
				Old:  "\tvar o topupd.Order\n\treplay := false\n",
				New:  "\tvar o topupd.Order\n\treplay := false\n\tctx, after := withEventsAfter(ctx)\n",
			},
			{
				File: "internal/sqlstore/place.go",
				Old:  "\tif err != nil {\n\t\t// No order: one rejected after its row was written was rolled back.\n",
				New:  "\tif err == nil && !replay {\n\t\terr = s.emitAfterCommit(ctx, after, o.Seq)\n\t}\n\tif err != nil {\n\t\t// No order: one rejected after its row was written was rolled back.\n",
			},
			{
				File: "internal/sqlstore/place.go",
				Old:  "\tif err := emit(ctx, tx, events...); err != nil {\n",
				New:  "\tif err := emitLater(ctx, events...); err != nil {\n",
			},
		},
		Adds: []Add{{File: "internal/sqlstore/mutant_eventsafter.go", Source: eventsAfterSource}},
	},
	{
		Name: "refundspent",
		Bug: "the daily spending limit counts the charges of orders cancelled " +
			"and refunded as spent",
		Edits: []Edit{{
			File: "internal/sqlstore/prices.go",
			Old:  "SELECT CAST(COALESCE(SUM(charged - refunds), 0) AS BIGINT) FROM sales_daily",
			New:  "SELECT CAST(COALESCE(SUM(charged), 0) AS BIGINT) FROM sales_daily",
		}},
	},
	{
		Name: "dailyread",
		Bug: "the daily spending limit is checked against the day's spend as " +
			"read before the order's transaction, in a transaction of its own",
		// It needs an account near its daily limit and another order
		// between a call's parts: 3 of seeds 1-40 find it.
		Seeds: 40,
		Edits: []Edit{
			{
				File: "internal/sqlstore/place.go",
				Old:  "\tlookFirst := p.HintHeld\n",
				New: "\tlookFirst := p.HintHeld\n\tctx, serr := s.spentBefore(ctx, p)\n\tif serr != nil {\n" +
					"\t\treturn topupd.Order{}, false, fmt.Errorf(\"store.PlaceOrder %q: %w\", p.Request.TrxID, serr)\n\t}\n",
			},
			{
				File: "internal/sqlstore/place.go",
				Old:  "if spent, err = s.spentToday(ctx, tx, p.AccountID, p.Now); err != nil {",
				New:  "if spent, err = spentRead(ctx); err != nil {",
			},
		},
		Adds: []Add{{File: "internal/sqlstore/mutant_dailyread.go", Source: dailyReadSource}},
	},
	{
		Name: "foreigntrxid",
		Bug: "a request with another account's trxid is answered with that " +
			"account's order (a replay) instead of FORBIDDEN",
		Edits: []Edit{{
			File: "idempotency.go",
			Old:  "\tcase prev.AccountID != accountID:\n\t\treturn false, Fail(EForbidden)\n",
			New:  "\tcase prev.AccountID != accountID:\n\t\treturn true, nil\n",
		}},
	},
	{
		Name: "supplycost",
		Bug: "a completed order costs its pack's cost, not the cost of the " +
			"supplier in the pack's list that delivered it",
		Edits: []Edit{{
			File: "internal/sqlstore/fulfil.go",
			Old:  "WHERE a.order_seq = $2 AND a.outcome = 'trying'),",
			New:  "WHERE a.order_seq = $2 AND a.outcome = 'trying' AND a.cost IS NULL),",
		}},
	},
	{
		Name: "batchcost",
		Bug: "a code drawn from stock costs the pack's cost, not the cost of " +
			"the batch it was uploaded in",
		Edits: []Edit{{
			File: "internal/sqlstore/batches.go",
			Old:  "(SELECT b.cost FROM stock_batches b WHERE b.id = c.batch_id), $3)",
			New:  "(SELECT b.cost FROM stock_batches b WHERE b.id = c.batch_id AND b.cost < 0), $3)",
		}},
	},
	{
		Name: "markupdown",
		Bug:  "a tier's markup or discount rounds the price down to its step, not up",
		Edits: []Edit{{
			File: "pricing.go",
			Old:  "ceilDiv(ceilDiv(n, scale), s)",
			New:  "new(big.Int).Quo(ceilDiv(n, scale), s)",
		}},
	},
	{
		Name: "parklost",
		Bug: "an order whose submit's answer was lost waits for supplier funds, so it may be " +
			"sent elsewhere or refunded while the supplier holds it",
		Edits: []Edit{{
			File: "fulfil/process.go",
			Old:  "\t\tif a.err != nil {\n\t\t\treturn e.retry(ctx, o, a.err)\n\t\t}\n",
			New: "\t\tif a.err != nil {\n\t\t\tif a.first {\n\t\t\t\tif p, perr := e.park(ctx, o, 0, topupd.AttemptRefused, a.why()); perr == nil {\n" +
				"\t\t\t\t\treturn p\n\t\t\t\t}\n\t\t\t}\n\t\t\treturn e.retry(ctx, o, a.err)\n\t\t}\n",
		}},
	},
	{
		Name: "depositreceived",
		Bug:  "a deposit confirmed with what the bank received credits the ticket's amount instead",
		Edits: []Edit{{
			File: "deposit_confirm.go",
			Old:  "\t\tcredit := amount\n\t\tif c.Received != nil {\n\t\t\tcredit = *c.Received\n\t\t}\n",
			New:  "\t\tcredit := amount\n",
		}},
	},
	{
		Name: "depositagain",
		Bug:  "a confirmed deposit confirmed again credits it again",
		Edits: []Edit{{
			File: "deposit_confirm.go",
			Old:  "\tcase DepositPending:\n",
			New:  "\tcase DepositPending, DepositConfirmed:\n",
		}},
	},
}
