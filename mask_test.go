package topupd_test

import (
	"slices"
	"testing"

	"github.com/topupd/topupd"
)

// TestMaskCode: the last 4 characters stay, every other character (rune,
// not byte) becomes one •; a code of 4 characters or fewer is all •.
func TestMaskCode(t *testing.T) {
	for code, want := range map[string]string{
		"GAMEKEY-1234": "••••••••1234",
		"ABCDE":        "•BCDE",
		"ABCD":         "••••",
		"AB":           "••",
		"":             "",
		"ÄÖÜ-ßé€1":     "••••ßé€1",
		"🎮🎮🎮🎮🎮":        "•🎮🎮🎮🎮",
		"XXXX-YYYY-ZZ": "••••••••Y-ZZ",
	} {
		if got := topupd.MaskCode(code); got != want {
			t.Errorf("MaskCode(%q) = %q, want %q", code, got, want)
		}
		if got := topupd.MaskCode(code); len([]rune(got)) != len([]rune(code)) {
			t.Errorf("MaskCode(%q) = %q: %d characters, want %d", code, got, len([]rune(got)), len([]rune(code)))
		}
	}
	if got := topupd.MaskCodes([]string{"K-0001", "ab"}); !slices.Equal(got, []string{"••0001", "••"}) {
		t.Errorf("MaskCodes = %q", got)
	}
	if topupd.MaskCodes(nil) != nil {
		t.Error("MaskCodes(nil) is not nil")
	}
}
