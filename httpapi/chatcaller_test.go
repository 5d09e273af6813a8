package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/internal/topupdtest"
)

// TestChatCaller: a reseller's chat acts through the admin API on its own
// account only: it reads it, turns API access off, changes its allow-list
// and keys; it may not lift adminDisabled or ban, touch another account or
// its keys, create accounts or credit. Each change is in the action log
// under chat:<id>.
func TestChatCaller(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	a, b := h.NewAccount("10", nil), h.NewAccount("10", nil)
	adm, err := client.NewAdmin("http://admin.invalid", "unused", client.WithRetries(0),
		client.WithHTTPClient(&http.Client{Transport: httpapi.Transport{Admin: h.App.Admin}}))
	if err != nil {
		t.Fatal(err)
	}
	update := int64(0)
	as := func() context.Context { // each call a fresh update
		update++
		return httpapi.AsChat(t.Context(), 42, a.ID, update)
	}
	refused := func(what string, err error, status int) {
		t.Helper()
		if e, ok := client.AsError(err); !ok || e.StatusCode != status {
			t.Errorf("%s: %v, want %d", what, err, status)
		}
	}
	if acct, err := adm.Account(as(), a.ID); err != nil || acct.ID != a.ID {
		t.Errorf("reading its own account: %+v %v", acct, err)
	}
	_, err = adm.Account(as(), b.ID)
	refused("reading another account", err, 403)
	if acct, err := adm.PatchAccount(as(), a.ID, map[string]any{"apiEnabled": false, "ipAllowlist": []string{"192.0.2.0/24"}}); err != nil || acct.APIEnabled {
		t.Errorf("turning its API off: %+v %v", acct, err)
	}
	for _, f := range []string{"adminDisabled", "banned", "restrictedUntil"} {
		_, err = adm.PatchAccount(as(), a.ID, map[string]any{f: nil})
		refused("changing "+f, err, 403)
	}
	_, err = adm.PatchAccount(as(), b.ID, map[string]any{"apiEnabled": false})
	refused("changing another account", err, 403)
	k, err := adm.CreateKey(as(), a.ID, "bot")
	if err != nil {
		t.Fatal(err)
	}
	h.Logs.Secret(k.APIKey, "the chat's key")
	refused("revoking another account's key", adm.RevokeKey(as(), b.KeyID), 404)
	if err := adm.RevokeKey(as(), k.KeyID); err != nil {
		t.Errorf("revoking its own key: %v", err)
	}
	_, err = adm.CreateAccount(as(), "mine", nil)
	refused("creating an account", err, 403)
	_, err = adm.Credit(as(), a.ID, 1, "free money")
	refused("crediting itself", err, 403)
	if r := h.Do("GET", "/balance", b.Key, nil); r.Status != 200 {
		t.Errorf("the other account after all that: %v", r)
	}
	acts, err := h.AdminClient.Actions(t.Context(), url.Values{"operator": {"chat:42"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range acts.Actions {
		names = append(names, x.Action+" "+x.Target)
	}
	if got, want := strings.Join(names, ", "), "key.revoke "+k.KeyID+", key.create "+a.ID+", account.update "+a.ID; got != want {
		t.Errorf("the chat's actions: %s, want %s", got, want)
	}
}
