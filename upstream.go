package topupd

import (
	"net/url"
	"strings"
	"time"
)

// Upstream is another server that speaks the reseller API, from which packs
// with provider "upstream" are bought.
type Upstream struct {
	Name    string
	BaseURL string
	// APIKey is our key at the upstream; it is stored sealed and never shown again.
	APIKey    string
	UpdatedAt time.Time
}

// Validate checks an upstream as the admin API receives it.
func (u *Upstream) Validate() error {
	if !ValidIdent(u.Name) {
		return Errorf(EInvalidBody, "name: letters, digits and ._:- only, at most 100")
	}
	b, err := url.Parse(u.BaseURL)
	if err != nil || (b.Scheme != "http" && b.Scheme != "https") || b.Host == "" || b.RawQuery != "" || b.Fragment != "" {
		return Errorf(EInvalidBody, "baseUrl: an http or https URL without query or fragment")
	}
	u.BaseURL = strings.TrimRight(u.BaseURL, "/")
	if strings.TrimSpace(u.APIKey) == "" || len(u.APIKey) > 500 {
		return Errorf(EInvalidBody, "apiKey is required")
	}
	return nil
}

// UpstreamTrxID is the trxid an order is bought under at its upstream:
// derived from the order's own id, so it is the same on every retry and
// after every restart, and the upstream's idempotency makes a retry safe.
func UpstreamTrxID(o *Order) string { return "topupd-" + o.ID }
