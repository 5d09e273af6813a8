package console

import (
	"testing"

	"github.com/topupd/topupd"
)

// TestUSDText: money reads as people read dollars, commas between
// thousands, the sign before the $, a fraction of a cent kept.
func TestUSDText(t *testing.T) {
	for m, want := range map[topupd.Money]string{
		0:                       "$0.00",
		12_345_000:              "$1,234.50",
		-5_000:                  "-$0.50",
		topupd.USD(1_234_567):   "$1,234,567.00",
		topupd.USD(100):         "$100.00",
		125:                     "$0.0125",
		topupd.USD(999) + 9_999: "$999.9999",
	} {
		if got := usdText(m); got != want {
			t.Errorf("usdText(%d) = %q, want %q", m, got, want)
		}
	}
}
