// Package broadcast carries invalidations between the nodes of a
// deployment (topupd.Invalidations): on Redis with pub/sub, and on
// PostgreSQL alone with LISTEN/NOTIFY.
//
// Both work the same way. Every node listens on one channel of its
// deployment. An announcement is a fresh id published on it; each node
// that hears it forgets what it remembered and answers with an
// acknowledgement carrying the id. The announcer knows how many nodes
// listen (Redis's PUBLISH counts the subscribers that received the
// message; on PostgreSQL the listening sessions are counted by their
// application_name) and waits for that many acknowledgements, or until
// the caller's bound passes: a node whose memory lasts no longer than
// that bound has forgotten by then anyway, heard or not.
package broadcast

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// reconnectDelay is how long a listener waits before connecting again.
const reconnectDelay = 200 * time.Millisecond

// pingEvery is how often an idle listener checks its connection.
const pingEvery = 5 * time.Second

// newID returns a fresh announcement id.
func newID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}
