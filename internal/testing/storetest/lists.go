package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/topupd/topupd"
)

var listTests = []test{
	{"AccountsNewestFirst", testAccountsNewestFirst},
	{"KeysListed", testKeysListed},
	{"Statement", testStatement},
	{"OrderSearch", testOrderSearch},
	{"DepositsOldestFirst", testDepositsOldestFirst},
}

// testDepositsOldestFirst: the deposits list is newest first, and oldest
// first with Oldest (the console's queue), by status, by account and
// within a limit.
func testDepositsOldestFirst(t *testing.T, e *env) {
	bank := &topupd.DepositBank{BankName: "BCA", AccountNumber: "0123", AccountHolder: "PT Jaya"}
	if _, err := e.s.UpdateSettings(e.ctx, nil, topupd.SettingsPatch{DepositBank: &bank}); err != nil {
		t.Fatal(err)
	}
	a, b := e.account("dep-a", 0), e.account("dep-b", 0)
	var ids []string
	for i, acc := range []string{a.ID, b.ID, a.ID, b.ID} {
		d, err := e.s.OpenDeposit(e.ctx, nil, acc, topupd.USD(int64(10+i)), t0.Add(time.Duration(i)*time.Minute))
		if err != nil {
			t.Fatalf("OpenDeposit %d: %v", i, err)
		}
		ids = append(ids, d.ID)
	}
	if _, err := e.s.RejectDeposit(e.ctx, nil, ids[1], "no transfer", "op", t0.Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		q    topupd.DepositsQuery
		want []string
	}{
		{"newest first", topupd.DepositsQuery{Limit: 10}, []string{ids[3], ids[2], ids[1], ids[0]}},
		{"oldest first", topupd.DepositsQuery{Oldest: true, Limit: 10}, ids},
		{"pending, newest 2", topupd.DepositsQuery{Status: topupd.DepositPending, Limit: 2}, []string{ids[3], ids[2]}},
		{"pending, oldest 2", topupd.DepositsQuery{Status: topupd.DepositPending, Oldest: true, Limit: 2}, []string{ids[0], ids[2]}},
		{"one account's, oldest first", topupd.DepositsQuery{AccountID: b.ID, Oldest: true, Limit: 10}, []string{ids[1], ids[3]}},
	} {
		list, _, err := e.s.Deposits(e.ctx, c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, d := range list {
			got = append(got, d.ID)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// testStatement: a statement holds the entries made in [from, to) oldest
// first, each order entry with its trxid and pid, between the balances at
// both ends; an account with nothing in the period opens and closes alike.
func testStatement(t *testing.T, e *env) {
	e.catalog()
	a := e.account("stmt", 0)
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	for i, amount := range []topupd.Money{topupd.USD(10), topupd.USD(5), -topupd.USD(1)} {
		if _, _, err := e.s.Credit(e.ctx, nil, a.ID, amount, fmt.Sprintf("c%d", i), at(i)); err != nil {
			t.Fatal(err)
		}
	}
	o := e.place(a.ID, topup("STMT-1"), at(3))
	st, err := e.s.Statement(e.ctx, a.ID, at(1), at(4))
	if err != nil {
		t.Fatal(err)
	}
	if st.Opening != topupd.USD(10) || st.Closing != topupd.USD(14)-priceTopup || len(st.Entries) != 3 {
		t.Fatalf("statement of [1h, 4h): opening %v closing %v, %d entries", st.Opening, st.Closing, len(st.Entries))
	}
	last := st.Entries[2]
	if last.Kind != topupd.EntryCharge || last.TrxID != "STMT-1" || last.PID != pidTopup || last.OrderID != o.ID || last.Amount != -priceTopup {
		t.Errorf("the order's entry: %+v", last)
	}
	if st.Entries[0].Reference != "c1" || !st.Entries[0].CreatedAt.Equal(at(1)) {
		t.Errorf("the first entry: %+v", st.Entries[0])
	}
	empty, err := e.s.Statement(e.ctx, a.ID, at(10), at(11))
	if err != nil || empty.Opening != empty.Closing || empty.Closing != e.balance(a.ID) || len(empty.Entries) != 0 {
		t.Errorf("an empty period: %+v, %v", empty, err)
	}
}

// testAccountsNewestFirst: the accounts list pages newest first, ties on
// the creation time broken by id, and finds by id or by a part of the name
// whatever its case, the LIKE wildcards taken as plain characters.
func testAccountsNewestFirst(t *testing.T, e *env) {
	var want []string
	for i := range 6 {
		name := fmt.Sprintf("Shop %d", i)
		if i == 4 {
			name = "50%_off"
		}
		a, err := e.s.CreateAccount(e.ctx, nil, topupd.Account{ID: fmt.Sprintf("acc_%02d", i), Name: name, APIEnabled: true,
			CreatedAt: t0.Add(time.Duration(i/2) * time.Second)}) // two accounts at each time
		if err != nil {
			t.Fatal(err)
		}
		want = append([]string{a.ID}, want...)
	}
	var got []string
	q := topupd.AccountsQuery{Limit: 4}
	for {
		page, err := e.s.Accounts(e.ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range page {
			got = append(got, a.ID)
		}
		if len(page) < q.Limit {
			break
		}
		q.After = &page[len(page)-1]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	for search, n := range map[string]int{"shop": 5, "SHOP 3": 1, "acc_02": 1, "%": 1, "_": 1, "0%_": 1, "x": 0} {
		page, err := e.s.Accounts(e.ctx, topupd.AccountsQuery{Search: search, Limit: 10})
		if err != nil || len(page) != n {
			t.Errorf("search %q: %d accounts, %v; want %d", search, len(page), err, n)
		}
	}
}

// testKeysListed: an account's keys, newest first, with label and prefix,
// their last use to the minute (never moved back), and their revocation.
func testKeysListed(t *testing.T, e *env) {
	a := e.account("keys", 0)
	var hashes []topupd.KeyHash
	for i, label := range []string{"first", "second"} {
		key, h := topupd.NewAPIKey()
		hashes = append(hashes, h)
		if err := e.s.AddKey(e.ctx, nil, topupd.APIKey{ID: fmt.Sprintf("key_%d", i), AccountID: a.ID, Label: label, Prefix: key[:8],
			CreatedAt: t0.Add(time.Duration(i) * time.Second)}, h); err != nil {
			t.Fatal(err)
		}
	}
	minute := t0.Add(5 * time.Minute).Truncate(time.Minute)
	for _, m := range []time.Time{minute, minute.Add(-time.Minute)} { // the older minute must not win
		if err := e.s.UseKey(e.ctx, hashes[1], m); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.s.RevokeKey(e.ctx, nil, "key_0", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	keys, err := e.s.Keys(e.ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	revoked := t0.Add(time.Hour)
	want := []topupd.APIKey{
		{ID: "key_1", AccountID: a.ID, Label: "second", CreatedAt: t0.Add(time.Second), LastUsedAt: &minute},
		{ID: "key_0", AccountID: a.ID, Label: "first", CreatedAt: t0, RevokedAt: &revoked},
	}
	if diff := cmp.Diff(want, keys, cmpopts.IgnoreFields(topupd.APIKey{}, "Prefix")); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	for _, k := range keys {
		if len(k.Prefix) != 8 || k.Prefix[:4] != topupd.APIKeyPrefix {
			t.Errorf("key %s: prefix %q", k.ID, k.Prefix)
		}
	}
}
