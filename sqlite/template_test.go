package sqlite_test

import (
	"context"
	"crypto/rand"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/sqlite"
)

// template is a database migrated once, that each of the store suite's
// subtests copies instead of migrating its own (a tenth of a second each,
// over a hundred subtests); its vault is every copy's.
var template struct {
	once  sync.Once
	dir   string
	path  string
	vault *topupd.Vault
	err   error
}

// TestMain removes the template when the tests end.
func TestMain(m *testing.M) {
	code := m.Run()
	if template.dir != "" {
		os.RemoveAll(template.dir)
	}
	os.Exit(code)
}

// freshStore opens a store on a copy of the migrated template, closed when
// t ends.
func freshStore(t *testing.T) *sqlite.Store {
	t.Helper()
	template.once.Do(func() {
		secret := make([]byte, topupd.SecretKeySize)
		rand.Read(secret)
		if template.vault, template.err = topupd.NewVault(secret); template.err != nil {
			return
		}
		if template.dir, template.err = os.MkdirTemp("", "topupd-sqlite-template-"); template.err != nil {
			return
		}
		template.path = filepath.Join(template.dir, "template.db")
		s, err := sqlite.Open(context.Background(), template.path, template.vault)
		if err != nil {
			template.err = err
			return
		}
		template.err = s.Close()
	})
	if template.err != nil {
		t.Fatalf("the template database: %v", template.err)
	}
	path := filepath.Join(t.TempDir(), "t.db")
	if err := copyFile(template.path, path); err != nil {
		t.Fatal(err)
	}
	return openAt(t, path, template.vault)
}

// copyFile copies a closed database file.
func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
