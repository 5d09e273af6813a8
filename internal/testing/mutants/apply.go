package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Apply returns the files m changes or adds, by slash-separated path from
// root (the module's root), with their mutated text. It reads the files
// from root and changes none of them. Each edit's Old must occur exactly
// once in its file as the edits before it left it, and an added file must
// not exist yet.
func Apply(root string, m Mutant) (map[string][]byte, error) {
	out := map[string][]byte{}
	for i, e := range m.Edits {
		src, ok := out[e.File]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(e.File)))
			if err != nil {
				return nil, fmt.Errorf("mutant %s, edit %d: %w", m.Name, i+1, err)
			}
			src = b
		}
		switch n := strings.Count(string(src), e.Old); {
		case e.Old == "" || e.Old == e.New:
			return nil, fmt.Errorf("mutant %s, edit %d of %s: changes nothing", m.Name, i+1, e.File)
		case n != 1:
			return nil, fmt.Errorf("mutant %s, edit %d: %s holds its snippet %d times, not once; update the mutant (internal/testing/mutants) to today's code:\n%s",
				m.Name, i+1, e.File, n, e.Old)
		}
		out[e.File] = []byte(strings.Replace(string(src), e.Old, e.New, 1))
	}
	for _, a := range m.Adds {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(a.File)))
		switch {
		case err == nil:
			return nil, fmt.Errorf("mutant %s adds %s, which exists", m.Name, a.File)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("mutant %s: %w", m.Name, err)
		case out[a.File] != nil:
			return nil, fmt.Errorf("mutant %s adds %s twice", m.Name, a.File)
		}
		out[a.File] = []byte(a.Source)
	}
	return out, nil
}

// writeOverlay writes files (Apply's answer) into dir, with the overlay
// that go build -overlay reads (go help build): each file's absolute path
// under root replaced by its copy in dir. It returns the overlay's path.
func writeOverlay(dir, root string, files map[string][]byte) (string, error) {
	overlay := struct{ Replace map[string]string }{map[string]string{}}
	for path, src := range files {
		copyPath := filepath.Join(dir, strings.ReplaceAll(path, "/", "__"))
		if err := os.WriteFile(copyPath, src, 0o644); err != nil {
			return "", err
		}
		overlay.Replace[filepath.Join(root, filepath.FromSlash(path))] = copyPath
	}
	b, err := json.MarshalIndent(overlay, "", "  ")
	if err != nil {
		return "", err
	}
	name := filepath.Join(dir, "overlay.json")
	return name, os.WriteFile(name, b, 0o644)
}

// moduleRoot is the directory of the go.mod at or above dir.
func moduleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod at or above the working directory")
		}
		dir = up
	}
}
