package schematest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// ReadPostgres reads the schema of the current schema (the first of the
// search_path) of the PostgreSQL database on db: its tables, with their
// columns, keys and constraints, its indexes and its triggers (not the
// internal ones behind foreign keys), from pg_catalog.
func ReadPostgres(ctx context.Context, db *sql.DB) (*Schema, error) {
	s := newSchema()
	var d exprDialect
	for _, step := range []struct {
		what string
		sql  string
		scan func(*sql.Rows) error
	}{
		{"columns", pgColumns, func(r *sql.Rows) error {
			var table string
			var c Column
			var typ, dflt, coll string
			if err := r.Scan(&table, &c.Name, &typ, &c.NotNull, &dflt, &coll, &c.Generated); err != nil {
				return err
			}
			c.Type, c.Collation = typeFamily(typ), coll
			if dflt != "" {
				if strings.HasPrefix(dflt, "nextval(") { // serial
					c.Generated = true
				} else {
					n, err := normalise(dflt, d)
					if err != nil {
						return fmt.Errorf("%s.%s default: %w", table, c.Name, err)
					}
					c.Default = n
				}
			}
			t := s.table(table)
			t.Columns = append(t.Columns, c)
			return nil
		}},
		{"constraints", pgConstraints, func(r *sql.Rows) error {
			var table, kind, cols, ref, refCols, onUpdate, onDelete, check string
			if err := r.Scan(&table, &kind, &cols, &ref, &refCols, &onUpdate, &onDelete, &check); err != nil {
				return err
			}
			t := s.table(table)
			switch kind {
			case "p":
				t.PrimaryKey = strings.Split(cols, ",")
			case "u":
				t.Uniques = append(t.Uniques, list(strings.Split(cols, ",")))
			case "f":
				t.ForeignKeys = append(t.ForeignKeys, ForeignKey{Columns: strings.Split(cols, ","), RefTable: ref,
					RefColumns: strings.Split(refCols, ","), OnUpdate: pgAction(onUpdate), OnDelete: pgAction(onDelete)})
			case "c":
				n, err := normalise(check, d)
				if err != nil {
					return fmt.Errorf("%s: %w", table, err)
				}
				t.Checks = append(t.Checks, n)
			default:
				return fmt.Errorf("%s: a constraint of kind %q, which this reader does not know", table, kind)
			}
			return nil
		}},
		{"indexes", pgIndexes, func(r *sql.Rows) error {
			var ix Index
			var def string
			if err := r.Scan(&ix.Name, &ix.Table, &ix.Unique, &def); err != nil {
				return err
			}
			parsed, err := parseCreateIndex(def)
			if err != nil {
				return err
			}
			for i, k := range parsed.keys {
				n, err := normalise(k, d)
				if err != nil {
					return fmt.Errorf("index %s: %w", ix.Name, err)
				}
				if parsed.desc[i] {
					n += " DESC"
				}
				ix.Keys = append(ix.Keys, n)
			}
			if parsed.where != "" {
				if ix.Where, err = normalise(parsed.where, d); err != nil {
					return fmt.Errorf("index %s: %w", ix.Name, err)
				}
			}
			s.Indexes[ix.Name] = ix
			return nil
		}},
		{"triggers", pgTriggers, func(r *sql.Rows) error {
			var tr Trigger
			var typ int
			var cols string
			if err := r.Scan(&tr.Name, &tr.Table, &typ, &cols); err != nil {
				return err
			}
			// pg_trigger.tgtype's bits (catalog/pg_trigger.h).
			const row, before, insert, del, update, truncate, instead = 1, 2, 4, 8, 16, 32, 64
			tr.Timing = "AFTER"
			if typ&before != 0 {
				tr.Timing = "BEFORE"
			}
			if typ&instead != 0 {
				tr.Timing = "INSTEAD OF"
			}
			var of []string
			if cols != "" {
				of = strings.Split(cols, ",")
			}
			tr.Events = events(typ&insert != 0, typ&update != 0, typ&del != 0, typ&truncate != 0, of)
			tr.Statement = typ&row == 0
			s.Triggers[tr.Name] = tr
			return nil
		}},
	} {
		if err := query(ctx, db, step.sql, step.scan); err != nil {
			return nil, errorf(step.what, err)
		}
	}
	s.sortConstraints()
	return s, nil
}

// pgAction maps pg_constraint's confupdtype and confdeltype to an action.
func pgAction(c string) string {
	return map[string]string{"r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"}[c]
}

// The tables of the current schema; goose's own included (the caller
// decides what to compare).
const pgTables = `SELECT c.oid FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')`

const pgColumns = `SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
	COALESCE(pg_get_expr(d.adbin, d.adrelid), ''),
	CASE WHEN a.attcollation <> t.typcollation THEN co.collname ELSE '' END,
	a.attidentity <> ''
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
LEFT JOIN pg_collation co ON co.oid = a.attcollation
WHERE a.attrelid IN (` + pgTables + `) AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY c.relname, a.attnum`

// names lists the names of columns attnums of table rel, in order.
const names = `(SELECT string_agg(a.attname, ',' ORDER BY u.n) FROM unnest(%s) WITH ORDINALITY u(attnum, n)
	JOIN pg_attribute a ON a.attrelid = %s AND a.attnum = u.attnum)`

var pgConstraints = `SELECT c.relname, k.contype,
	COALESCE(` + fmt.Sprintf(names, "k.conkey", "k.conrelid") + `, ''),
	COALESCE(r.relname, ''),
	COALESCE(` + fmt.Sprintf(names, "k.confkey", "k.confrelid") + `, ''),
	CASE WHEN k.contype = 'f' THEN k.confupdtype ELSE '' END,
	CASE WHEN k.contype = 'f' THEN k.confdeltype ELSE '' END,
	CASE WHEN k.contype = 'c' THEN pg_get_expr(k.conbin, k.conrelid) ELSE '' END
FROM pg_constraint k
JOIN pg_class c ON c.oid = k.conrelid
LEFT JOIN pg_class r ON r.oid = k.confrelid
WHERE k.conrelid IN (` + pgTables + `)
ORDER BY c.relname, k.conname`

// The indexes that no PRIMARY KEY, UNIQUE or EXCLUDE constraint made.
const pgIndexes = `SELECT ic.relname, tc.relname, i.indisunique, pg_get_indexdef(i.indexrelid)
FROM pg_index i
JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_class tc ON tc.oid = i.indrelid
WHERE i.indrelid IN (` + pgTables + `)
  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = i.indrelid AND k.contype IN ('p', 'u', 'x'))
ORDER BY ic.relname`

const pgTriggers = `SELECT t.tgname, c.relname, t.tgtype,
	COALESCE(` + "(SELECT string_agg(a.attname, ',') FROM unnest(t.tgattr::int2[]) k(attnum) JOIN pg_attribute a ON a.attrelid = t.tgrelid AND a.attnum = k.attnum)" + `, '')
FROM pg_trigger t
JOIN pg_class c ON c.oid = t.tgrelid
WHERE t.tgrelid IN (` + pgTables + `) AND NOT t.tgisinternal
ORDER BY t.tgname`
