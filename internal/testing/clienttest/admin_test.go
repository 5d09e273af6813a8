package clienttest_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/topupd/topupd/client"
)

// TestAdminClient: the admin client makes an operator, acts as them, and
// reads what they did from the action log; a call their role forbids is an
// *Error with ROLE_FORBIDDEN, and a disabled operator's is 401.
func TestAdminClient(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	root := s.AdminClient
	token, err := root.CreateOperator(ctx, "fin", "finance")
	if err != nil || token == "" {
		t.Fatalf("CreateOperator: %q, %v", token, err)
	}
	s.Logs.Secret(token, "fin's token")
	fin, err := client.NewAdmin(s.Admin.URL, token, client.WithHTTPClient(s.HTTP))
	if err != nil {
		t.Fatal(err)
	}
	acct, err := root.CreateAccount(ctx, "shop", nil)
	if err != nil {
		t.Fatal(err)
	}
	money, _ := client.ParseMoney("12.5")
	if r, err := fin.Credit(ctx, acct.ID, money, "wire 1"); err != nil || r.BalanceUSD != money {
		t.Fatalf("Credit as finance: %+v, %v", r, err)
	}
	_, err = fin.PatchAccount(ctx, acct.ID, map[string]any{"banned": true})
	if !client.IsCode(err, client.CodeRoleForbidden) || client.StatusCode(err) != 403 {
		t.Errorf("PatchAccount as finance: %v, want 403 ROLE_FORBIDDEN", err)
	}
	page, err := root.Actions(ctx, url.Values{"operator": {"fin"}})
	if err != nil || len(page.Actions) != 1 || page.Actions[0].Action != "account.credit" || page.Actions[0].Target != acct.ID {
		t.Fatalf("Actions of fin: %+v, %v", page, err)
	}
	k, err := root.CreateKey(ctx, acct.ID, "till 3")
	if err != nil {
		t.Fatal(err)
	}
	s.Logs.Secret(k.APIKey, "the till's key")
	if keys, err := root.Keys(ctx, acct.ID); err != nil || len(keys) != 1 || keys[0].Label != "till 3" || keys[0].Prefix != k.APIKey[:8] {
		t.Errorf("Keys: %+v, %v", keys, err)
	}
	if page, err := root.Accounts(ctx, "sho", "", 10); err != nil || len(page.Accounts) != 1 || page.Accounts[0].ID != acct.ID || page.NextCursor != "" {
		t.Errorf("Accounts: %+v, %v", page, err)
	}
	ops, err := root.Operators(ctx)
	if err != nil || len(ops) != 1 || ops[0].Name != "fin" || ops[0].Role != "finance" || ops[0].LastSeenAt == nil {
		t.Errorf("Operators: %+v, %v", ops, err)
	}
	if err := root.PatchOperator(ctx, "fin", map[string]any{"disabled": true}); err != nil {
		t.Fatal(err)
	}
	if _, err := fin.Account(ctx, acct.ID); client.StatusCode(err) != 401 {
		t.Errorf("a disabled operator's call: %v, want 401", err)
	}
}
