package schematest

import (
	"fmt"
	"strconv"
	"strings"
)

// An expression (a CHECK, a column's default, an index's key or WHERE) is
// normalised by parsing it and printing it back in one canonical form, so
// that SQLite's text as written and PostgreSQL's deparsed text of the same
// expression come out equal:
//
//   - every operand that is itself an operation is parenthesised, and no
//     other parentheses are kept; chains of AND and of OR are flattened;
//   - PostgreSQL's casts are dropped ('x'::text is 'x'; '-1'::integer is -1);
//   - x = ANY (ARRAY[a, b]) is x IN (a, b), and x <> ALL (…) is NOT IN;
//   - x BETWEEN a AND b is (x >= a) AND (x <= b), as PostgreSQL stores it;
//   - SQLite's == and != are = and <>; its x IS y and x IS NOT y (y not
//     NULL) are IS NOT DISTINCT FROM and IS DISTINCT FROM;
//   - SQLite's length() of a column of bytes counts bytes: octet_length();
//   - names and keywords are lower and upper case.
//
// What the parser does not know (a subquery, an operator it has no rule
// for) is an error, so that nothing is compared half-understood. Operator
// precedence follows PostgreSQL's; SQLite's differs only among comparison
// operators, which the schemas parenthesise.

// expr is a parsed expression: a leaf (op "") or an operation on args.
type expr struct {
	op   string
	leaf string
	args []*expr
}

// exprDialect says how to read one database's expressions.
type exprDialect struct {
	sqlite bool
	bytes  map[string]bool // the columns holding bytes, for SQLite's length()
}

// normalise parses src and prints it in canonical form.
func normalise(src string, d exprDialect) (string, error) {
	toks, err := lex(src)
	if err != nil {
		return "", err
	}
	p := &parser{toks: toks, d: d}
	e, err := p.parse()
	if err != nil {
		return "", fmt.Errorf("expression %q: %w", src, err)
	}
	return e.String(), nil
}

type parser struct {
	toks []token
	pos  int
	d    exprDialect
	err  error
}

func (p *parser) parse() (*expr, error) {
	e := p.or()
	if p.err == nil && p.pos < len(p.toks) {
		p.fail("unexpected %q", p.toks[p.pos].text)
	}
	return e, p.err
}

func (p *parser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf(format, args...)
	}
}

func (p *parser) peek(s string) bool {
	return p.pos < len(p.toks) && p.toks[p.pos].is(s)
}

func (p *parser) peekAt(i int, s string) bool {
	return p.pos+i < len(p.toks) && p.toks[p.pos+i].is(s)
}

