package httpapi_test

import (
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

func TestClientIP(t *testing.T) {
	t.Parallel()
	proxies, err := httpapi.ParseTrustedProxies("127.0.0.1/32, 10.0.0.0/8, ::1, 2001:db8:ffff::/48, ::ffff:192.168.0.0/112")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		remote  string
		xff     []string // each a separate header line
		proxies []netip.Prefix
		want    string // "" for the invalid address
	}{
		{"peer, no proxies", "198.51.100.7:5555", nil, nil, "198.51.100.7"},
		{"XFF ignored without proxies", "198.51.100.7:5555", []string{"203.0.113.1"}, nil, "198.51.100.7"},
		{"XFF ignored from an untrusted peer", "198.51.100.7:5555", []string{"203.0.113.1"}, proxies, "198.51.100.7"},
		{"trusted peer, no XFF", "127.0.0.1:5555", nil, proxies, "127.0.0.1"},
		{"trusted peer, one hop", "127.0.0.1:5555", []string{"203.0.113.1"}, proxies, "203.0.113.1"},
		{"spoofed left-most entries", "127.0.0.1:5555", []string{"1.1.1.1, 2.2.2.2, 203.0.113.1"}, proxies, "203.0.113.1"},
		{"trusted hops skipped from the right", "127.0.0.1:5555", []string{"1.1.1.1, 203.0.113.1, 10.1.2.3, 10.9.9.9"}, proxies, "203.0.113.1"},
		{"several header lines", "127.0.0.1:5555", []string{"1.1.1.1", "203.0.113.1, 10.0.0.2"}, proxies, "203.0.113.1"},
		{"all-trusted chain: left-most", "127.0.0.1:5555", []string{"10.0.0.5, 10.0.0.6"}, proxies, "10.0.0.5"},
		{"garbage right-most: the peer", "127.0.0.1:5555", []string{"203.0.113.1, garbage"}, proxies, "127.0.0.1"},
		{"garbage behind trusted hop: that hop", "127.0.0.1:5555", []string{"203.0.113.1, nonsense, 10.0.0.7"}, proxies, "10.0.0.7"},
		{"garbage left of the client is never reached", "127.0.0.1:5555", []string{"garbage, 203.0.113.1"}, proxies, "203.0.113.1"},
		{"empty entry right-most: the peer", "127.0.0.1:5555", []string{"203.0.113.1, "}, proxies, "127.0.0.1"},
		{"entry with a port", "127.0.0.1:5555", []string{"203.0.113.1:4711"}, proxies, "203.0.113.1"},
		{"IPv6 entry with a port", "127.0.0.1:5555", []string{"[2001:db8::1]:4711"}, proxies, "2001:db8::1"},
		{"IPv6 entry in brackets", "127.0.0.1:5555", []string{"[2001:db8::2]"}, proxies, "2001:db8::2"},
		{"IPv6 entry bare", "127.0.0.1:5555", []string{"2001:db8::3"}, proxies, "2001:db8::3"},
		{"IPv4-mapped entry is unmapped", "127.0.0.1:5555", []string{"::ffff:203.0.113.9"}, proxies, "203.0.113.9"},
		{"zoned entry is garbage", "127.0.0.1:5555", []string{"fe80::1%eth0"}, proxies, "127.0.0.1"},
		{"IPv6 peer untrusted", "[2001:db8::7]:443", []string{"203.0.113.1"}, proxies, "2001:db8::7"},
		{"IPv6 peer trusted (::1)", "[::1]:443", []string{"203.0.113.1"}, proxies, "203.0.113.1"},
		{"IPv6 peer trusted by prefix", "[2001:db8:ffff::5]:443", []string{"198.51.100.1"}, proxies, "198.51.100.1"},
		{"IPv4-mapped peer is unmapped and trusted", "[::ffff:10.1.1.1]:80", []string{"203.0.113.4"}, proxies, "203.0.113.4"},
		{"mapped proxy prefix trusts the IPv4 peer", "192.168.3.4:80", []string{"203.0.113.5"}, proxies, "203.0.113.5"},
		{"peer without a port", "198.51.100.8", nil, nil, "198.51.100.8"},
		{"peer with a zone loses it", "[fe80::1%eth0]:80", nil, nil, "fe80::1"},
		{"peer not an address", "pipe", nil, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/my-ip", nil)
			r.RemoteAddr = tc.remote
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			got := httpapi.ClientIP(r, tc.proxies)
			gotS := ""
			if got.IsValid() {
				gotS = got.String()
			}
			if diff := cmp.Diff(tc.want, gotS); diff != "" {
				t.Errorf("ClientIP (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTrustedProxies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"", nil, false},
		{" 127.0.0.1/32 , 10.0.0.0/8 ", []string{"127.0.0.1/32", "10.0.0.0/8"}, false},
		{"10.1.2.3/8", []string{"10.0.0.0/8"}, false},
		{"192.0.2.1", []string{"192.0.2.1/32"}, false},
		{"::1", []string{"::1/128"}, false},
		{"::ffff:10.0.0.0/104", []string{"10.0.0.0/8"}, false},
		{"nope", nil, true},
		{"10.0.0.0/33", nil, true},
	}
	for _, tc := range tests {
		got, err := httpapi.ParseTrustedProxies(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseTrustedProxies(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		var gotS []string
		for _, p := range got {
			gotS = append(gotS, p.String())
		}
		if diff := cmp.Diff(tc.want, gotS); diff != "" {
			t.Errorf("ParseTrustedProxies(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// TestMyIPAndAllowlistBehindProxy: with 127.0.0.1 trusted, the right-most
// untrusted X-Forwarded-For address is the client for /my-ip and for the
// allow-list, CIDR entries too; without trusted proxies the header is ignored.
func TestMyIPAndAllowlistBehindProxy(t *testing.T) {
	t.Parallel()
	behind := topupdtest.New(t, topupdtest.WithTrustedProxies("127.0.0.1/32"))
	direct := topupdtest.New(t)

	type row struct {
		name     string
		h        *topupdtest.T
		xff      string
		allow    []string
		wantIP   string
		wantCode string // "" admitted
	}
	rows := []row{
		{"direct, no header", direct, "", nil, "127.0.0.1", ""},
		{"direct, header ignored", direct, "203.0.113.7", nil, "127.0.0.1", ""},
		{"direct, spoofed header cannot pass the allow-list", direct, "203.0.113.7", []string{"203.0.113.7"}, "", "IP_NOT_ALLOWED"},
		{"direct, the peer passes", direct, "203.0.113.7", []string{"127.0.0.1"}, "127.0.0.1", ""},
		{"proxied, no header", behind, "", nil, "127.0.0.1", ""},
		{"proxied, one hop", behind, "203.0.113.7", nil, "203.0.113.7", ""},
		{"proxied, spoofed left-most", behind, "6.6.6.6, 203.0.113.7", nil, "203.0.113.7", ""},
		{"proxied, exact allow-list entry", behind, "6.6.6.6, 203.0.113.7", []string{"203.0.113.7"}, "203.0.113.7", ""},
		{"proxied, CIDR allow-list entry", behind, "203.0.113.77", []string{"198.51.100.1", "203.0.113.0/24"}, "203.0.113.77", ""},
		{"proxied, spoofed entry does not pass", behind, "203.0.113.7, 198.51.100.200", []string{"203.0.113.7"}, "", "IP_NOT_ALLOWED"},
		{"proxied, the proxy itself is not the client", behind, "198.51.100.200", []string{"127.0.0.1"}, "", "IP_NOT_ALLOWED"},
		{"proxied, IPv6 client never matches an IPv4 list", behind, "2001:db8::1", []string{"0.0.0.0/0"}, "", "IP_NOT_ALLOWED"},
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			flags := map[string]any{}
			if tc.allow != nil {
				flags["ipAllowlist"] = tc.allow
			}
			a := tc.h.NewAccount("", flags)
			hdr := topupdtest.Headers{"X-API-Key": a.Key}
			if tc.xff != "" {
				hdr["X-Forwarded-For"] = tc.xff
			}
			r := tc.h.DoH("GET", "/my-ip", hdr, nil)
			if tc.wantCode != "" {
				wantFailure(t, r, 403, tc.wantCode, tc.wantCode)
				return
			}
			got := struct {
				Status  int
				Success any
				IP      string
			}{r.Status, r.Body["success"], r.Str("ip")}
			want := struct {
				Status  int
				Success any
				IP      string
			}{200, true, tc.wantIP}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("GET /my-ip (-want +got):\n%s", diff)
			}
		})
	}
}
