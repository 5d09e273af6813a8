package sqlite_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/storetest"
	"github.com/topupd/topupd/sqlite"
)

// TestBackgroundCheckpoint: committed writes reach the database file while
// the store is open, though the writer's own auto-checkpoint is far off,
// and closing the store empties the WAL; the data survives a reopen.
func TestBackgroundCheckpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ckpt.db")
	v := storetest.NewVault(t)
	s, err := sqlite.Open(t.Context(), path, v)
	if err != nil {
		t.Fatal(err)
	}
	size := func(p string) int64 {
		fi, err := os.Stat(p)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	before := size(path)
	const n = 2000
	for i := range n {
		a := topupd.Account{ID: fmt.Sprintf("acc_%06d", i), Name: fmt.Sprintf("account %d with a longer name to fill pages", i), APIEnabled: true, CreatedAt: time.Now()}
		if _, err := s.CreateAccount(t.Context(), nil, a); err != nil {
			t.Fatal(err)
		}
	}
	for end := time.Now().Add(10 * time.Second); size(path) <= before; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("after %d commits the database file is still %d bytes (WAL %d bytes): nothing was checkpointed", n, size(path), size(path+"-wal"))
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if w := size(path + "-wal"); w != 0 {
		t.Errorf("after Close the WAL holds %d bytes, want 0", w)
	}
	s2 := openAt(t, path, v)
	if _, err := s2.Account(t.Context(), fmt.Sprintf("acc_%06d", n-1)); err != nil {
		t.Errorf("the last account after a reopen: %v", err)
	}
}
