package service_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// accountsFixture is the fixture's store under a service that counts its
// invalidations of the auth cache, with a second account and a key of
// each.
type accountsFixture struct {
	*fixture
	svc         *service.Service
	invalidated int
	other       string
	key, oKey   string
}

func newAccountsFixture(t *testing.T) *accountsFixture {
	t.Helper()
	f := &accountsFixture{fixture: newFixture(t)}
	var err error
	f.svc, err = service.New(service.Deps{Store: f.store.(service.Store), Now: func() time.Time { return t0 },
		Invalidate: func(context.Context) error { f.invalidated++; return nil }, BotUsername: func() string { return "@topupd_bot" }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	o, err := f.store.CreateAccount(ctx, nil, topupd.Account{ID: "acc_other", Name: "other", APIEnabled: true, CreatedAt: t0.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	f.other = o.ID
	for _, k := range []struct {
		acct string
		id   *string
	}{{f.acct, &f.key}, {f.other, &f.oKey}} {
		secret, hash := topupd.NewAPIKey()
		*k.id = topupd.NewID("key_")
		if err := f.store.AddKey(ctx, nil, topupd.APIKey{ID: *k.id, AccountID: k.acct, Prefix: secret[:topupd.KeyPrefixLen], CreatedAt: t0}, hash); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// calls are every account operation, as one actor would ask for it.
func (f *accountsFixture) calls(a service.Actor) map[string]func() error {
	ctx := context.Background()
	name := "x"
	tier := "gold"
	tierP := &tier
	return map[string]func() error{
		"create": func() error { _, err := f.svc.CreateAccount(ctx, a, topupd.AccountPatch{Name: &name}); return err },
		"patch flags": func() error {
			on := true
			_, err := f.svc.UpdateAccount(ctx, a, f.acct, topupd.AccountPatch{Banned: &on})
			return err
		},
		"patch tier": func() error {
			_, err := f.svc.UpdateAccount(ctx, a, f.acct, topupd.AccountPatch{Tier: &tierP})
			return err
		},
		"new key":    func() error { _, err := f.svc.CreateKey(ctx, a, f.acct, ""); return err },
		"rotate":     func() error { _, err := f.svc.RotateKey(ctx, a, f.acct, f.key, nil); return err },
		"revoke":     func() error { return f.svc.RevokeKey(ctx, a, f.key) },
		"link code":  func() error { _, err := f.svc.ChatLink(ctx, a, f.acct); return err },
		"unlink":     func() error { return f.svc.UnlinkChat(ctx, a, f.acct, 42) },
		"credit":     func() error { _, err := f.svc.Credit(ctx, a, f.acct, topupd.USD(5), "bank-1"); return err },
		"set price":  func() error { return f.svc.SetAccountPrice(ctx, a, f.acct, "uc", topupd.USD(2), false) },
		"drop price": func() error { return f.svc.DeleteAccountPrice(ctx, a, f.acct, "uc") },
		"put tier":   func() error { _, err := f.svc.PutTier(ctx, a, topupd.Tier{Name: "gold"}, false); return err },
	}
}

// TestAccountRoles: each operation on accounts, keys, credits, prices,
// tiers and chats is refused as ROLE_FORBIDDEN to a role without its
// permission (a PATCH's by what it changes), before anything changes:
// the action log stays empty and the auth cache is not cleared.
func TestAccountRoles(t *testing.T) {
	t.Parallel()
	f := newAccountsFixture(t)
	refused := map[topupd.Role][]string{
		topupd.RoleViewer: {"create", "patch flags", "patch tier", "new key", "rotate", "revoke", "link code", "unlink", "credit",
			"set price", "drop price", "put tier"},
		topupd.RoleFinance: {"create", "patch flags", "new key", "rotate", "revoke", "link code", "unlink"},
		topupd.RoleSupport: {"patch tier", "credit", "set price", "drop price", "put tier"},
	}
	for role, ops := range refused {
		calls := f.calls(as("kim", role))
		for _, op := range ops {
			if err := calls[op](); topupd.CodeOf(err) != topupd.ERoleForbidden {
				t.Errorf("%s may %s: %v", role, op, err)
			}
		}
	}
	if acts := f.actions(); len(acts) != 0 {
		t.Errorf("refused calls are in the action log: %+v", acts)
	}
	if f.invalidated != 0 {
		t.Errorf("refused calls cleared the auth cache %d times", f.invalidated)
	}
	// The roles that may: each call gets past the role check.
	for _, c := range []struct {
		role topupd.Role
		op   string
	}{{topupd.RoleSupport, "patch flags"}, {topupd.RoleFinance, "patch tier"}, {topupd.RoleFinance, "credit"}, {topupd.RoleSupport, "new key"}} {
		if err := f.calls(as("sam", c.role))[c.op](); topupd.CodeOf(err) == topupd.ERoleForbidden {
			t.Errorf("%s may not %s: %v", c.role, c.op, err)
		}
	}
}

// TestAccountChatScope: a reseller's chat acts on its own account alone:
// its reads, its keys, and of its fields only the API switch and the
// allow-list. Another account is ROLE_FORBIDDEN, another account's key
// NOT_FOUND as if there were none, and what is about no one account
// (the list, tiers, a new account) is refused too.
func TestAccountChatScope(t *testing.T) {
	t.Parallel()
	f := newAccountsFixture(t)
	ctx := context.Background()
	upd := int64(100)
	chat := func() service.Actor { upd++; return service.ChatActor(77, f.acct, upd) }

	if a, err := f.svc.Account(ctx, chat(), f.acct); err != nil || a.Balance != topupd.USD(100) {
		t.Errorf("reading its own account: %+v, %v", a, err)
	}
	off := false
	if a, err := f.svc.UpdateAccount(ctx, chat(), f.acct, topupd.AccountPatch{APIEnabled: &off}); err != nil || a.APIEnabled {
		t.Errorf("turning its own API off: %+v, %v", a, err)
	}
	if _, err := f.svc.CreateKey(ctx, chat(), f.acct, "mine"); err != nil {
		t.Errorf("a key of its own: %v", err)
	}
	if _, err := f.svc.RotateKey(ctx, chat(), f.acct, f.key, nil); err != nil {
		t.Errorf("rotating its own key: %v", err)
	}
	if err := f.svc.RevokeKey(ctx, chat(), f.key); err != nil {
		t.Errorf("revoking its own key: %v", err)
	}

	on := true
	for what, call := range map[string]func() error{
		"read another account": func() error { _, err := f.svc.Account(ctx, chat(), f.other); return err },
		"keys of another":      func() error { _, err := f.svc.Keys(ctx, chat(), f.other); return err },
		"ledger of another":    func() error { _, err := f.svc.Ledger(ctx, chat(), f.other, 10); return err },
		"patch another": func() error {
			_, err := f.svc.UpdateAccount(ctx, chat(), f.other, topupd.AccountPatch{APIEnabled: &on})
			return err
		},
		"lift its own ban": func() error {
			_, err := f.svc.UpdateAccount(ctx, chat(), f.acct, topupd.AccountPatch{Banned: &off})
			return err
		},
		"list accounts": func() error { _, err := f.svc.Accounts(ctx, chat(), service.AccountsQuery{Limit: 10}); return err },
		"list tiers":    func() error { _, err := f.svc.Tiers(ctx, chat()); return err },
		"make an account": func() error {
			n := "x"
			_, err := f.svc.CreateAccount(ctx, chat(), topupd.AccountPatch{Name: &n})
			return err
		},
		"credit itself":       func() error { _, err := f.svc.Credit(ctx, chat(), f.acct, topupd.USD(1), "r"); return err },
		"link another's chat": func() error { _, err := f.svc.ChatLink(ctx, chat(), f.other); return err },
	} {
		if err := call(); topupd.CodeOf(err) != topupd.ERoleForbidden {
			t.Errorf("%s: %v, want ROLE_FORBIDDEN", what, err)
		}
	}
	err := f.svc.RevokeKey(ctx, chat(), f.oKey)
	if topupd.CodeOf(err) != topupd.ENotFound || !strings.Contains(err.Error(), "is not this account's") {
		t.Errorf("revoking another account's key: %v", err)
	}
	if _, err := f.svc.RotateKey(ctx, chat(), f.other, f.oKey, nil); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("rotating another account's key: %v", err)
	}
	keys, _ := f.store.Keys(ctx, f.other)
	if len(keys) != 1 || keys[0].RevokedAt != nil {
		t.Errorf("another account's keys changed: %+v", keys)
	}
	if got := f.actions(); len(got) != 4 {
		t.Errorf("the action log holds %d entries, want the chat's 4 changes", len(got))
	}
}

// TestAccountValidation: each operation refuses what is not valid, as
// INVALID_BODY (or NOT_FOUND for what does not exist), and changes nothing.
func TestAccountValidation(t *testing.T) {
	t.Parallel()
	f := newAccountsFixture(t)
	ctx := context.Background()
	owner := as("olga", topupd.RoleOwner)
	blank, long := " ", strings.Repeat("x", 201)
	for what, c := range map[string]struct {
		call func() error
		code topupd.ErrorCode
		says string
	}{
		"no name":      {func() error { _, err := f.svc.CreateAccount(ctx, owner, topupd.AccountPatch{}); return err }, topupd.EInvalidBody, "name is required"},
		"a blank name": {func() error { _, err := f.svc.CreateAccount(ctx, owner, topupd.AccountPatch{Name: &blank}); return err }, topupd.EInvalidBody, "name: 1 to 200"},
		"a long label": {func() error { _, err := f.svc.CreateKey(ctx, owner, f.acct, long[:101]); return err }, topupd.EInvalidBody, "label: at most 100"},
		"credit 0":     {func() error { _, err := f.svc.Credit(ctx, owner, f.acct, 0, "r"); return err }, topupd.EInvalidBody, "must not be 0"},
		"no reference": {func() error { _, err := f.svc.Credit(ctx, owner, f.acct, 1, blank); return err }, topupd.EInvalidBody, "reference is required"},
		"long ref":     {func() error { _, err := f.svc.Credit(ctx, owner, f.acct, 1, long); return err }, topupd.EInvalidBody, "reference is required"},
		"price 0":      {func() error { return f.svc.SetAccountPrice(ctx, owner, f.acct, "uc", 0, false) }, topupd.EInvalidBody, "above 0"},
		"unknown pack": {func() error { return f.svc.SetAccountPrice(ctx, owner, f.acct, "nope", topupd.USD(1), false) }, topupd.ENotFound, "pack nope"},
		"a bad tier":   {func() error { _, err := f.svc.PutTier(ctx, owner, topupd.Tier{Name: "no spaces"}, false); return err }, topupd.EInvalidBody, ""},
		"bad allowlist": {func() error {
			l := []string{"300.1.1.1"}
			_, err := f.svc.UpdateAccount(ctx, owner, f.acct, topupd.AccountPatch{IPAllowlist: &l})
			return err
		}, topupd.EInvalidBody, ""},
		"no account": {func() error { _, err := f.svc.Keys(ctx, owner, "acc_nobody"); return err }, topupd.ENotFound, "acc_nobody"},
		"bad cursor": {func() error {
			_, err := f.svc.Accounts(ctx, owner, service.AccountsQuery{Cursor: "x:1", Limit: 5})
			return err
		}, topupd.EInvalidRequest, "cursor"},
	} {
		err := c.call()
		if topupd.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want %s saying %q", what, err, c.code, c.says)
		}
	}
	if acts := f.actions(); len(acts) != 0 {
		t.Errorf("refused calls are in the action log: %+v", acts)
	}
}

// TestAccountActions: each change is in the action log under the name
// and target the admin API's routes give it, by the actor, from where it
// asked, about its account; each clears the auth cache once.
func TestAccountActions(t *testing.T) {
	t.Parallel()
	f := newAccountsFixture(t)
	ctx := context.Background()
	owner := as("olga", topupd.RoleOwner)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	name := "new shop"
	made, err := f.svc.CreateAccount(ctx, owner, topupd.AccountPatch{Name: &name})
	must(err)
	if !made.APIEnabled || made.Balance != 0 || made.Name != name {
		t.Errorf("a new account: %+v", made)
	}
	k, err := f.svc.CreateKey(ctx, owner, f.acct, "till")
	must(err)
	rot, err := f.svc.RotateKey(ctx, owner, f.acct, k.ID, nil)
	must(err)
	if rot.Label != "till" || rot.OldKeyID != k.ID || !rot.OldRevokedAt.Equal(t0.Add(topupd.KeyRotationOverlap)) || !strings.HasPrefix(rot.Secret, rot.Prefix) {
		t.Errorf("a rotation: %+v", rot)
	}
	must(f.svc.RevokeKey(ctx, owner, f.key))
	code, err := f.svc.ChatLink(ctx, owner, f.acct)
	must(err)
	if code.URL != "https://t.me/topupd_bot?start="+code.Code || !code.ExpiresAt.Equal(t0.Truncate(time.Millisecond).Add(topupd.ChatLinkTTL)) {
		t.Errorf("a link code: %+v", code)
	}
	cr, err := f.svc.Credit(ctx, owner, f.acct, topupd.USD(5), "bank-1")
	must(err)
	if cr.Balance != topupd.USD(105) || cr.Repeated {
		t.Errorf("a credit: %+v", cr)
	}
	again, err := f.svc.Credit(ctx, owner, f.acct, topupd.USD(5), "bank-1")
	must(err)
	if again.Balance != topupd.USD(105) || !again.Repeated || again.Entry.ID != cr.Entry.ID {
		t.Errorf("a repeated credit: %+v", again)
	}
	must(f.svc.SetAccountPrice(ctx, owner, f.acct, "uc", topupd.USD(2), false))
	ap, err := f.svc.AccountPrices(ctx, owner, f.acct)
	must(err)
	if len(ap.Prices) != 1 || ap.Prices[0].Price != topupd.USD(2) || ap.Prices[0].Source != topupd.PriceOwn {
		t.Errorf("the account's prices: %+v", ap)
	}
	must(f.svc.DeleteAccountPrice(ctx, owner, f.acct, "uc"))
	_, err = f.svc.PutTier(ctx, owner, topupd.Tier{Name: "gold", Prices: map[string]topupd.Money{"uc": topupd.USD(3)}}, false)
	must(err)
	gold := "gold"
	goldP := &gold
	acct, err := f.svc.UpdateAccount(ctx, owner, f.acct, topupd.AccountPatch{Tier: &goldP})
	must(err)
	if acct.Tier != "gold" || acct.Balance != topupd.USD(105) {
		t.Errorf("an account on a tier: %+v", acct)
	}
	if err := f.svc.UnlinkChat(ctx, owner, f.acct, 42); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("unlinking a chat that is not linked: %v", err)
	}

	want := []string{
		"account.create " + made.ID, "key.create " + f.acct, "key.rotate " + k.ID, "key.revoke " + f.key, "chat.link-code " + f.acct,
		"account.credit " + f.acct, "account.credit " + f.acct, "price.set " + f.acct, "price.delete " + f.acct, "tier.put gold",
		"account.update " + f.acct,
	}
	acts := f.actions()
	var got []string
	for i := len(acts) - 1; i >= 0; i-- {
		a := acts[i]
		got = append(got, a.Action+" "+a.Target)
		if a.Actor.Operator != "olga" || a.Actor.IP != "198.51.100.7" || a.Actor.RequestID != "req-1" {
			t.Errorf("%s: by %+v", a.Action, a.Actor)
		}
		if a.Action != "tier.put" && a.Action != "account.create" && a.AccountID != f.acct {
			t.Errorf("%s: about account %q, want %s", a.Action, a.AccountID, f.acct)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the action log, oldest first:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if f.invalidated != len(want) {
		t.Errorf("the auth cache was cleared %d times, want once a change (%d)", f.invalidated, len(want))
	}
}

// TestAccountsPages: the list pages through every account once, newest
// first, each with its balance; a search finds by part of the name.
func TestAccountsPages(t *testing.T) {
	t.Parallel()
	f := newAccountsFixture(t)
	ctx := context.Background()
	viewer := as("vic", topupd.RoleViewer)
	first, err := f.svc.Accounts(ctx, viewer, service.AccountsQuery{Limit: 1})
	if err != nil || len(first.Accounts) != 1 || first.Accounts[0].ID != f.other || first.NextCursor == "" {
		t.Fatalf("the first page: %+v, %v", first, err)
	}
	second, err := f.svc.Accounts(ctx, viewer, service.AccountsQuery{Limit: 1, Cursor: first.NextCursor})
	if err != nil || len(second.Accounts) != 1 || second.Accounts[0].ID != f.acct || second.Accounts[0].Balance != topupd.USD(100) || second.NextCursor != "" {
		t.Errorf("the last page: %+v, %v", second, err)
	}
	found, err := f.svc.Accounts(ctx, viewer, service.AccountsQuery{Search: " SHO ", Limit: 10})
	if err != nil || len(found.Accounts) != 1 || found.Accounts[0].ID != f.acct {
		t.Errorf("searching: %+v, %v", found, err)
	}
	if _, err := f.svc.Accounts(ctx, viewer, service.AccountsQuery{Limit: 501}); topupd.CodeOf(err) != topupd.EInvalidRequest {
		t.Errorf("a page of 501: %v", err)
	}
}
