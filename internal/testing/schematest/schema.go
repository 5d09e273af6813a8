// Package schematest reads the schema of a migrated SQLite file or
// PostgreSQL schema into one normalised model, and lists how two such
// models differ, so that a test can hold the two stores' hand-written
// migrations to the same tables, columns, keys, constraints, indexes and
// triggers, but for differences it lists and explains.
package schematest

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Schema is a database's schema, normalised: SQLite's and PostgreSQL's
// spelling of the same thing compare equal.
type Schema struct {
	Tables   map[string]*Table
	Indexes  map[string]Index   // by name; not those behind a PRIMARY KEY or UNIQUE constraint
	Triggers map[string]Trigger // by name
}

// Table is a table: its columns and constraints.
type Table struct {
	Name        string
	Columns     []Column
	PrimaryKey  []string // the columns of its primary key, in order
	Checks      []string // its CHECK constraints, each a normalised expression, sorted
	Uniques     []string // its UNIQUE constraints, each its columns as "(a, b)", sorted
	ForeignKeys []ForeignKey
}

// Column is a table's column.
type Column struct {
	Name string
	// Type is the type's family: integer (SQLite's INTEGER, PostgreSQL's
	// smallint, integer and bigint), text, bytes (BLOB, bytea), real,
	// numeric, boolean or timestamp.
	Type    string
	NotNull bool
	// Default is the default's expression, normalised; "" when none.
	Default string
	// Collation is a collation the column declares; "" for the default
	// (SQLite's BINARY, PostgreSQL's database default).
	Collation string
	// Generated says the database numbers the rows in it: SQLite's INTEGER
	// PRIMARY KEY AUTOINCREMENT, PostgreSQL's identity or serial.
	Generated bool
}

// ForeignKey is a REFERENCES constraint.
type ForeignKey struct {
	Columns    []string
	RefTable   string
	RefColumns []string
	OnUpdate   string // the action, upper case; "" for NO ACTION
	OnDelete   string
}

// Index is an index that no constraint made.
type Index struct {
	Name   string
	Table  string
	Unique bool
	Keys   []string // each a column or a normalised expression, with " DESC" when descending
	Where  string   // the normalised predicate of a partial index; "" when none
}

// Trigger is a trigger: when it fires, never what it does (SQLite's body is
// SQL, PostgreSQL's a function).
type Trigger struct {
	Name   string
	Table  string
	Timing string   // BEFORE, AFTER or INSTEAD OF
	Events []string // of INSERT, UPDATE, UPDATE OF a, b (columns sorted), DELETE, TRUNCATE, in that order
	// Statement says it fires once per statement rather than once per row.
	Statement bool
}

// Difference is one way in which two schemas differ: a fact that one of
// them has and the other has not, or has with another value.
type Difference struct {
	Key string // what the fact is about, as "column orders.seq NOT NULL"
	// InSQLite and InPostgres say which schemas have the fact; SQLite and
	// Postgres are its value in each ("" for a fact that is there or not).
	InSQLite, InPostgres bool
	SQLite, Postgres     string
}

// String prints d as one line: "- key: value" for a fact only SQLite has,
// "+ key: value" for one only PostgreSQL has, "key: -value +value" for one
// whose value differs.
func (d Difference) String() string {
	with := func(v string) string {
		if v == "" {
			return d.Key
		}
		return d.Key + ": " + v
	}
	switch {
	case !d.InPostgres:
		return "- " + with(d.SQLite)
	case !d.InSQLite:
		return "+ " + with(d.Postgres)
	}
	return d.Key + ": -" + d.SQLite + " +" + d.Postgres
}

// Diff lists how the SQLite schema lite and the PostgreSQL schema pg
// differ, sorted by key.
func Diff(lite, pg *Schema) []Difference {
	a, b := lite.facts(), pg.facts()
	var diffs []Difference
	for _, k := range slices.Sorted(maps.Keys(merge(a, b))) {
		va, inA := a[k]
		vb, inB := b[k]
		if inA && inB && va == vb {
			continue
		}
		diffs = append(diffs, Difference{Key: k, SQLite: va, Postgres: vb, InSQLite: inA, InPostgres: inB})
	}
	return diffs
}

func merge(a, b map[string]string) map[string]string {
	m := maps.Clone(a)
	maps.Copy(m, b)
	return m
}

