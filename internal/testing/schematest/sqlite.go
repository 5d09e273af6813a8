package schematest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// ReadSQLite reads the schema of the SQLite database on db: its tables
// (not SQLite's own sqlite_*), with their columns, keys and constraints,
// its indexes and its triggers. SQLite keeps CHECK constraints, column
// collations and index expressions only in the CREATE statements in
// sqlite_master, so those are parsed; the rest comes from the pragmas.
func ReadSQLite(ctx context.Context, db *sql.DB) (*Schema, error) {
	s := newSchema()
	type object struct{ kind, name, table, sql string }
	var objects []object
	err := query(ctx, db, `SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master
		WHERE type IN ('table', 'index', 'trigger') AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`, func(r *sql.Rows) error {
		var o object
		err := r.Scan(&o.kind, &o.name, &o.table, &o.sql)
		objects = append(objects, o)
		return err
	})
	if err != nil {
		return nil, errorf("sqlite_master", err)
	}
	indexSQL := map[string]string{}
	for _, o := range objects {
		if o.kind == "index" {
			indexSQL[o.name] = o.sql
		}
	}
	for _, o := range objects {
		switch o.kind {
		case "table":
			if err := readSQLiteTable(ctx, db, s, o.name, o.sql, indexSQL); err != nil {
				return nil, errorf("table "+o.name, err)
			}
		case "trigger":
			tr, err := parseSQLiteTrigger(o.sql)
			if err != nil {
				return nil, errorf("trigger "+o.name, err)
			}
			tr.Name, tr.Table = o.name, o.table
			s.Triggers[o.name] = tr
		}
	}
	s.sortConstraints()
	return s, nil
}

// readSQLiteTable reads a table's columns, keys, constraints and indexes
// into s.
func readSQLiteTable(ctx context.Context, db *sql.DB, s *Schema, name, createSQL string, indexSQL map[string]string) error {
	t := s.table(name)
	def, err := parseCreateTable(createSQL)
	if err != nil {
		return err
	}
	type pkCol struct {
		pos            int
		name, declared string
		column         int
	}
	var pk []pkCol
	bytes := map[string]bool{}
	err = query(ctx, db, `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid`, func(r *sql.Rows) error {
		var c Column
		var declared string
		var dflt sql.NullString
		var notNull, pkPos int
		if err := r.Scan(&c.Name, &declared, &notNull, &dflt, &pkPos); err != nil {
			return err
		}
		c.Type, c.NotNull, c.Collation = typeFamily(declared), notNull == 1, def.collations[strings.ToLower(c.Name)]
		if dflt.Valid {
			c.Default = dflt.String // normalised below, once bytes is known
		}
		if c.Type == "bytes" {
			bytes[strings.ToLower(c.Name)] = true
		}
		if pkPos > 0 {
			pk = append(pk, pkCol{pkPos, c.Name, declared, len(t.Columns)})
		}
		t.Columns = append(t.Columns, c)
		return nil
	}, t.Name)
	if err != nil {
		return err
	}
	// A lone INTEGER PRIMARY KEY is the rowid: never NULL, and numbered by
	// SQLite when not given. Only with AUTOINCREMENT does it count as
	// Generated: without, the number of a deleted last row comes back.
	if len(pk) == 1 && strings.EqualFold(pk[0].declared, "INTEGER") {
		c := &t.Columns[pk[0].column]
		c.NotNull, c.Generated = true, def.autoincrement
	}
	t.PrimaryKey = make([]string, len(pk))
	for _, p := range pk {
		t.PrimaryKey[p.pos-1] = p.name
	}
	d := exprDialect{sqlite: true, bytes: bytes}
	for i, c := range t.Columns {
		if c.Default == "" {
			continue
		}
		if t.Columns[i].Default, err = normalise(c.Default, d); err != nil {
			return fmt.Errorf("column %s default: %w", c.Name, err)
		}
	}
	for _, c := range def.checks {
		n, err := normalise(c, d)
		if err != nil {
			return err
		}
		t.Checks = append(t.Checks, n)
	}
	if err := readSQLiteIndexes(ctx, db, t, indexSQL, d, s); err != nil {
		return err
	}
	return readSQLiteForeignKeys(ctx, db, t)
}

