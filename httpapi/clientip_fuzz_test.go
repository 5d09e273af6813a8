package httpapi_test

import (
	"net"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/topupd/topupd/httpapi"
)

// fuzzRemotes are the TCP peers FuzzClientIP picks from: trusted and
// untrusted, IPv4 and IPv6, mapped, zoned, portless and not an address.
var fuzzRemotes = []string{
	"127.0.0.1:5555",
	"10.1.2.3:443",
	"198.51.100.7:5555",
	"[::1]:443",
	"[2001:db8:ffff::5]:443",
	"[2001:db8::7]:443",
	"[::ffff:10.1.1.1]:80",
	"192.168.3.4:80",
	"[fe80::1%eth0]:80",
	"10.0.0.9",
	"pipe",
	"",
}

// fuzzProxySets are the trusted-proxy lists FuzzClientIP picks from.
var fuzzProxySets = []string{
	"",
	"127.0.0.1/32, 10.0.0.0/8, ::1, 2001:db8:ffff::/48, ::ffff:192.168.0.0/112",
	"127.0.0.1",
	"10.0.0.0/8",
	"0.0.0.0/0, ::/0",
	"::/0",
	"fe80::/10, 192.168.0.0/16, 172.16.0.0/12",
}

// hopAddr is the address an X-Forwarded-For entry names, read as the doc
// says: an address, possibly with a port ("1.2.3.4:80", "[::1]:80") or in
// brackets ("[::1]"); IPv4-mapped addresses are unmapped. A zoned address, an
// empty entry or one over 64 bytes names none.
func hopAddr(entry string) (netip.Addr, bool) {
	s := strings.TrimSpace(entry)
	if s == "" || len(s) > 64 {
		return netip.Addr{}, false
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		if ap.Addr().Zone() != "" {
			return netip.Addr{}, false
		}
		return ap.Addr().Unmap(), true
	}
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		s = s[1 : len(s)-1]
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// hopCandidates are the addresses an entry could be said to name under any
// reading: strict, with a zone kept, with a stray bracket dropped. The answer
// must be one of them (or the peer) even where ClientIP and hopAddr disagree.
func hopCandidates(entry string) []netip.Addr {
	s := strings.TrimSpace(entry)
	var out []netip.Addr
	for _, c := range []string{s, strings.TrimPrefix(s, "["), strings.TrimSuffix(s, "]"), strings.Trim(s, "[]")} {
		if ap, err := netip.ParseAddrPort(c); err == nil {
			out = append(out, ap.Addr(), ap.Addr().Unmap())
		}
		if a, err := netip.ParseAddr(c); err == nil {
			out = append(out, a, a.Unmap())
		}
	}
	return out
}

// FuzzClientIP checks ClientIP on arbitrary X-Forwarded-For values (one or
// several header lines, split at '\n'), a peer from fuzzRemotes and a
// trusted-proxy list from fuzzProxySets. It never panics; without trusted
// proxies, or from an untrusted peer, the answer is the peer; the answer is
// always the peer or an address an entry of the header names; a trusted answer
// means every entry right of it was trusted and the walk stopped at it (the
// left end, or an unparsable entry next to it); and the answer is exactly the
// documented rule. The seeds are in testdata/fuzz/FuzzClientIP.
func FuzzClientIP(f *testing.F) {
	f.Add("1.1.1.1, 203.0.113.1, 10.0.0.2", uint8(0), uint8(1))
	proxySets := make([][]netip.Prefix, len(fuzzProxySets))
	for i, s := range fuzzProxySets {
		p, err := httpapi.ParseTrustedProxies(s)
		if err != nil {
			f.Fatalf("ParseTrustedProxies(%q): %v", s, err)
		}
		proxySets[i] = p
	}
	f.Fuzz(func(t *testing.T, xff string, remoteIdx, proxyIdx uint8) {
		remote := fuzzRemotes[int(remoteIdx)%len(fuzzRemotes)]
		proxies := proxySets[int(proxyIdx)%len(proxySets)]
		r := httptest.NewRequest("GET", "/my-ip", nil)
		r.RemoteAddr = remote
		var lines []string
		if xff != "" {
			lines = strings.Split(xff, "\n")
			for _, l := range lines {
				r.Header.Add("X-Forwarded-For", l)
			}
		}
		got := httpapi.ClientIP(r, proxies)

		inTrusted := func(a netip.Addr) bool {
			for _, p := range proxies {
				if p.Contains(a) {
					return true
				}
			}
			return false
		}
		host, _, err := net.SplitHostPort(remote)
		if err != nil {
			host = remote
		}
		peer, err := netip.ParseAddr(host)
		if err == nil {
			peer = peer.Unmap().WithZone("")
		}
		if len(proxies) == 0 || !inTrusted(peer) {
			if got != peer {
				t.Fatalf("ClientIP(peer %q, untrusted or no proxies, XFF %q) = %v, want the peer %v", remote, lines, got, peer)
			}
			return
		}

		var entries []string
		for _, l := range lines {
			entries = append(entries, strings.Split(l, ",")...)
		}
		// The answer is the peer or an address some entry names.
		named := got == peer
		for _, e := range entries {
			for _, a := range hopCandidates(e) {
				named = named || a == got
			}
		}
		if !named {
			t.Fatalf("ClientIP(peer %q, XFF %q) = %v: neither the peer nor in the header", remote, lines, got)
		}
		if got.Zone() != "" {
			t.Fatalf("ClientIP(peer %q, XFF %q) = %v has a zone", remote, lines, got)
		}

		// A trusted answer: it starts the maximal run of trusted entries at
		// the right end (the peer if that run is empty), and the run is
		// either the whole header or stopped by an unparsable entry.
		if inTrusted(got) {
			k := len(entries)
			for k > 0 {
				if a, ok := hopAddr(entries[k-1]); !ok || !inTrusted(a) {
					break
				}
				k--
			}
			want := peer
			if k < len(entries) {
				want, _ = hopAddr(entries[k])
			}
			if got != want {
				t.Fatalf("ClientIP(peer %q, proxies %v, XFF %q) = trusted %v, but the trusted run at the right ends at %v", remote, proxies, lines, got, want)
			}
			if k > 0 {
				if _, ok := hopAddr(entries[k-1]); ok {
					t.Fatalf("ClientIP(peer %q, proxies %v, XFF %q) = trusted %v, but entry %q left of it is an untrusted address", remote, proxies, lines, got, entries[k-1])
				}
			}
		}

		// The documented rule: the right-most untrusted entry; an unparsable
		// entry ends the walk at the last trusted hop (the peer if it is the
		// right-most); if all are trusted, the left-most.
		want := peer
		for i := len(entries) - 1; i >= 0; i-- {
			a, ok := hopAddr(entries[i])
			if !ok {
				break
			}
			want = a
			if !inTrusted(a) {
				break
			}
		}
		if got != want {
			t.Fatalf("ClientIP(peer %q, proxies %v, XFF %q) = %v, want %v", remote, proxies, lines, got, want)
		}
	})
}
