package httpapi_test

// The tests of this package run the whole service through
// internal/testing/topupdtest; what follows are the checks they share.

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// order is a POST /orders body.
type order map[string]any

// errorBody is the part of a failure every row of an errors table checks.
type errorBody struct {
	Status int
	Code   string
	Error  string
}

// errorOf extracts status, code and error of an answer.
func errorOf(r topupdtest.Reply) errorBody {
	return errorBody{Status: r.Status, Code: r.Str("code"), Error: r.Str("error")}
}

// wantFailure checks a `{success:false, code, error}` answer exactly.
func wantFailure(t testing.TB, r topupdtest.Reply, status int, code, msg string) {
	t.Helper()
	if diff := cmp.Diff(errorBody{status, code, msg}, errorOf(r)); diff != "" {
		t.Errorf("answer (-want +got):\n%s\nbody: %s", diff, r.Raw)
	}
	if r.Body["success"] != false {
		t.Errorf("success = %v, want false; body %s", r.Body["success"], r.Raw)
	}
	wantRetryable(t, r)
}

// wantRetryable checks a refusal's retryable: true exactly for 429, 500,
// 502, 503 and 504.
func wantRetryable(t testing.TB, r topupdtest.Reply) {
	t.Helper()
	want := r.Status == 429 || r.Status == 500 || r.Status == 502 || r.Status == 503 || r.Status == 504
	if got, ok := r.Body["retryable"].(bool); !ok || got != want {
		t.Errorf("retryable = %v, want %v for a %d; body %s", r.Body["retryable"], want, r.Status, r.Raw)
	}
}

// stringsOf returns a JSON array of strings.
func stringsOf(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// sorted returns a sorted copy.
func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// ledgerSum adds up the entries' amounts exactly.
func ledgerSum(t testing.TB, entries []topupdtest.Entry) topupd.Money {
	t.Helper()
	var s topupd.Money
	for _, e := range entries {
		s += topupdtest.ParseUSD(t, e.AmountUsd)
	}
	return s
}

// pidByHand is a pack of LoadCatalog's pubg line bought from an upstream
// whose own pack is manual (see byHand).
const pidByHand = "pubg-by-hand"

// byHand gives h a pack, pidByHand, bought from another server where an
// operator fulfils it: its orders stay processing until h's operator
// completes or cancels them, and, being an upstream's, may be completed
// with codes (a manual top-up may not).
func byHand(t *testing.T, h *topupdtest.T) {
	t.Helper()
	up := topupdtest.New(t)
	up.LoadCatalog()
	at := up.NewAccount("1000", nil)
	h.Logs.Secret(at.Key, "our key at the upstream")
	h.AdminCall("PUT", "/admin/upstreams/by-hand", map[string]any{"baseUrl": up.API.URL, "apiKey": at.Key}, nil)
	h.PutPack(pidByHand, map[string]any{"slug": "pubg", "name": "60 UC by hand", "priceUsd": topupdtest.USD("2"), "status": "active",
		"provider": "upstream", "upstream": "by-hand", "upstreamPid": topupdtest.PIDPubgManual})
}
