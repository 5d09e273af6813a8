package schematest_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/schematest"
	"github.com/topupd/topupd/internal/testing/storetest"
	"github.com/topupd/topupd/internal/testing/topupdtest"
	"github.com/topupd/topupd/postgres"
	"github.com/topupd/topupd/sqlite"
)

// Why each kind of difference below is allowed.
const (
	collateC = `PostgreSQL's COLLATE "C" gives this key SQLite's byte order (BINARY, its default) whatever the database's locale, so lists sorted or paged by it come out alike`
	nullKey  = `SQLite lets a PRIMARY KEY column that is not the rowid hold NULL unless declared NOT NULL (a quirk it keeps for compatibility); PostgreSQL's primary keys are NOT NULL. The store never writes a NULL key; adding NOT NULL in SQLite means rebuilding the table`
	truncate = `SQLite has no TRUNCATE, so its DELETE trigger covers every way to delete; PostgreSQL's TRUNCATE skips row triggers and needs a statement trigger of its own`
	goose    = `goose's own table: goose creates it in each dialect's types`
	// The rules on codes' batches (00016): SQLite has a trigger per rule
	// and event; PostgreSQL checks all four in codes_batch_check().
	batchRules  = `codes' batch rules: codes_batch_open, codes_batch_fixed, codes_void_once and codes_never_sold_voided on SQLite are one function-backed trigger, codes_batch_check, on PostgreSQL`
	batchTally  = `a batch's sold and withdrawn counts: codes_tally_sold and codes_tally_withdrawn on SQLite are codes_tally_out (sales, by row, named to run after codes_stock_out so that the stock level is locked before the batch, 00016) and codes_withdrawn (withdrawals, by statement, 00030: see uploadCount) on PostgreSQL`
	batchFixed  = `a batch never changes but for its counts and its void: the same rules, as stock_batches_fixed on SQLite and the function-backed stock_batches_check on PostgreSQL`
	merged      = `one guard on two events (00031): PostgreSQL fires one trigger on an UPDATE or a DELETE, or on an INSERT or an UPDATE OF a column, where SQLite needs one trigger per event; the rule and its refusal are the same`
	uploadCount = `an upload's codes are counted into the stock level and the batch, and a void's withdrawals out of them, once per statement on PostgreSQL (00030), from the statement's transition tables: a row trigger there updated the same two rows once per code in one transaction, and each update walked the versions made before it, O(n²) for n codes; SQLite updates in place, linearly, and has no statement triggers`
	costRule    = `only a completed order has a cost, none when it is not known (00042; before, every completed order had one, 00014), fixed as it completes: PostgreSQL says so with a CHECK constraint plus orders_final_is_final; SQLite cannot add a CHECK to a table, so it has a trigger on INSERT and one on UPDATE`
)

