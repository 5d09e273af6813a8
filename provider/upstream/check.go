package upstream

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// checkTimeout bounds a check's one call.
const checkTimeout = 10 * time.Second

// CheckBalance reads our balance at u (topupd.SupplierChecker): GET
// {baseUrl}/balance with our key, once, with the loop guard's headers. An
// answer naming this deployment's own instance is UPSTREAM_LOOP, whatever
// its status; any other answer but a balance is UPSTREAM_REFUSED, and no
// answer UPSTREAM_UNREACHABLE.
func (p *Provider) CheckBalance(ctx context.Context, u topupd.Upstream) (topupd.Money, error) {
	hc := routed(p.hc, p.instance)
	seen := &answerInstance{base: hc.Transport}
	hc.Transport = seen
	c, err := client.New(u.BaseURL, u.APIKey, client.WithRetries(0), client.WithHTTPClient(hc), client.WithUserAgent("topupd-upstream/1"))
	if err != nil {
		return 0, topupd.Errorf(topupd.EUpstreamUnreachable, "%v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	bal, err := c.Balance(ctx)
	switch e, answered := client.AsError(err); {
	case p.instance != "" && seen.id == p.instance:
		return 0, topupd.Errorf(topupd.EUpstreamLoop, "the upstream at %s is this server", u.BaseURL)
	case err == nil:
		return bal, nil
	case answered:
		return 0, topupd.Errorf(topupd.EUpstreamRefused, "status %d, code %q", e.StatusCode, e.Code)
	case seen.status != 0: // an answer that is not a balance
		return 0, topupd.Errorf(topupd.EUpstreamRefused, "status %d, not a balance", seen.status)
	case errors.Is(err, context.DeadlineExceeded):
		return 0, topupd.Errorf(topupd.EUpstreamUnreachable, "no answer within %v", checkTimeout)
	}
	return 0, topupd.Errorf(topupd.EUpstreamUnreachable, "%v", err)
}

// answerInstance records the status and Topupd-Instance of the answer a
// check got.
type answerInstance struct {
	base   http.RoundTripper
	id     string
	status int
}

// RoundTrip sends r and notes its answer's instance.
func (a *answerInstance) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := a.base.RoundTrip(r)
	if err == nil {
		a.id, a.status = resp.Header.Get(topupd.HeaderInstance), resp.StatusCode
	}
	return resp, err
}
