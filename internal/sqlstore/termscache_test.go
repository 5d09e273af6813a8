package sqlstore

import (
	"fmt"
	"testing"

	"github.com/topupd/topupd"
)

// TestTermsCacheVersions shows an entry serves only its own version: a
// newer version empties the cache, an older one neither finds nor keeps.
func TestTermsCacheVersions(t *testing.T) {
	c := &termsCache{entries: map[termsKey]*termsEntry{}}
	k := termsKey{account: "acc_1", pid: "uc60"}
	c.put(5, k, &termsEntry{pack: topupd.Pack{Price: 100}})
	if e, ok := c.get(5, k); !ok || e.pack.Price != 100 {
		t.Fatalf("get(5) = %v, %v; want the entry kept at 5", e, ok)
	}
	if _, ok := c.get(4, k); ok {
		t.Error("get(4) found an entry kept at 5")
	}
	c.put(4, k, &termsEntry{pack: topupd.Pack{Price: 90}})
	if e, _ := c.get(5, k); e == nil || e.pack.Price != 100 {
		t.Errorf("put(4) replaced the entry kept at 5: %v", e)
	}
	if _, ok := c.get(6, k); ok {
		t.Error("get(6) found an entry kept at 5")
	}
	if _, ok := c.get(5, k); ok {
		t.Error("after version 6 was seen, get(5) still found an entry")
	}
}

// TestTermsCacheBounded shows the cache keeps at most termsCacheMax entries.
func TestTermsCacheBounded(t *testing.T) {
	c := &termsCache{entries: map[termsKey]*termsEntry{}}
	for i := range termsCacheMax + 100 {
		c.put(1, termsKey{account: fmt.Sprint(i), pid: "uc60"}, &termsEntry{})
	}
	if n := len(c.entries); n != termsCacheMax {
		t.Errorf("%d entries, want %d", n, termsCacheMax)
	}
	last := termsKey{account: fmt.Sprint(termsCacheMax + 99), pid: "uc60"}
	if _, ok := c.get(1, last); !ok {
		t.Error("the newest entry was not kept")
	}
}