// facts flattens s into keyed facts, each as small as can differ on its
// own, so that one difference is one line. A fact with an empty value is
// there or not (a CHECK, a NOT NULL); the others have a value to compare.
func (s *Schema) facts() map[string]string {
	f := map[string]string{}
	for _, t := range s.Tables {
		f["table "+t.Name] = ""
		for _, c := range t.Columns {
			k := "column " + t.Name + "." + c.Name
			f[k] = c.Type
			if c.NotNull {
				f[k+" NOT NULL"] = ""
			}
			if c.Default != "" {
				f[k+" DEFAULT"] = c.Default
			}
			if c.Collation != "" {
				f[k+" COLLATE"] = c.Collation
			}
			if c.Generated {
				f[k+" GENERATED"] = ""
			}
		}
		if len(t.PrimaryKey) > 0 {
			f["primary key "+t.Name] = list(t.PrimaryKey)
		}
		for _, c := range t.Checks {
			f["check "+t.Name+": "+c] = ""
		}
		for _, u := range t.Uniques {
			f["unique "+t.Name+" "+u] = ""
		}
		for _, fk := range t.ForeignKeys {
			v := "REFERENCES " + fk.RefTable + " " + list(fk.RefColumns)
			if fk.OnUpdate != "" {
				v += " ON UPDATE " + fk.OnUpdate
			}
			if fk.OnDelete != "" {
				v += " ON DELETE " + fk.OnDelete
			}
			f["foreign key "+t.Name+" "+list(fk.Columns)] = v
		}
	}
	for _, ix := range s.Indexes {
		v := "ON " + ix.Table + " " + list(ix.Keys)
		if ix.Unique {
			v = "UNIQUE " + v
		}
		if ix.Where != "" {
			v += " WHERE " + ix.Where
		}
		f["index "+ix.Name] = v
	}
	for _, tr := range s.Triggers {
		v := tr.Timing + " " + strings.Join(tr.Events, " OR ") + " ON " + tr.Table
		if tr.Statement {
			v += " FOR EACH STATEMENT"
		}
		f["trigger "+tr.Name] = v
	}
	return f
}

// list prints names as "(a, b)".
func list(names []string) string { return "(" + strings.Join(names, ", ") + ")" }

// typeFamily maps a declared or catalogued type to its family, by SQLite's
// rules of type affinity, which also sort PostgreSQL's type names right.
func typeFamily(declared string) string {
	t := strings.ToLower(declared)
	switch {
	case strings.Contains(t, "int"):
		return "integer"
	case strings.Contains(t, "char"), strings.Contains(t, "clob"), strings.Contains(t, "text"):
		return "text"
	case t == "" || strings.Contains(t, "blob") || t == "bytea":
		return "bytes"
	case strings.Contains(t, "real"), strings.Contains(t, "floa"), strings.Contains(t, "doub"):
		return "real"
	case strings.HasPrefix(t, "bool"):
		return "boolean"
	case strings.HasPrefix(t, "timestamp"), t == "date", strings.HasPrefix(t, "time"):
		return "timestamp"
	}
	return "numeric"
}

// events orders and prints a trigger's events.
func events(insert, update, del, truncate bool, updateOf []string) []string {
	var ev []string
	if insert {
		ev = append(ev, "INSERT")
	}
	if update {
		if len(updateOf) > 0 {
			cols := slices.Sorted(slices.Values(updateOf))
			ev = append(ev, "UPDATE OF "+strings.Join(cols, ", "))
		} else {
			ev = append(ev, "UPDATE")
		}
	}
	if del {
		ev = append(ev, "DELETE")
	}
	if truncate {
		ev = append(ev, "TRUNCATE")
	}
	return ev
}

// table returns s's table name, adding it if need be.
func (s *Schema) table(name string) *Table {
	t, ok := s.Tables[name]
	if !ok {
		t = &Table{Name: name}
		s.Tables[name] = t
	}
	return t
}

func newSchema() *Schema {
	return &Schema{Tables: map[string]*Table{}, Indexes: map[string]Index{}, Triggers: map[string]Trigger{}}
}

// sortConstraints sorts each table's CHECKs and UNIQUEs.
func (s *Schema) sortConstraints() {
	for _, t := range s.Tables {
		slices.Sort(t.Checks)
		slices.Sort(t.Uniques)
	}
}

// errorf wraps an error with where the reading went wrong.
// query runs q with args and scans each row, stopping at scan's first
// error.
func query(ctx context.Context, db *sql.DB, q string, scan func(*sql.Rows) error, args ...any) error {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func errorf(where string, err error) error { return fmt.Errorf("schematest: %s: %w", where, err) }
