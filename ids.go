package topupd

import (
	"crypto/rand"
	"crypto/sha256"
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

// DerivedEventID is the id of the event that one stream event (id src,
// made at) makes for one key, such as an account: "evt_" and 20
// characters, the time first as NewEventID's, then a hash of src and key.
// Every node makes the same id from the same event, at every retelling.
func DerivedEventID(src string, at time.Time, key string) string {
	var b [12]byte
	ms := uint64(at.UnixMilli())
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	h := sha256.Sum256([]byte(src + "\x00" + key))
	copy(b[6:], h[:6])
	return "evt_" + strings.ToLower(sortableBase32.EncodeToString(b[:]))
}
