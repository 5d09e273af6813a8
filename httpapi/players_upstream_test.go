package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// checkLog records the bodies of the POST /players/check an upstream receives.
type checkLog struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (l *checkLog) record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/players/check" {
			raw, _ := io.ReadAll(r.Body)
			var body map[string]any
			json.Unmarshal(raw, &body)
			r.Body = io.NopCloser(bytes.NewReader(raw))
			l.mu.Lock()
			l.bodies = append(l.bodies, body)
			l.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

func (l *checkLog) received() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]map[string]any(nil), l.bodies...)
}

// standIn is an upstream that answers every call with one status, as a
// server without player checks would.
func standIn(t *testing.T, status int, code, msg string) string {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"success": false, "code": code, "error": msg})
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// downURL is the address of a server that no longer listens.
func downURL() string {
	s := httptest.NewServer(http.NotFoundHandler())
	s.Close()
	return s.URL
}

// TestPlayerCheckUpstream: A, on each database, checks players through
// upstreams: B (a whole topupd, whose sim answers), servers without player
// checks (404, 501), and one that is down; and through packs listing
// several of them. B is asked for its own PID; nobody is charged.
func TestPlayerCheckUpstream(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		log := &checkLog{}
		b := topupdtest.New(t, topupdtest.WithWrap(log.record))
		b.LoadCatalog()
		atB := b.NewAccount("10", nil)
		a := topupdtest.New(t, db...)
		a.LoadCatalog()
		a.Logs.Secret(atB.Key, "our key at B")
		upstreams := map[string]string{
			"b":    b.API.URL,
			"old":  standIn(t, http.StatusNotFound, "NOT_FOUND", "NOT FOUND"),
			"nope": standIn(t, http.StatusNotImplemented, "NOT_IMPLEMENTED", "NOT IMPLEMENTED"),
			"down": downURL(),
			"sick": standIn(t, http.StatusInternalServerError, "INTERNAL", "INTERNAL ERROR"),
		}
		for name, url := range upstreams {
			a.AdminCall("PUT", "/admin/upstreams/"+name, map[string]any{"baseUrl": url, "apiKey": atB.Key, "check": name == "b"}, nil)
		}
		supplier := func(up, pid string) map[string]any {
			return map[string]any{"provider": "upstream", "upstream": up, "upstreamPid": pid}
		}
		pack := func(pid string, suppliers ...map[string]any) {
			a.PutPack(pid, map[string]any{"slug": "pubg", "name": pid, "priceUsd": topupdtest.USD("1.5"), "status": "active",
				"suppliers": suppliers})
		}
		pack("up-b", supplier("b", topupdtest.PIDPubg))
		pack("up-b-manual", supplier("b", topupdtest.PIDPubgManual))
		pack("up-old", supplier("old", topupdtest.PIDPubg))
		pack("up-nope", supplier("nope", topupdtest.PIDPubg))
		pack("up-down", supplier("down", topupdtest.PIDPubg))
		pack("up-sick", supplier("sick", topupdtest.PIDPubg))
		pack("down-then-b", supplier("down", topupdtest.PIDPubg), supplier("b", topupdtest.PIDPubg))
		pack("old-then-b", supplier("old", topupdtest.PIDPubg), supplier("b", topupdtest.PIDPubg))
		pack("old-then-nope", supplier("old", topupdtest.PIDPubg), supplier("nope", topupdtest.PIDPubg))
		pack("down-then-old", supplier("down", topupdtest.PIDPubg), supplier("old", topupdtest.PIDPubg))
		shop := a.NewAccount("50", nil)
		before, bBefore := a.Snapshot(shop), b.Snapshot(atB)

		check := func(pid, userID string) topupdtest.Reply {
			return a.Do("POST", "/players/check", shop.Key, order{"pid": pid, "userId": userID})
		}
		for _, tc := range []struct {
			name, pid, userID string
			want              checked
		}{
			{"B knows the player", "up-b", "5123456789", validPlayer("Player6789")},
			{"B refuses the player", "up-b", "99995123", invalidPlayer},
			{"B cannot check its manual pack", "up-b-manual", "5123456789", notSupported},
			{"an upstream answering 404", "up-old", "5123456789", notSupported},
			{"an upstream answering 501", "up-nope", "5123456789", notSupported},
			{"the first supplier down, B next", "down-then-b", "5123456789", validPlayer("Player6789")},
			{"the first supplier cannot check, B next", "old-then-b", "99995123", invalidPlayer},
			{"no supplier can check", "old-then-nope", "5123456789", notSupported},
		} {
			t.Run(tc.name, func(t *testing.T) { wantChecked(t, check(tc.pid, tc.userID), tc.want) })
		}
		for _, tc := range []struct{ name, pid string }{
			{"an upstream down", "up-down"},
			{"an upstream failing", "up-sick"},
			{"one down, the other cannot check", "down-then-old"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := check(tc.pid, "5123456789")
				wantFailure(t, r, http.StatusServiceUnavailable, "SUPPLIER_UNAVAILABLE", "SUPPLIER UNAVAILABLE")
				noDetailLeak(t, r)
			})
		}

		want := map[string]any{"pid": topupdtest.PIDPubg, "userId": "5123456789"}
		if got := log.received(); len(got) == 0 || !cmp.Equal(got[0], want) {
			t.Errorf("B received %v, want first %v", got, want)
		}
		if diff := cmp.Diff(before, a.Snapshot(shop)); diff != "" {
			t.Errorf("checks moved something at A (-before +after):\n%s", diff)
		}
		if diff := cmp.Diff(bBefore, b.Snapshot(atB)); diff != "" {
			t.Errorf("checks moved something at B (-before +after):\n%s", diff)
		}
	})
}
