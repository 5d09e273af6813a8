package upstream_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
)

// TestCheckPlayerAnswers: an upstream's check answer is passed on as it
// is; 404 and 501 are "not supported"; anything else is an error.
func TestCheckPlayerAnswers(t *testing.T) {
	b := topupd.Supplier{Provider: topupd.ProviderUpstream, Upstream: "b", UpstreamPID: "pubg-60"}
	player := topupd.AccountFields{UserID: "5123456789"}
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   topupd.PlayerCheck
		fails  bool
	}{
		{"valid with a nickname", 200, `{"success":true,"valid":true,"nickname":"Kai"}`,
			topupd.PlayerCheck{Supported: true, Valid: true, Nickname: "Kai"}, false},
		{"valid without a name", 200, `{"success":true,"valid":true}`, topupd.PlayerCheck{Supported: true, Valid: true}, false},
		{"not valid", 200, `{"success":true,"valid":false,"error":"INVALID PLAYER"}`, topupd.PlayerCheck{Supported: true}, false},
		{"not supported", 200, `{"success":true,"supported":false}`, topupd.PlayerCheck{}, false},
		{"no such path", 404, `{"success":false,"code":"NOT_FOUND","error":"NOT FOUND"}`, topupd.PlayerCheck{}, false},
		{"not implemented", 501, `{"success":false,"error":"NOT IMPLEMENTED"}`, topupd.PlayerCheck{}, false},
		{"an answer saying nothing", 200, `{"success":true}`, topupd.PlayerCheck{}, true},
		{"not JSON", 200, `<html>`, topupd.PlayerCheck{}, true},
		{"unknown PID there", 400, `{"success":false,"code":"UNKNOWN_PID","error":"UNKNOWN PID"}`, topupd.PlayerCheck{}, true},
		{"our key refused", 401, `{"success":false,"code":"INVALID_API_KEY","error":"INVALID_API_KEY"}`, topupd.PlayerCheck{}, true},
		{"its supplier unavailable", 503, `{"success":false,"code":"SUPPLIER_UNAVAILABLE","error":"SUPPLIER UNAVAILABLE"}`,
			topupd.PlayerCheck{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fakeUpstream(t, tc.status, tc.body).CheckPlayer(ctx(t), b, player)
			if (err != nil) != tc.fails {
				t.Errorf("error %v, want one: %v", err, tc.fails)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}
