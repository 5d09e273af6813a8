package loadgen

import (
	"net/http"
	"time"

	"github.com/topupd/topupd/client"
)

// NewAdminClient returns a client of the admin API at base with token: it
// retries what is safe to send again while a server restarts (up to 5
// times, from 100 ms), and keeps up to 32 idle connections.
func NewAdminClient(base, token string) (*client.Admin, error) {
	return client.NewAdmin(base, token, client.WithRetries(5), client.WithBackoff(100*time.Millisecond, 2*time.Second),
		client.WithHTTPClient(&http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}))
}
