package main

import (
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// TestMutantsApply checks every mutant against today's code: each snippet
// occurs exactly once in its file, each mutated or added file still
// parses, and an added file is of its directory's package. A refactor that
// moves a mutated line fails here, naming the mutant to update, instead of
// leaving the simulator to test nothing.
func TestMutantsApply(t *testing.T) {
	root, err := moduleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, m := range mutants {
		if m.Name == "" || strings.ContainsAny(m.Name, " \t/") || m.Bug == "" || len(m.Edits)+len(m.Adds) == 0 {
			t.Errorf("mutant %q: wants a one-word name, a Bug and at least one edit or file", m.Name)
		}
		if names[m.Name] {
			t.Errorf("two mutants named %s", m.Name)
		}
		names[m.Name] = true
		files, err := Apply(root, m)
		if err != nil {
			t.Error(err)
			continue
		}
		for file, src := range files {
			f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.AllErrors)
			if err != nil {
				t.Errorf("mutant %s leaves %s unparsable: %v", m.Name, file, err)
				continue
			}
			if want := packageOf(t, root, path.Dir(file)); f.Name.Name != want {
				t.Errorf("mutant %s: %s is of package %s, its directory's is %s", m.Name, file, f.Name.Name, want)
			}
		}
	}
}

// packageOf is the package of the Go files in dir (slash-separated, from
// root), as its first non-test file says.
func packageOf(t *testing.T, root, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, dir, n), nil, parser.PackageClauseOnly)
			if err != nil {
				t.Fatal(err)
			}
			return f.Name.Name
		}
	}
	t.Fatalf("%s has no Go file", dir)
	return ""
}

// TestApplyRefuses checks that Apply refuses a snippet found twice or not
// at all, an edit that changes nothing and a file added over one that
// exists, naming the mutant; and applies one that fits.
func TestApplyRefuses(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nvar x, y = 1, 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		m    Mutant
		want string // in the error; "" for none
	}{
		{Mutant{Name: "twice", Edits: []Edit{{File: "a.go", Old: "1", New: "2"}}}, "mutant twice, edit 1: a.go holds its snippet 2 times"},
		{Mutant{Name: "gone", Edits: []Edit{{File: "a.go", Old: "var z", New: "var w"}}}, "mutant gone, edit 1: a.go holds its snippet 0 times"},
		{Mutant{Name: "same", Edits: []Edit{{File: "a.go", Old: "x", New: "x"}}}, "changes nothing"},
		{Mutant{Name: "missing", Edits: []Edit{{File: "b.go", Old: "x", New: "y"}}}, "mutant missing, edit 1"},
		{Mutant{Name: "exists", Adds: []Add{{File: "a.go", Source: "package a\n"}}}, "mutant exists adds a.go, which exists"},
		// The second edit sees the first's result: "1, 1" is then "1, 2".
		{Mutant{Name: "fits", Edits: []Edit{{File: "a.go", Old: "x, y", New: "x, z"}, {File: "a.go", Old: "1, 1", New: "1, 2"}},
			Adds: []Add{{File: "b.go", Source: "package a\n"}}}, ""},
	} {
		files, err := Apply(root, tc.m)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.m.Name, err)
		case tc.want == "":
			if got := string(files["a.go"]); got != "package a\n\nvar x, z = 1, 2\n" || string(files["b.go"]) != "package a\n" {
				t.Errorf("%s: a.go is %q, b.go %q", tc.m.Name, got, files["b.go"])
			}
		case err == nil || !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: error %v, want one saying %q", tc.m.Name, err, tc.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.go")); string(b) != "package a\n\nvar x, y = 1, 1\n" {
		t.Errorf("Apply changed a.go on disk: %q", b)
	}
}
