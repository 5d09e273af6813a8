package schematest

import (
	"strings"
	"testing"
)

var (
	sqliteExpr = exprDialect{sqlite: true, bytes: map[string]bool{"hash": true}}
	pgExpr     = exprDialect{}
)

// TestNormaliseAgrees: SQLite's text as written and PostgreSQL's deparsed
// text of the same expression normalise alike.
func TestNormaliseAgrees(t *testing.T) {
	for _, tc := range []struct{ sqlite, postgres, want string }{
		{`api_enabled IN (0, 1)`, `(api_enabled = ANY (ARRAY[0, 1]))`, `api_enabled IN (0, 1)`},
		{`kind IN ('topup', 'gamekey')`, `(kind = ANY (ARRAY['topup'::text, 'gamekey'::text]))`, `kind IN ('topup', 'gamekey')`},
		{`quantity BETWEEN 1 AND 500`, `((quantity >= 1) AND (quantity <= 500))`, `(quantity >= 1) AND (quantity <= 500)`},
		{`markup > -1000000`, `(markup > '-1000000'::integer)`, `markup > -1000000`},
		{`length(hash) = 32`, `(octet_length(hash) = 32)`, `octet_length(hash) = 32`},
		{`(status = 'processing') = (finished_at IS NULL)`, `((status = 'processing'::text) = (finished_at IS NULL))`, `(status = 'processing') = (finished_at IS NULL)`},
		{`kind <> 'charge' OR amount < 0`, `((kind <> 'charge'::text) OR (amount < 0))`, `(kind <> 'charge') OR (amount < 0)`},
		{`a AND b AND c`, `((a AND b) AND c)`, `a AND b AND c`},
		{`sold + withdrawn <= added`, `((sold + withdrawn) <= added)`, `(sold + withdrawn) <= added`},
		{`NEW.cost IS NOT OLD.cost`, `(new.cost IS DISTINCT FROM old.cost)`, `new.cost IS DISTINCT FROM old.cost`},
		{`x != 1 AND y == 2`, `((x <> 1) AND (y = 2))`, `(x <> 1) AND (y = 2)`},
		{`x NOT BETWEEN 1 AND 2`, `((x < 1) OR (x > 2))`, `(x < 1) OR (x > 2)`},
		{`'[]'`, `'[]'::text`, `'[]'`},
		{`CAST(x AS INTEGER) > 0`, `(x > 0)`, `x > 0`},
		{`CASE WHEN a = 1 THEN 'x' ELSE 'y' END`, `CASE WHEN (a = 1) THEN 'x'::text ELSE 'y'::text END`, `CASE WHEN (a = 1) THEN 'x' ELSE 'y' END`},
		{`lower(name)`, `lower(name)`, `lower(name)`},
		{`"Quoted" IS NOT NULL`, `("Quoted" IS NOT NULL)`, `quoted IS NOT NULL`},
	} {
		for _, in := range []struct {
			src string
			d   exprDialect
		}{{tc.sqlite, sqliteExpr}, {tc.postgres, pgExpr}} {
			got, err := normalise(in.src, in.d)
			if err != nil || got != tc.want {
				t.Errorf("normalise(%q) = %q, %v; want %q", in.src, got, err, tc.want)
			}
		}
	}
}

// TestNormaliseTellsApart: expressions that mean different things do not
// normalise alike, parentheses included.
func TestNormaliseTellsApart(t *testing.T) {
	for _, pair := range [][2]string{
		{`(a OR b) AND c`, `a OR (b AND c)`},
		{`a IN (0, 1)`, `a IN (0, 1, 2)`},
		{`a NOT IN (0, 1)`, `a IN (0, 1)`},
		{`x - (y - z)`, `(x - y) - z`},
		{`amount > 0`, `amount >= 0`},
		{`length(name) = 32`, `octet_length(name) = 32`}, // name is text: length() counts characters
	} {
		a, errA := normalise(pair[0], sqliteExpr)
		b, errB := normalise(pair[1], sqliteExpr)
		if errA != nil || errB != nil || a == b {
			t.Errorf("%q and %q normalise to %q and %q (%v, %v); want them told apart", pair[0], pair[1], a, b, errA, errB)
		}
	}
}