// allowed lists every way the migrated schemas may differ, as the test
// prints it: "- …" only SQLite has it, "+ …" only PostgreSQL has it,
// "key: -sqlite +postgres" both have it, differently. An unlisted
// difference fails the test, and so does a listed one that no longer
// occurs.
var allowed = []struct{ diff, why string }{
	// Keys that lists sort by compare bytewise on both.
	{`+ column account_prices.pid COLLATE: C`, collateC},
	{`+ column accounts.tier COLLATE: C`, collateC},
	{`+ column chat_links.operator COLLATE: C`, collateC},
	{`+ column chats.operator COLLATE: C`, collateC},
	{`+ column console_sessions.operator COLLATE: C`, collateC},
	{`+ column durations_daily.slug COLLATE: C`, collateC},
	{`+ column lines.slug COLLATE: C`, collateC},
	{`+ column login_locks.name COLLATE: C`, collateC},
	{`+ column operator_recovery_codes.operator COLLATE: C`, collateC},
	{`+ column operator_setup_links.operator COLLATE: C`, collateC},
	{`+ column operator_tokens.operator COLLATE: C`, collateC},
	{`+ column operators.name COLLATE: C`, collateC},
	{`+ column packs.pid COLLATE: C`, collateC},
	{`+ column price_holds.pid COLLATE: C`, collateC},
	{`+ column pricing_rules.name COLLATE: C`, collateC},
	{`+ column sales_daily.account_id COLLATE: C`, collateC},
	{`+ column sales_daily.pid COLLATE: C`, collateC},
	{`+ column sales_daily.provider COLLATE: C`, collateC},
	{`+ column sales_daily.slug COLLATE: C`, collateC},
	{`+ column tier_prices.pid COLLATE: C`, collateC},
	{`+ column tier_prices.tier COLLATE: C`, collateC},
	{`+ column tiers.name COLLATE: C`, collateC},
	{`+ column upstreams.name COLLATE: C`, collateC},

	// Text and blob primary keys that SQLite would let be NULL.
	{`+ column accounts.id NOT NULL`, nullKey},
	{`+ column api_keys.id NOT NULL`, nullKey},
	{`+ column bot_alerts.key NOT NULL`, nullKey},
	{`+ column chat_links.hash NOT NULL`, nullKey},
	{`+ column console_sessions.hash NOT NULL`, nullKey},
	{`+ column lines.slug NOT NULL`, nullKey},
	{`+ column login_locks.name NOT NULL`, nullKey},
	{`+ column operator_setup_links.hash NOT NULL`, nullKey},
	{`+ column operator_tokens.id NOT NULL`, nullKey},
	{`+ column operators.name NOT NULL`, nullKey},
	{`+ column packs.pid NOT NULL`, nullKey},
	{`+ column stock_alerts.pid NOT NULL`, nullKey},
	{`+ column stock_levels.pid NOT NULL`, nullKey},
	{`+ column tiers.name NOT NULL`, nullKey},
	{`+ column upstreams.name NOT NULL`, nullKey},

	// Row numbering.
	{`+ column order_events.id GENERATED`, `SQLite numbers order events by the rowid (INTEGER PRIMARY KEY without AUTOINCREMENT: the number of a deleted last row could come back, and the store deletes none); PostgreSQL by an identity`},

	// The event stream's order.
	{`column events.tx DEFAULT: -0 +pg_current_xact_id()`, `an event's tx is the writing transaction's id on PostgreSQL, so that a reader can keep behind transactions still open (they commit in any order); on SQLite one writer commits events in seq order, and tx is 0 (internal/sqlstore/stream.go)`},

	// goose's version table.
	{`column goose_db_version.is_applied: -integer +boolean`, goose},
	{`column goose_db_version.tstamp DEFAULT: -datetime('now') +now()`, goose},
	{`+ column goose_db_version.tstamp NOT NULL`, goose},

	// Keys.
	{`+ foreign key codes (batch_id): REFERENCES stock_batches (id)`, `SQLite's codes.batch_id has no REFERENCES clause so that 00016's Down can drop the column: codes_batch_open refuses a batch that does not exist, codes_batch_fixed a change of batch, stock_batches_no_delete deleting a batch`},

	// Indexes.
	{`+ index api_keys_account: ON api_keys (account_id)`, `PostgreSQL's first schema indexed keys by account; api_keys_account_created (account_id, created_at), on both since 00004, serves the same lookups`},
	{`index orders_due: -ON orders (status, next_attempt_at) WHERE status = 'processing' +ON orders (next_attempt_at) WHERE status = 'processing'`,
		`SQLite's planner served the engine's queue through orders_status plus a sort until orders_due led with status (72a30b1, checked by sqlite/plan_test.go); PostgreSQL's uses the partial index as it is`},

	// TRUNCATE.
	{`+ trigger actions_no_truncate: BEFORE TRUNCATE ON actions FOR EACH STATEMENT`, truncate},
	{`+ trigger bot_state_no_truncate: BEFORE TRUNCATE ON bot_state FOR EACH STATEMENT`, truncate},
	{`+ trigger codes_no_truncate: BEFORE TRUNCATE ON codes FOR EACH STATEMENT`, truncate},
	{`+ trigger ledger_no_truncate: BEFORE TRUNCATE ON ledger FOR EACH STATEMENT`, truncate},
	{`+ trigger order_attempts_no_truncate: BEFORE TRUNCATE ON order_attempts FOR EACH STATEMENT`, truncate},
	{`+ trigger orders_no_truncate: BEFORE TRUNCATE ON orders FOR EACH STATEMENT`, truncate},
	{`+ trigger settings_no_truncate: BEFORE TRUNCATE ON settings FOR EACH STATEMENT`, truncate},
	{`+ trigger stock_batches_no_truncate: BEFORE TRUNCATE ON stock_batches FOR EACH STATEMENT`, truncate},

	// One rule, enforced by other means on each database.
	{`+ check orders: (cost IS NULL) OR (status = 'completed')`, costRule},
	{`- trigger orders_cost_on_insert: BEFORE INSERT ON orders`, costRule},
	{`- trigger orders_cost_once: BEFORE UPDATE OF cost, status ON orders`, costRule},
	{`- trigger codes_batch_open: BEFORE INSERT ON codes`, batchRules},
	{`- trigger codes_batch_fixed: BEFORE UPDATE OF batch_id ON codes`, batchRules},
	{`- trigger codes_void_once: BEFORE UPDATE OF voided_at ON codes`, batchRules},
	{`- trigger codes_never_sold_voided: BEFORE UPDATE OF order_seq ON codes`, batchRules},
	{`+ trigger codes_batch_check: BEFORE INSERT OR UPDATE OF batch_id, order_seq, voided_at ON codes`, batchRules},
	{`- trigger codes_tally_sold: AFTER UPDATE OF order_seq ON codes`, batchTally},
	{`- trigger codes_tally_withdrawn: AFTER UPDATE OF voided_at ON codes`, batchTally},
	{`+ trigger codes_tally_out: AFTER UPDATE OF order_seq ON codes`, batchTally},
	{`+ trigger codes_withdrawn: AFTER UPDATE ON codes FOR EACH STATEMENT`, uploadCount},
	{`trigger codes_stock_in: -AFTER INSERT ON codes +AFTER INSERT ON codes FOR EACH STATEMENT`, uploadCount},
	{`trigger codes_tally_in: -AFTER INSERT ON codes +AFTER INSERT ON codes FOR EACH STATEMENT`, uploadCount},
	{`- trigger stock_batches_fixed: BEFORE UPDATE ON stock_batches`, batchFixed},
	{`+ trigger stock_batches_check: BEFORE UPDATE ON stock_batches`, batchFixed},
	{`- trigger actions_no_update: BEFORE UPDATE ON actions`, merged},
	{`- trigger actions_no_delete: BEFORE DELETE ON actions`, merged},
	{`+ trigger actions_append_only: BEFORE UPDATE OR DELETE ON actions`, merged},
	{`- trigger ledger_no_update: BEFORE UPDATE ON ledger`, merged},
	{`- trigger ledger_no_delete: BEFORE DELETE ON ledger`, merged},
	{`+ trigger ledger_append_only: BEFORE UPDATE OR DELETE ON ledger`, merged},
	{`- trigger codes_drawn_by_live_orders_only: BEFORE UPDATE OF order_seq ON codes`, merged},
	{`trigger codes_live_orders_only: -BEFORE INSERT ON codes +BEFORE INSERT OR UPDATE OF order_seq ON codes`, merged},
}

