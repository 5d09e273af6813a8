package topupd

import (
	"strings"
	"testing"
)

// FuzzParseAPIKey checks that only keys of the exact form are accepted and
// that nothing panics.
func FuzzParseAPIKey(f *testing.F) {
	key, _ := NewAPIKey()
	for _, s := range []string{key, "", "tpd_", "tpd_short", key + "x", strings.ToUpper(key), "tpd_" + strings.Repeat("é", 43)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseAPIKey(s)
		if err != nil {
			if CodeOf(err) != EKeyFormat {
				t.Fatalf("ParseAPIKey(%q): code %v", s, CodeOf(err))
			}
			return
		}
		if len(s) != len(APIKeyPrefix)+apiKeyBody || !strings.HasPrefix(s, APIKeyPrefix) {
			t.Fatalf("ParseAPIKey accepted %q", s)
		}
		if h == (KeyHash{}) {
			t.Fatal("zero hash")
		}
	})
}
