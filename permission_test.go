package topupd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPermissionsListed: Permissions lists every constant of type
// Permission declared in the package, once each, so that a permission
// added and not listed fails here, not in a console page that names it
// (see Permission.Valid and the console's checked May).
func TestPermissionsListed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var declared []Permission
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Permission" {
					continue
				}
				for _, val := range v.Values {
					lit, ok := val.(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s: a Permission that is not a string literal", fset.Position(val.Pos()))
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					declared = append(declared, Permission(s))
				}
			}
		}
	}
	listed := Permissions()
	if len(declared) < 12 {
		t.Fatalf("found %d Permission constants, want at least 12: does the walk still find them?", len(declared))
	}
	slices.Sort(declared)
	sorted := slices.Sorted(slices.Values(listed))
	if !slices.Equal(declared, sorted) {
		t.Errorf("Permissions() lists %v, the package declares %v", sorted, declared)
	}
	for _, p := range declared {
		if !p.Valid() {
			t.Errorf("%q is declared but not Valid", p)
		}
	}
	for _, p := range []Permission{"", "Read", "export-code", "admin"} {
		if p.Valid() {
			t.Errorf("%q is Valid", p)
		}
	}
}
