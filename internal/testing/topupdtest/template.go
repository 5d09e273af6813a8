package topupdtest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"sync"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/sqlite"
)

// template is a SQLite database migrated once per test process, kept in
// memory: a harness with a database and a key of its own starts on a
// copy of it, under its key, instead of migrating its own (a tenth of a
// second or more each, over hundreds of harnesses).
var template struct {
	once sync.Once
	key  string // base64
	file []byte
	err  error
}

// fromTemplate writes a copy of the migrated template to path and returns
// the key (base64) it was made with.
func fromTemplate(path string) (key string, err error) {
	template.once.Do(func() {
		secret := make([]byte, topupd.SecretKeySize)
		rand.Read(secret)
		template.key = base64.StdEncoding.EncodeToString(secret)
		v, err := topupd.NewVault(secret)
		if err != nil {
			template.err = err
			return
		}
		dir, err := os.MkdirTemp("", "topupdtest-template-")
		if err != nil {
			template.err = err
			return
		}
		defer os.RemoveAll(dir)
		s, err := sqlite.Open(context.Background(), filepath.Join(dir, "template.db"), v)
		if err != nil {
			template.err = err
			return
		}
		if template.err = s.Close(); template.err == nil {
			template.file, template.err = os.ReadFile(filepath.Join(dir, "template.db"))
		}
	})
	if template.err != nil {
		return "", template.err
	}
	return template.key, os.WriteFile(path, template.file, 0o600)
}