func (p *parser) accept(s string) bool {
	if p.peek(s) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expect(s string) {
	if !p.accept(s) {
		p.fail("want %q", s)
	}
}

func op(o string, args ...*expr) *expr { return &expr{op: o, args: args} }

func leaf(s string) *expr { return &expr{leaf: s} }

// logic builds an AND or OR, flattening a chain of the same.
func logic(o string, l, r *expr) *expr {
	e := op(o)
	for _, x := range []*expr{l, r} {
		if x.op == o {
			e.args = append(e.args, x.args...)
		} else {
			e.args = append(e.args, x)
		}
	}
	return e
}

func (p *parser) or() *expr {
	e := p.and()
	for p.err == nil && p.accept("OR") {
		e = logic("OR", e, p.and())
	}
	return e
}

func (p *parser) and() *expr {
	e := p.not()
	for p.err == nil && p.accept("AND") {
		e = logic("AND", e, p.not())
	}
	return e
}

func (p *parser) not() *expr {
	if p.accept("NOT") {
		return op("NOT", p.not())
	}
	return p.is()
}

func (p *parser) is() *expr {
	e := p.comparison()
	for p.err == nil {
		switch {
		case p.accept("ISNULL"):
			e = op("IS NULL", e)
		case p.accept("NOTNULL"):
			e = op("IS NOT NULL", e)
		case p.peek("NOT") && p.peekAt(1, "NULL"):
			p.pos += 2
			e = op("IS NOT NULL", e)
		case p.accept("IS"):
			not := p.accept("NOT")
			neg := map[bool]string{true: "NOT ", false: ""}[not]
			switch {
			case p.accept("NULL"):
				e = op("IS "+neg+"NULL", e)
			case p.accept("TRUE"), p.accept("FALSE"):
				e = op("IS "+neg+strings.ToUpper(p.toks[p.pos-1].text), e)
			case p.accept("DISTINCT"):
				p.expect("FROM")
				e = op("IS "+neg+"DISTINCT FROM", e, p.comparison())
			case p.d.sqlite: // SQLite's IS and IS NOT compare NULL as a value
				e = op("IS "+map[bool]string{true: "", false: "NOT "}[not]+"DISTINCT FROM", e, p.comparison())
			default:
				p.fail("IS %s what?", neg)
			}
		default:
			return e
		}
	}
	return e
}

// comparisons maps each comparison operator to its canonical spelling.
var comparisons = map[string]string{"=": "=", "==": "=", "<>": "<>", "!=": "<>", "<": "<", ">": ">", "<=": "<=", ">=": ">="}

func (p *parser) comparison() *expr {
	e := p.membership()
	for p.err == nil && p.pos < len(p.toks) {
		cmp, ok := comparisons[p.toks[p.pos].text]
		if !ok || p.toks[p.pos].kind != tOp {
			return e
		}
		p.pos++
		if p.accept("ANY") || p.accept("SOME") || p.accept("ALL") {
			quant := strings.ToUpper(p.toks[p.pos-1].text)
			p.expect("(")
			list := p.or()
			p.expect(")")
			switch {
			case list.op != "list":
				p.fail("%s %s of something other than an array", cmp, quant)
			case cmp == "=" && quant != "ALL":
				e = op("IN", append([]*expr{e}, list.args...)...)
			case cmp == "<>" && quant == "ALL":
				e = op("NOT IN", append([]*expr{e}, list.args...)...)
			default:
				p.fail("%s %s is not supported", cmp, quant)
			}
			continue
		}
		e = op(cmp, e, p.membership())
	}
	return e
}

func (p *parser) membership() *expr {
	e := p.concat()
	for p.err == nil {
		not := p.peek("NOT") && (p.peekAt(1, "IN") || p.peekAt(1, "BETWEEN") || p.peekAt(1, "LIKE") || p.peekAt(1, "GLOB"))
		if not {
			p.pos++
		}
		switch {
		case p.accept("IN"):
			p.expect("(")
			if p.peek("SELECT") {
				p.fail("subqueries are not supported")
				return e
			}
			list := []*expr{e}
			for p.err == nil && !p.peek(")") {
				list = append(list, p.or())
				if !p.accept(",") {
					break
				}
			}
			p.expect(")")
			e = op(map[bool]string{true: "NOT IN", false: "IN"}[not], list...)
		case p.accept("BETWEEN"):
			lo := p.concat()
			p.expect("AND")
			hi := p.concat()
			if not {
				e = logic("OR", op("<", e, lo), op(">", e, hi))
			} else {
				e = logic("AND", op(">=", e, lo), op("<=", e, hi))
			}
		case p.accept("LIKE"), p.accept("GLOB"):
			kw := strings.ToUpper(p.toks[p.pos-1].text)
			if not {
				kw = "NOT " + kw
			}
			e = op(kw, e, p.concat())
		default:
			if not {
				p.fail("NOT what?")
			}
			return e
		}
	}
	return e
}

// binary parses a left-associative level of the given operators above next.
func (p *parser) binary(next func() *expr, ops ...string) *expr {
	e := next()
	for p.err == nil && p.pos < len(p.toks) && p.toks[p.pos].kind == tOp {
		o := p.toks[p.pos].text
		found := false
		for _, x := range ops {
			found = found || o == x
		}
		if !found {
			return e
		}
		p.pos++
		e = op(o, e, next())
	}
	return e
}

func (p *parser) concat() *expr { return p.binary(p.sum, "||") }
func (p *parser) sum() *expr    { return p.binary(p.product, "+", "-") }
func (p *parser) product() *expr {
	return p.binary(p.unary, "*", "/", "%")
}

func (p *parser) unary() *expr {
	if p.accept("-") {
		x := p.unary()
		if x.op == "" && len(x.leaf) > 0 && isDigit(x.leaf[0]) {
			return leaf("-" + x.leaf)
		}
		return op("neg", x)
	}
	if p.accept("+") {
		return p.unary()
	}
	return p.cast()
}

// numericTypes are the types that a cast of a numeric string literal to
// leaves a number.
var numericTypes = map[string]bool{"smallint": true, "integer": true, "int": true, "bigint": true, "int2": true,
	"int4": true, "int8": true, "numeric": true, "decimal": true, "real": true, "double precision": true}

func (p *parser) cast() *expr {
	e := p.primary()
	for p.err == nil && p.accept("::") {
		e = castTo(e, p.typeName())
	}
	return e
}

// castTo drops a cast, but for a numeric string cast to a number type.
func castTo(e *expr, typ string) *expr {
	if numericTypes[typ] && e.op == "" && strings.HasPrefix(e.leaf, "'") {
		s := strings.Trim(e.leaf, "'")
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return leaf(s)
		}
	}
	return e
}

