package topupd

import (
	"slices"
	"testing"
)

// TestParseRoute: hops above MaxHops, not a whole number or negative, and
// a route naming this server are UPSTREAM_LOOP; anything else is read,
// keeping only ids that look like instances.
func TestParseRoute(t *testing.T) {
	self, other, third := "ins_aaaaaaaaaaaaaaaaaaaa", "ins_bbbbbbbbbbbbbbbbbbbb", "ins_0123456789abcdefghij"
	for _, c := range []struct {
		instances, hops string
		want            Route
		loop            bool
	}{
		{"", "", Route{}, false},
		{other, "1", Route{Via: []string{other}, Hops: 1}, false},
		{other + " , " + third, "3", Route{Via: []string{other, third}, Hops: 3}, false},
		{"not-an-id," + other, " 2 ", Route{Via: []string{other}, Hops: 2}, false},
		{"", "4", Route{}, true},
		{"", "x", Route{}, true},
		{"", "-1", Route{}, true},
		{"", "1.5", Route{}, true},
		{other + "," + self, "2", Route{}, true},
		{self, "", Route{}, true},
	} {
		got, err := ParseRoute(c.instances, c.hops, self)
		if loop := CodeOf(err) == EUpstreamLoop; loop != c.loop || (err != nil && !loop) {
			t.Errorf("%q, %q: %v; want a loop: %v", c.instances, c.hops, err, c.loop)
			continue
		}
		if !c.loop && (got.Hops != c.want.Hops || !slices.Equal(got.Via, c.want.Via)) {
			t.Errorf("%q, %q: %+v, want %+v", c.instances, c.hops, got, c.want)
		}
	}
	if _, err := ParseRoute("", "", ""); err != nil {
		t.Errorf("no instance of our own: %v", err)
	}
}

// TestRouteOnward: a call onward names the route's servers and this one
// last, and counts one hop more.
func TestRouteOnward(t *testing.T) {
	self, other := "ins_aaaaaaaaaaaaaaaaaaaa", "ins_bbbbbbbbbbbbbbbbbbbb"
	for _, c := range []struct {
		r               Route
		instances, hops string
	}{
		{Route{}, self, "1"},
		{Route{Via: []string{other}, Hops: 1}, other + "," + self, "2"},
	} {
		if i, h := c.r.Onward(self); i != c.instances || h != c.hops {
			t.Errorf("%+v: %q %q, want %q %q", c.r, i, h, c.instances, c.hops)
		}
	}
}

// TestNewInstanceID: a new instance id is one, and another each time.
func TestNewInstanceID(t *testing.T) {
	a, b := NewInstanceID(), NewInstanceID()
	if !ValidInstanceID(a) || !ValidInstanceID(b) || a == b {
		t.Errorf("%q, %q", a, b)
	}
}
