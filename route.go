package topupd

import (
	"context"
	"crypto/rand"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The loop guard (back-office.md, "Loop guard"): an upstream pointed back
// at this server, directly or through others, must not set off one order
// after another. Each deployment has an instance id, made once per
// database; every call to an upstream names the servers the order passed
// through (Topupd-Instance) and counts them (Topupd-Hops), and an order or
// player check that names this server, or has passed through more than
// MaxHops, is refused before anything is charged.
const (
	// HeaderInstance carries this deployment's instance id on every
	// reseller answer, and on a call to an upstream the ids of the servers
	// the order passed through, the caller's last.
	HeaderInstance = "Topupd-Instance"
	// HeaderHops counts, on a call to an upstream, the servers the order
	// passed through, the caller included.
	HeaderHops = "Topupd-Hops"
	// MaxHops is the most servers an order may have passed through before
	// this one.
	MaxHops = 3
	// maxVia is the most instance ids a route keeps: a longer list came
	// through more servers than MaxHops allows, or is not a topupd's.
	maxVia = 16
)

// instanceIDRe is what an instance id looks like.
var instanceIDRe = regexp.MustCompile(`^ins_[0-9a-z]{20}$`)

// ValidInstanceID reports whether id is an instance id: ins_ and 20
// characters of 0-9a-z.
func ValidInstanceID(id string) bool { return instanceIDRe.MatchString(id) }

// NewInstanceID returns a fresh instance id: ins_ and 20 random
// characters of 0-9a-v.
func NewInstanceID() string {
	var b [13]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return "ins_" + strings.ToLower(sortableBase32.EncodeToString(b[:]))[:20]
}

// Route is where an order or a player check came from: the servers it
// passed through before this one, as its request said.
type Route struct {
	// Via are their instance ids, in order (those that look like one, at
	// most maxVia).
	Via []string
	// Hops is the request's Topupd-Hops: 0 for a reseller's own.
	Hops int
}

// ParseRoute reads a request's Topupd-Instance and Topupd-Hops values
// (empty when absent). It refuses, as UPSTREAM_LOOP, hops above MaxHops or
// not a whole number, and a route that names self.
func ParseRoute(instances, hops, self string) (Route, error) {
	var r Route
	if hops = strings.TrimSpace(hops); hops != "" {
		n, err := strconv.Atoi(hops)
		if err != nil || n < 0 || n > MaxHops {
			return Route{}, Errorf(EUpstreamLoop, "the request has passed through %q servers; at most %d may come before this one", hops, MaxHops)
		}
		r.Hops = n
	}
	for _, id := range strings.Split(instances, ",") {
		id = strings.TrimSpace(id)
		if id == self && self != "" {
			return Route{}, Errorf(EUpstreamLoop, "the request has passed through this server already")
		}
		if ValidInstanceID(id) && len(r.Via) < maxVia {
			r.Via = append(r.Via, id)
		}
	}
	return r, nil
}

// Onward is the Topupd-Instance and Topupd-Hops values of a call to an
// upstream on the route's behalf: its servers with self last, and its hops
// plus one (this server).
func (r Route) Onward(self string) (instances, hops string) {
	return strings.Join(append(append([]string(nil), r.Via...), self), ","), strconv.Itoa(r.Hops + 1)
}

// WithRoute returns ctx carrying a player check's route to the supplier
// that answers it (an order carries its own, Order.Route).
func WithRoute(ctx context.Context, r Route) context.Context { return withValue(ctx, r) }

// RouteOf returns the route ctx carries, or a reseller's own (none).
func RouteOf(ctx context.Context) Route { return valueOf[Route](ctx) }