// TestSchemaParity migrates a fresh SQLite file and a fresh PostgreSQL
// schema and holds them to each other: tables, columns (type family, NOT
// NULL, default, collation, numbering), primary keys, UNIQUE, CHECK and
// REFERENCES constraints, indexes and when each trigger fires must agree,
// but for the differences allowed lists and explains.
func TestSchemaParity(t *testing.T) {
	t.Parallel()
	pgURL, ok := topupdtest.PostgresSchema(t)
	if !ok {
		t.Skip("TOPUPD_TEST_POSTGRES not set: the schema parity test needs PostgreSQL")
	}
	lite, pg := migrate(t, pgURL)
	listed := map[string]bool{}
	for _, a := range allowed {
		listed[a.diff] = true
	}
	found := map[string]bool{}
	var unlisted, stale []string
	for _, d := range schematest.Diff(lite, pg) {
		found[d.String()] = true
		if !listed[d.String()] {
			unlisted = append(unlisted, d.String())
		}
	}
	for _, a := range allowed {
		if !found[a.diff] {
			stale = append(stale, a.diff)
		}
	}
	if len(unlisted) > 0 {
		t.Errorf("the migrated schemas differ (-sqlite +postgres) where the allowed list says nothing: make the migrations agree, or list each difference with why:\n\t%s",
			strings.Join(unlisted, "\n\t"))
	}
	if len(stale) > 0 {
		t.Errorf("allowed differences that no longer occur: remove them from the list:\n\t%s", strings.Join(stale, "\n\t"))
	}
}

// TestAllowedListExplained: each allowed difference is listed once, with why.
func TestAllowedListExplained(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range allowed {
		if strings.TrimSpace(a.why) == "" {
			t.Errorf("%s: allowed without saying why", a.diff)
		}
		if seen[a.diff] {
			t.Errorf("%s: listed twice", a.diff)
		}
		seen[a.diff] = true
	}
}

// migrate migrates a fresh SQLite file and the PostgreSQL schema at pgURL,
// as the stores do when they open, and reads both schemas.
func migrate(t *testing.T, pgURL string) (lite, pg *schematest.Schema) {
	t.Helper()
	ctx := t.Context()
	vault := storetest.NewVault(t)
	path := filepath.Join(t.TempDir(), "parity.db")
	ls, err := sqlite.Open(ctx, path, vault)
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	ls.Close()
	ps, err := postgres.Open(ctx, pgURL, vault)
	if err != nil {
		t.Fatalf("postgres.Open: %v", err)
	}
	ps.Close()
	return readSQLite(t, path), readPostgres(t, pgURL)
}

// readSQLite reads the schema of the SQLite file at path.
func readSQLite(t *testing.T, path string) *schematest.Schema {
	t.Helper()
	return readSchema(t, "sqlite", "file:"+path+"?mode=ro", schematest.ReadSQLite)
}

// readPostgres reads the schema that the URL's search_path names.
func readPostgres(t *testing.T, url string) *schematest.Schema {
	t.Helper()
	return readSchema(t, "pgx", url, schematest.ReadPostgres)
}

// readSchema opens dsn with driver and reads its schema with read.
func readSchema(t *testing.T, driver, dsn string, read func(context.Context, *sql.DB) (*schematest.Schema, error)) *schematest.Schema {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatalf("sql.Open: %v", err)
	}
	defer db.Close()
	s, err := read(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