// typeName reads a type's name: words, an optional (size) and [].
func (p *parser) typeName() string {
	var words []string
	for p.pos < len(p.toks) && p.toks[p.pos].kind == tIdent {
		w := strings.ToLower(p.toks[p.pos].text)
		if len(words) > 0 && !map[string]bool{"varying": true, "precision": true, "with": true, "without": true, "time": true, "zone": true}[w] {
			break
		}
		words = append(words, w)
		p.pos++
	}
	if len(words) == 0 {
		p.fail("want a type name")
	}
	if p.peek("(") {
		if end := group(p.toks, p.pos); end > 0 {
			p.pos = end + 1
		}
	}
	for p.peek("[") && p.peekAt(1, "]") {
		p.pos += 2
	}
	return strings.Join(words, " ")
}

func (p *parser) primary() *expr {
	if p.pos >= len(p.toks) {
		p.fail("unexpected end")
		return leaf("")
	}
	t := p.toks[p.pos]
	p.pos++
	switch t.kind {
	case tNumber, tString:
		return leaf(t.text)
	case tBlob:
		return leaf(strings.ToLower(t.text))
	case tOp:
		if t.text != "(" {
			p.fail("unexpected %q", t.text)
			return leaf("")
		}
		if p.peek("SELECT") {
			p.fail("subqueries are not supported")
			return leaf("")
		}
		e := p.or()
		p.expect(")")
		return e
	}
	switch kw := strings.ToUpper(t.text); kw {
	case "NULL", "TRUE", "FALSE", "CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME":
		return leaf(kw)
	case "CASE":
		return p.caseExpr()
	case "CAST":
		p.expect("(")
		e := p.or()
		p.expect("AS")
		e = castTo(e, p.typeName())
		p.expect(")")
		return e
	case "ARRAY":
		p.expect("[")
		list := op("list")
		for p.err == nil && !p.peek("]") {
			list.args = append(list.args, p.or())
			if !p.accept(",") {
				break
			}
		}
		p.expect("]")
		return list
	case "EXISTS", "SELECT":
		p.fail("subqueries are not supported")
		return leaf("")
	}
	name := strings.ToLower(t.text)
	for p.peek(".") && p.pos+1 < len(p.toks) && p.toks[p.pos+1].kind == tIdent {
		name += "." + strings.ToLower(p.toks[p.pos+1].text)
		p.pos += 2
	}
	if !p.accept("(") {
		return leaf(name)
	}
	call := op("call")
	call.leaf = name
	if p.accept("*") {
		call.args = append(call.args, leaf("*"))
	}
	for p.err == nil && !p.peek(")") {
		call.args = append(call.args, p.or())
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	if p.d.sqlite && name == "length" && len(call.args) == 1 && p.d.bytes[call.args[0].leaf] {
		call.leaf = "octet_length" // SQLite's length() of a BLOB counts its bytes
	}
	return call
}

func (p *parser) caseExpr() *expr {
	e := op("CASE")
	if !p.peek("WHEN") {
		e.leaf = p.or().String()
	}
	for p.err == nil && p.accept("WHEN") {
		w := p.or()
		p.expect("THEN")
		e.args = append(e.args, w, p.or())
	}
	if p.accept("ELSE") {
		e.args = append(e.args, op("ELSE", p.or()))
	}
	p.expect("END")
	return e
}

// String prints e in canonical form.
func (e *expr) String() string {
	switch e.op {
	case "":
		return e.leaf
	case "call":
		return e.leaf + "(" + join(e.args, ", ", false) + ")"
	case "list":
		return "ARRAY[" + join(e.args, ", ", false) + "]"
	case "AND", "OR":
		return join(e.args, " "+e.op+" ", true)
	case "NOT":
		return "NOT " + e.args[0].wrapped()
	case "neg":
		return "-" + e.args[0].wrapped()
	case "IN", "NOT IN":
		return e.args[0].wrapped() + " " + e.op + " (" + join(e.args[1:], ", ", false) + ")"
	case "CASE":
		var b strings.Builder
		b.WriteString("CASE")
		if e.leaf != "" {
			b.WriteString(" " + e.leaf)
		}
		for i := 0; i < len(e.args); i++ {
			if e.args[i].op == "ELSE" {
				b.WriteString(" ELSE " + e.args[i].args[0].wrapped())
				continue
			}
			b.WriteString(" WHEN " + e.args[i].wrapped() + " THEN " + e.args[i+1].wrapped())
			i++
		}
		return b.String() + " END"
	}
	if len(e.args) == 1 { // IS NULL and the like
		return e.args[0].wrapped() + " " + e.op
	}
	return e.args[0].wrapped() + " " + e.op + " " + e.args[1].wrapped()
}

// wrapped prints e, in parentheses if it is an operation.
func (e *expr) wrapped() string {
	if e.op == "" || e.op == "call" || e.op == "list" || e.op == "CASE" {
		return e.String()
	}
	return "(" + e.String() + ")"
}

func join(es []*expr, sep string, wrap bool) string {
	parts := make([]string, len(es))
	for i, e := range es {
		if wrap {
			parts[i] = e.wrapped()
		} else {
			parts[i] = e.String()
		}
	}
	return strings.Join(parts, sep)
}
