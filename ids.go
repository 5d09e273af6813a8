package topupd

import (
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"strings"
	"time"
)

// base32NoPad spells random identifiers without padding or ambiguous case.
var base32NoPad = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewOrderID returns a fresh public order id, "ord_" and 20 characters that
// sort in the order the ids were made: the time in milliseconds, then 48
// random bits. Ids made one after another land side by side in the
// database's index of ids instead of at random places in it, so that each
// commit rewrites fewer index pages.
func NewOrderID(now time.Time) string {
	var b [12]byte
	ms := uint64(now.UnixMilli())
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	if _, err := rand.Read(b[6:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return "ord_" + strings.ToLower(sortableBase32.EncodeToString(b[:]))
}

// sortableBase32 is base32 whose alphabet is in ASCII order (RFC 4648's
// "extended hex"), so that encoded ids sort as their bytes do.
var sortableBase32 = base32.HexEncoding.WithPadding(base32.NoPadding)
