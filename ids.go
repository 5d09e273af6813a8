package topupd

import "encoding/base32"

// base32NoPad spells random identifiers without padding or ambiguous case.
var base32NoPad = base32.StdEncoding.WithPadding(base32.NoPadding)
