package console

import (
	"html/template"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template/parse"

	"github.com/topupd/topupd"
)

// mayCall matches a call of view.May in a template's source: .May,
// $.May, .V.May.
var mayCall = regexp.MustCompile(`\.May\b`)

// TestTemplatePermissions: every permission a console template names
// (with view.May, on any path through the page, run or not) is one of
// topupd's permissions, named by a literal string the test can check; no
// template compares a role by its name instead. The calls found are
// counted against the source, so a call the walk misses fails too.
func TestTemplatePermissions(t *testing.T) {
	names, err := fs.Glob(files, "templates/*.html")
	if err != nil || len(names) == 0 {
		t.Fatalf("the templates: %v, %v", names, err)
	}
	total := 0
	for _, name := range names {
		src, err := fs.ReadFile(files, name)
		if err != nil {
			t.Fatal(err)
		}
		tmpl, err := template.New(name).Funcs(funcs).Parse(string(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		found := 0
		check := func(n parse.Node, what string) {
			t.Errorf("%s: %s: %s", name, location(tmpl, n), what)
		}
		for _, tt := range tmpl.Templates() {
			if tt.Tree == nil {
				continue
			}
			walk(tt.Tree.Root, func(c *parse.CommandNode) {
				if isMay(c.Args[0]) {
					found++
					if len(c.Args) != 2 {
						check(c, "May takes one permission")
						return
					}
					s, ok := c.Args[1].(*parse.StringNode)
					switch {
					case !ok:
						check(c, "May's permission must be a literal string, so that this test can check it")
					case !topupd.Permission(s.Text).Valid():
						check(c, "May names "+s.Quoted+", which is no permission of topupd's")
					}
				}
				if id, ok := c.Args[0].(*parse.IdentifierNode); ok && (id.Ident == "eq" || id.Ident == "ne") && slices.ContainsFunc(c.Args[1:], isRole) {
					for _, a := range c.Args[1:] {
						if _, ok := a.(*parse.StringNode); ok {
							check(c, "compares the operator's role with a name: ask May for a permission instead")
						}
					}
				}
			})
		}
		if want := len(mayCall.FindAllIndex(src, -1)); found != want {
			t.Errorf("%s: the walk found %d calls of May, the source has %d", name, found, want)
		}
		total += found
	}
	if total < 20 { // were May renamed, source and walk would agree on none
		t.Errorf("%d calls of May in all the templates, want at least 20: does the walk still find them?", total)
	}
}

// TestMayUnknownPermission: a page that names an unknown permission is
// not drawn (the template stops with an error); a known one is answered.
func TestMayUnknownPermission(t *testing.T) {
	tmpl := template.Must(template.New("t").Parse(`{{if .May "catalogue"}}yes{{else}}no{{end}}`))
	var b strings.Builder
	if err := tmpl.Execute(&b, view{}); err == nil || !strings.Contains(err.Error(), `"catalogue"`) {
		t.Errorf("an unknown permission: %q, %v; want an error that names it", b.String(), err)
	}
	b.Reset()
	known := template.Must(template.New("t").Parse(`{{if .May "catalog"}}yes{{else}}no{{end}}`))
	if err := known.Execute(&b, view{}); err != nil || b.String() != "no" {
		t.Errorf("a known permission, signed out: %q, %v; want no", b.String(), err)
	}
}

// isRole reports whether a node reads view.Role.
func isRole(n parse.Node) bool {
	switch n := n.(type) {
	case *parse.FieldNode: // .Role, or .V.Role in a partial
		return slices.Equal(n.Ident, []string{"Role"}) || slices.Equal(n.Ident, []string{"V", "Role"})
	case *parse.VariableNode: // $.Role
		return slices.Equal(n.Ident, []string{"$", "Role"})
	}
	return false
}

// isMay reports whether a command's callee is view.May.
func isMay(n parse.Node) bool {
	var idents []string
	switch n := n.(type) {
	case *parse.FieldNode:
		idents = n.Ident
	case *parse.VariableNode:
		idents = n.Ident[1:]
	case *parse.ChainNode:
		idents = n.Field
	}
	return len(idents) > 0 && idents[len(idents)-1] == "May"
}

// walk calls f on every command of a template tree.
func walk(n parse.Node, f func(*parse.CommandNode)) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			walk(c, f)
		}
	case *parse.ActionNode:
		walk(n.Pipe, f)
	case *parse.IfNode:
		walkBranch(&n.BranchNode, f)
	case *parse.RangeNode:
		walkBranch(&n.BranchNode, f)
	case *parse.WithNode:
		walkBranch(&n.BranchNode, f)
	case *parse.TemplateNode:
		walk(n.Pipe, f)
	case *parse.PipeNode:
		if n == nil {
			return
		}
		for _, c := range n.Cmds {
			walk(c, f)
		}
	case *parse.CommandNode:
		f(n)
		for _, a := range n.Args {
			walk(a, f)
		}
	case *parse.ChainNode:
		walk(n.Node, f)
	}
}

func walkBranch(b *parse.BranchNode, f func(*parse.CommandNode)) {
	walk(b.Pipe, f)
	walk(b.List, f)
	walk(b.ElseList, f)
}

// location is a node's line and context in its template.
func location(t *template.Template, n parse.Node) string {
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			if loc, ctx := tt.Tree.ErrorContext(n); loc != "" {
				return loc + " " + ctx
			}
		}
	}
	return n.String()
}
