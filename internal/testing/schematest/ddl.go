package schematest

import (
	"fmt"
	"strings"
)

// tableDef is what parseCreateTable finds in a CREATE TABLE that the
// pragmas do not tell.
type tableDef struct {
	checks        []string          // each CHECK's expression, as written
	collations    map[string]string // column (lower case) → its COLLATE, upper case, but BINARY
	autoincrement bool
}

// tableConstraints are the words a table constraint starts with; any other
// item of a CREATE TABLE is a column.
var tableConstraints = map[string]bool{"CONSTRAINT": true, "PRIMARY": true, "UNIQUE": true, "CHECK": true, "FOREIGN": true}

// parseCreateTable reads SQLite's CREATE TABLE text, as sqlite_master keeps
// it (with the columns that ALTER TABLE … ADD COLUMN appended).
func parseCreateTable(src string) (tableDef, error) {
	def := tableDef{collations: map[string]string{}}
	toks, err := lex(src)
	if err != nil {
		return def, err
	}
	open, end := parenList(toks, 0)
	if end < 0 {
		return def, fmt.Errorf("no column list in %q", src)
	}
	for _, item := range splitTop(toks[open+1 : end]) {
		if len(item) == 0 {
			continue
		}
		column := !tableConstraints[strings.ToUpper(item[0].text)] || item[0].kind != tIdent
		depth := 0
		for i, t := range item {
			switch {
			case t.is("("):
				depth++
			case t.is(")"):
				depth--
			case depth > 0:
			case t.is("CHECK") && i+1 < len(item) && item[i+1].is("("):
				close := group(item, i+1)
				if close < 0 {
					return def, fmt.Errorf("unbalanced CHECK in %q", src)
				}
				def.checks = append(def.checks, span(src, item[i+2:close]))
			case t.is("COLLATE") && column && i+1 < len(item):
				if coll := strings.ToUpper(item[i+1].text); coll != "BINARY" {
					def.collations[strings.ToLower(item[0].text)] = coll
				}
			case t.is("AUTOINCREMENT"):
				def.autoincrement = true
			}
		}
	}
	return def, nil
}

// indexDef is what parseCreateIndex finds in a CREATE INDEX.
type indexDef struct {
	keys  []string // each key's column or expression, as written, without COLLATE, ASC or DESC
	desc  []bool   // whether each key is DESC
	where string   // the partial index's predicate, as written; "" when none
}

// parseCreateIndex reads a CREATE INDEX statement, SQLite's as written or
// PostgreSQL's as pg_get_indexdef prints it (with USING method).
func parseCreateIndex(src string) (indexDef, error) {
	var def indexDef
	toks, err := lex(src)
	if err != nil {
		return def, err
	}
	open, end := -1, -1
	if on := find(toks, 0, "ON"); on >= 0 {
		open, end = parenList(toks, on+1)
	}
	if end < 0 {
		return def, fmt.Errorf("no key list in %q", src)
	}
	for _, item := range splitTop(toks[open+1 : end]) {
		desc := false
		for len(item) > 1 {
			last := item[len(item)-1]
			if last.is("ASC") || last.is("DESC") {
				desc = desc || last.is("DESC")
				item = item[:len(item)-1]
			} else if len(item) > 2 && item[len(item)-2].is("COLLATE") {
				item = item[:len(item)-2]
			} else {
				break
			}
		}
		def.keys = append(def.keys, span(src, item))
		def.desc = append(def.desc, desc)
	}
	if where := find(toks, end+1, "WHERE"); where >= 0 {
		def.where = span(src, toks[where+1:])
	}
	return def, nil
}

// parseSQLiteTrigger reads when an SQLite trigger fires from its CREATE
// TRIGGER text: [BEFORE | AFTER | INSTEAD OF] event ON table.
func parseSQLiteTrigger(src string) (Trigger, error) {
	tr := Trigger{Timing: "BEFORE"} // SQLite's default
	toks, err := lex(src)
	if err != nil {
		return tr, err
	}
	i := 0
	for i < len(toks) && !toks[i].is("TRIGGER") {
		i++
	}
	i++ // the name
	if i+2 < len(toks) && toks[i].is("IF") && toks[i+1].is("NOT") && toks[i+2].is("EXISTS") {
		i += 3
	}
	i++
	if i+1 < len(toks) && toks[i].is(".") { // schema.name
		i += 2
	}
	switch {
	case i < len(toks) && (toks[i].is("BEFORE") || toks[i].is("AFTER")):
		tr.Timing = strings.ToUpper(toks[i].text)
		i++
	case i+1 < len(toks) && toks[i].is("INSTEAD") && toks[i+1].is("OF"):
		tr.Timing = "INSTEAD OF"
		i += 2
	}
	if i >= len(toks) {
		return tr, fmt.Errorf("no event in %q", src)
	}
	var cols []string
	ev := strings.ToUpper(toks[i].text)
	if ev == "UPDATE" && i+1 < len(toks) && toks[i+1].is("OF") {
		for i += 2; i < len(toks) && !toks[i].is("ON"); i++ {
			if !toks[i].is(",") {
				cols = append(cols, strings.ToLower(toks[i].text))
			}
		}
	}
	switch ev {
	case "INSERT", "UPDATE", "DELETE":
		tr.Events = events(ev == "INSERT", ev == "UPDATE", ev == "DELETE", false, cols)
	default:
		return tr, fmt.Errorf("unknown event %q in %q", ev, src)
	}
	return tr, nil
}