// readSQLiteIndexes reads a table's UNIQUE constraints and its indexes.
func readSQLiteIndexes(ctx context.Context, db *sql.DB, t *Table, indexSQL map[string]string, d exprDialect, s *Schema) error {
	type index struct {
		name, origin string
		unique       bool
	}
	var list []index
	err := query(ctx, db, `SELECT name, "unique", origin FROM pragma_index_list(?) ORDER BY name`, func(r *sql.Rows) error {
		var ix index
		err := r.Scan(&ix.name, &ix.unique, &ix.origin)
		list = append(list, ix)
		return err
	}, t.Name)
	if err != nil {
		return err
	}
	for _, ix := range list {
		if ix.origin == "pk" {
			continue // the table's primary key
		}
		keys, err := sqliteIndexKeys(ctx, db, ix.name)
		if err != nil {
			return fmt.Errorf("index %s: %w", ix.name, err)
		}
		if ix.origin == "u" {
			t.Uniques = append(t.Uniques, keyList(keys))
			continue
		}
		def, err := parseCreateIndex(indexSQL[ix.name])
		if err != nil {
			return fmt.Errorf("index %s: %w", ix.name, err)
		}
		out := Index{Name: ix.name, Table: t.Name, Unique: ix.unique}
		for i, k := range keys {
			if k.expr { // an expression: its text is only in the CREATE INDEX
				if i >= len(def.keys) {
					return fmt.Errorf("index %s: key %d not in %q", ix.name, i, indexSQL[ix.name])
				}
				k.name = def.keys[i]
			}
			n, err := normalise(k.name, d)
			if err != nil {
				return fmt.Errorf("index %s: %w", ix.name, err)
			}
			if k.desc {
				n += " DESC"
			}
			out.Keys = append(out.Keys, n)
		}
		if def.where != "" {
			if out.Where, err = normalise(def.where, d); err != nil {
				return fmt.Errorf("index %s: %w", ix.name, err)
			}
		}
		s.Indexes[ix.name] = out
	}
	return nil
}

// indexKey is one key column of an SQLite index.
type indexKey struct {
	name       string
	expr, desc bool
}

// sqliteIndexKeys reads an index's key columns, in order.
func sqliteIndexKeys(ctx context.Context, db *sql.DB, index string) ([]indexKey, error) {
	var keys []indexKey
	err := query(ctx, db, `SELECT cid, COALESCE(name, ''), "desc" FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno`, func(r *sql.Rows) error {
		var k indexKey
		var cid int
		err := r.Scan(&cid, &k.name, &k.desc)
		k.expr = cid == -2
		keys = append(keys, k)
		return err
	}, index)
	return keys, err
}

// keyList prints index keys as "(a, b)".
func keyList(keys []indexKey) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
	}
	return list(names)
}

// readSQLiteForeignKeys reads a table's REFERENCES constraints.
func readSQLiteForeignKeys(ctx context.Context, db *sql.DB, t *Table) error {
	last := -1
	return query(ctx, db, `SELECT id, "table", "from", COALESCE("to", ''), on_update, on_delete
		FROM pragma_foreign_key_list(?) ORDER BY id, seq`, func(r *sql.Rows) error {
		var id int
		var ref, from, to, onUpdate, onDelete string
		if err := r.Scan(&id, &ref, &from, &to, &onUpdate, &onDelete); err != nil {
			return err
		}
		if id != last {
			t.ForeignKeys = append(t.ForeignKeys, ForeignKey{RefTable: ref, OnUpdate: action(onUpdate), OnDelete: action(onDelete)})
			last = id
		}
		fk := &t.ForeignKeys[len(t.ForeignKeys)-1]
		fk.Columns = append(fk.Columns, from)
		fk.RefColumns = append(fk.RefColumns, to)
		return nil
	}, t.Name)
}

// action normalises a foreign key's action: "" for NO ACTION.
func action(a string) string {
	if a = strings.ToUpper(a); a == "NO ACTION" {
		return ""
	}
	return a
}
