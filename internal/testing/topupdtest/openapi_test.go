package topupdtest

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestServerAnswersMatch: the server's own answers, of both APIs, pass the
// check, and the check does look at them.
func TestServerAnswersMatch(t *testing.T) {
	h := New(t)
	h.LoadCatalog()
	a := h.NewAccount("5", nil)
	h.Do("GET", "/balance", a.Key, nil)
	h.Do("GET", "/nowhere", a.Key, nil)
	h.Place(a, map[string]any{"pid": PIDPubg, "trxid": h.Trx(), "userId": "5123"})
	h.AdminOK(http.StatusOK, "GET", "/admin/orders", nil)
	if f := h.check.take(); len(f) != 0 {
		t.Fatalf("the server's own answers were reported: %v", f)
	}
	if h.check.checked < 8 {
		t.Fatalf("%d answers checked, want every one", h.check.checked)
	}
}

// TestDriftIsCaught: an answer that differs from the document (a field it
// does not have, money as text, a required field missing, a status it does
// not list, a path it does not have answered 200) is reported.
func TestDriftIsCaught(t *testing.T) {
	c := newChecker(t)
	for _, tc := range []struct {
		name, path string
		status     int
		body       string
	}{
		{"an extra field", "/balance", 200, `{"success":true,"balanceUsd":5,"currency":"USD","extra":1}`},
		{"money as text", "/balance", 200, `{"success":true,"balanceUsd":"5","currency":"USD"}`},
		{"a required field missing", "/balance", 200, `{"success":true,"balanceUsd":5}`},
		{"a status not listed", "/balance", 418, `{"success":false,"code":"TEAPOT","error":"TEAPOT"}`},
		{"an unknown path answered", "/nowhere", 200, `{"success":true}`},
		{"a failure of the wrong shape", "/nowhere", 404, `{"ok":false}`},
	} {
		h := c.reseller(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tc.status)
			w.Write([]byte(tc.body))
		}))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", tc.path, nil))
		if f := c.take(); len(f) != 1 {
			t.Errorf("%s: %d failures reported, want 1: %v", tc.name, len(f), f)
		}
	}
	good := c.reseller(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"success":true,"balanceUsd":5,"currency":"USD"}`))
	}))
	good.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/balance", nil))
	if f := c.take(); len(f) != 0 {
		t.Errorf("a good answer was reported: %v", f)
	}
}