// TestNormaliseRefusesWhatItCannotRead: what the parser does not know is
// an error, not a guess.
func TestNormaliseRefusesWhatItCannotRead(t *testing.T) {
	for _, src := range []string{
		`a IN (SELECT id FROM t)`,
		`EXISTS (SELECT 1)`,
		`a = ANY (b)`,
		`a ~ 'x'`,
		`(a = 1`,
		`a = 1)`,
	} {
		if got, err := normalise(src, pgExpr); err == nil {
			t.Errorf("normalise(%q) = %q; want an error", src, got)
		}
	}
}

// TestParseCreateStatements reads what sqlite_master keeps and what
// pg_get_indexdef prints.
func TestParseCreateStatements(t *testing.T) {
	table, err := parseCreateTable(`CREATE TABLE "t" (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		name TEXT COLLATE NOCASE NOT NULL CHECK (length(name) > 0), -- a comment, (with a paren
		slug TEXT COLLATE BINARY,
		n INTEGER DEFAULT (1 + 2) CHECK (n IN (1, 3)),
		CONSTRAINT pair CHECK ((n = 1) = (slug IS NULL)),
		UNIQUE (name, slug)
	, extra INTEGER CHECK (extra >= 0))`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(table.checks, " | "), "length(name) > 0 | n IN (1, 3) | (n = 1) = (slug IS NULL) | extra >= 0"; got != want {
		t.Errorf("checks %q, want %q", got, want)
	}
	if len(table.collations) != 1 || table.collations["name"] != "NOCASE" || !table.autoincrement {
		t.Errorf("collations %v, autoincrement %v; want name NOCASE only, and true", table.collations, table.autoincrement)
	}
	for _, tc := range []struct{ src, keys, where string }{
		{`CREATE INDEX a ON t (x, lower(y) DESC, z COLLATE NOCASE ASC) WHERE x IS NOT NULL AND (y > 0)`, `x|lower(y) DESC|z`, `x IS NOT NULL AND (y > 0)`},
		{`CREATE UNIQUE INDEX b ON s.t USING btree (x) WHERE (x = ANY (ARRAY['a'::text]))`, `x`, `(x = ANY (ARRAY['a'::text]))`},
	} {
		ix, err := parseCreateIndex(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for i, k := range ix.keys {
			if ix.desc[i] {
				k += " DESC"
			}
			keys = append(keys, k)
		}
		if strings.Join(keys, "|") != tc.keys || ix.where != tc.where {
			t.Errorf("parseCreateIndex(%q) = %q WHERE %q; want %q WHERE %q", tc.src, keys, ix.where, tc.keys, tc.where)
		}
	}
	for src, want := range map[string]string{
		`CREATE TRIGGER x BEFORE UPDATE OF b, a ON t WHEN 1 BEGIN SELECT 1; END`: `BEFORE UPDATE OF a, b`,
		`CREATE TRIGGER IF NOT EXISTS x AFTER INSERT ON t BEGIN SELECT 1; END`:   `AFTER INSERT`,
		`CREATE TRIGGER x DELETE ON t BEGIN SELECT 1; END`:                       `BEFORE DELETE`,
		`CREATE TRIGGER x INSTEAD OF UPDATE ON v BEGIN SELECT 1; END`:            `INSTEAD OF UPDATE`,
	} {
		tr, err := parseSQLiteTrigger(src)
		if got := tr.Timing + " " + strings.Join(tr.Events, " OR "); err != nil || got != want {
			t.Errorf("parseSQLiteTrigger(%q) = %q, %v; want %q", src, got, err, want)
		}
	}
}
