package httpapi

import (
	"encoding/json"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/service"
)

// TestLimitSettingsInTheClient: the Go client shows every spending limit
// under the admin API's name, and the account's answer carries it.
func TestLimitSettingsInTheClient(t *testing.T) {
	for i, l := range topupd.LimitSettings {
		var acct client.AdminAccount
		dst := acct.Limit(l.Name)
		if dst == nil {
			t.Fatalf("client.AdminAccount.Limit(%q) is nil: add the limit to the client", l.Name)
		}
		want := topupd.Money(100 + i)
		var limits topupd.Limits
		*l.Of(&limits) = &want
		body, err := json.Marshal(viewAccount(&service.Account{Account: topupd.Account{Limits: limits}}))
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(body, &fields); err != nil {
			t.Fatal(err)
		}
		if got := string(fields[l.Name]); got != want.String() {
			t.Errorf("the answer's %s is %s, want %s: %s", l.Name, got, want, body)
		}
	}
}
