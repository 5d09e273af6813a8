package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/topupd/topupd"
)

var accountTests = []test{
	{"CreateAndGet", testCreateAndGet},
	{"UnknownIsNotFound", testAccountNotFound},
	{"UpdatePatch", testUpdatePatch},
	{"UpdateRefusesBadPatch", testUpdateBadPatch},
	{"Keys", testKeys},
}

func testCreateAndGet(t *testing.T, e *env) {
	restricted := t0.Add(time.Hour)
	want := topupd.Account{ID: "acc_one", Name: "Reseller One", APIEnabled: true, AdminDisabled: true, Banned: true,
		RestrictedUntil: &restricted, IPAllowlist: []string{"10.0.0.1", "192.168.0.0/24"}, IPAllowlistRequired: true, CreatedAt: t0}
	created, err := e.s.CreateAccount(e.ctx, nil, want)
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	if diff := cmp.Diff(want, created); diff != "" {
		t.Errorf("CreateAccount returned (-want +got):\n%s", diff)
	}
	got, err := e.s.Account(e.ctx, want.ID)
	if err != nil {
		t.Fatalf("Account: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Account (-want +got):\n%s", diff)
	}
	plain := topupd.Account{ID: "acc_two", Name: "Plain", CreatedAt: t0}
	if _, err := e.s.CreateAccount(e.ctx, nil, plain); err != nil {
		t.Fatalf("CreateAccount plain: %v", err)
	}
	if got, err := e.s.Account(e.ctx, plain.ID); err != nil {
		t.Fatalf("Account plain: %v", err)
	} else if diff := cmp.Diff(plain, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Account plain (-want +got):\n%s", diff)
	}
	if _, err := e.s.CreateAccount(e.ctx, nil, plain); err == nil {
		t.Errorf("CreateAccount with an existing id succeeded")
	}
	if n, err := e.s.CountAccounts(e.ctx); err != nil || n != 2 {
		t.Errorf("CountAccounts = %d, %v; want 2", n, err)
	}
	if b := e.balance(plain.ID); b != 0 {
		t.Errorf("new account balance = %v, want 0", b)
	}
}

func testAccountNotFound(t *testing.T, e *env) {
	e.account("someone", 0)
	_, err := e.s.Account(e.ctx, "acc_nobody")
	codeIs(t, err, topupd.ENotFound, "Account(unknown)")
	name := "x"
	_, err = e.s.UpdateAccount(e.ctx, nil, "acc_nobody", topupd.AccountPatch{Name: &name})
	codeIs(t, err, topupd.ENotFound, "UpdateAccount(unknown)")
	if n, err := e.s.CountAccounts(e.ctx); err != nil || n != 1 {
		t.Errorf("CountAccounts = %d, %v; want 1 (an update of an unknown id must not create it)", n, err)
	}
}

func testUpdatePatch(t *testing.T, e *env) {
	a := e.account("before", 0)
	name, yes, no := "after", true, false
	until := t0.Add(48*time.Hour + 555_555*time.Nanosecond) // sub-millisecond: returned must equal stored
	untilPtr := &until
	var none *time.Time
	allow := []string{"203.0.113.7", "198.51.100.0/24"}
	steps := []struct {
		name  string
		patch topupd.AccountPatch
		edit  func(a *topupd.Account)
	}{
		{"empty patch changes nothing", topupd.AccountPatch{}, func(*topupd.Account) {}},
		{"name only", topupd.AccountPatch{Name: &name}, func(a *topupd.Account) { a.Name = name }},
		{"flags", topupd.AccountPatch{APIEnabled: &no, AdminDisabled: &yes, Banned: &yes},
			func(a *topupd.Account) { a.APIEnabled, a.AdminDisabled, a.Banned = false, true, true }},
		{"restrict", topupd.AccountPatch{RestrictedUntil: &untilPtr}, func(a *topupd.Account) { a.RestrictedUntil = &until }},
		{"allowlist", topupd.AccountPatch{IPAllowlist: &allow, IPAllowlistRequired: &yes},
			func(a *topupd.Account) { a.IPAllowlist, a.IPAllowlistRequired = allow, true }},
		{"lift restriction, unban", topupd.AccountPatch{RestrictedUntil: &none, Banned: &no},
			func(a *topupd.Account) { a.RestrictedUntil, a.Banned = nil, false }},
		{"empty allowlist", topupd.AccountPatch{IPAllowlist: &[]string{}}, func(a *topupd.Account) { a.IPAllowlist = nil }},
	}
	want := a
	for _, st := range steps {
		st.edit(&want)
		got, err := e.s.UpdateAccount(e.ctx, nil, a.ID, st.patch)
		if err != nil {
			t.Fatalf("%s: UpdateAccount: %v", st.name, err)
		}
		// A store keeps times to its own precision (at least a millisecond),
		// but what UpdateAccount returns must be exactly what is stored.
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.EquateApproxTime(time.Millisecond)); diff != "" {
			t.Errorf("%s: UpdateAccount returned (-want +got):\n%s", st.name, diff)
		}
		stored, err := e.s.Account(e.ctx, a.ID)
		if err != nil {
			t.Fatalf("%s: Account: %v", st.name, err)
		}
		if diff := cmp.Diff(got, stored, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: stored account differs from the returned one (-returned +stored):\n%s", st.name, diff)
		}
	}
}

func testUpdateBadPatch(t *testing.T, e *env) {
	a := e.account("steady", 0)
	blank, yes := "  ", true
	bad := []string{"not-an-ip"}
	for _, p := range []topupd.AccountPatch{
		{Name: &blank, Banned: &yes},
		{IPAllowlist: &bad, Banned: &yes},
	} {
		_, err := e.s.UpdateAccount(e.ctx, nil, a.ID, p)
		codeIs(t, err, topupd.EInvalidBody, "UpdateAccount(bad patch)")
		got, err := e.s.Account(e.ctx, a.ID)
		if err != nil {
			t.Fatalf("Account: %v", err)
		}
		if diff := cmp.Diff(a, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("a refused patch changed the account (-want +got):\n%s", diff)
		}
	}
}

func testKeys(t *testing.T, e *env) {
	a := e.account("keyed", 0)
	b := e.account("other", 0)
	_, h1 := topupd.NewAPIKey()
	_, h2 := topupd.NewAPIKey()
	_, hb := topupd.NewAPIKey()
	_, unknown := topupd.NewAPIKey()
	for _, k := range []struct {
		acc, id string
		h       topupd.KeyHash
	}{{a.ID, "key_1", h1}, {a.ID, "key_2", h2}, {b.ID, "key_b", hb}} {
		if err := e.s.AddKey(e.ctx, nil, topupd.APIKey{ID: k.id, AccountID: k.acc, CreatedAt: t0}, k.h); err != nil {
			t.Fatalf("AddKey %s: %v", k.id, err)
		}
	}
	owner := func(h topupd.KeyHash) string {
		got, err := e.s.AccountByKey(e.ctx, h, t0.Add(time.Hour))
		if err != nil {
			return string(topupd.CodeOf(err))
		}
		return got.ID
	}
	check := func(stage string, want map[string]string) {
		t.Helper()
		got := map[string]string{"key_1": owner(h1), "key_2": owner(h2), "key_b": owner(hb), "unknown": owner(unknown)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: AccountByKey per key (-want +got):\n%s", stage, diff)
		}
	}
	invalid := string(topupd.EInvalidKey)
	check("after AddKey", map[string]string{"key_1": a.ID, "key_2": a.ID, "key_b": b.ID, "unknown": invalid})

	if got, err := e.s.AccountByKey(e.ctx, h1, t0); err != nil {
		t.Fatalf("AccountByKey: %v", err)
	} else if diff := cmp.Diff(a, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("AccountByKey returned (-want +got):\n%s", diff)
	}

	if err := e.s.RevokeKey(e.ctx, nil, "key_1", t0.Add(time.Minute)); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	check("after RevokeKey key_1", map[string]string{"key_1": invalid, "key_2": a.ID, "key_b": b.ID, "unknown": invalid})
	if err := e.s.RevokeKey(e.ctx, nil, "key_1", t0.Add(2*time.Minute)); err != nil {
		t.Errorf("RevokeKey twice: %v", err)
	}
	check("after revoking key_1 twice", map[string]string{"key_1": invalid, "key_2": a.ID, "key_b": b.ID, "unknown": invalid})
	codeIs(t, e.s.RevokeKey(e.ctx, nil, "key_nope", t0), topupd.ENotFound, "RevokeKey(unknown)")

	// A rotation adds a key and revokes the old one a day later; an
	// earlier revocation asked for afterwards wins.
	_, hr := topupd.NewAPIKey()
	if err := e.s.AddKey(e.ctx, nil, topupd.APIKey{ID: "key_r", AccountID: a.ID, CreatedAt: t0}, hr); err != nil {
		t.Fatal(err)
	}
	_, h3 := topupd.NewAPIKey()
	later := t0.Add(24 * time.Hour)
	if err := e.s.RotateKey(e.ctx, nil, "key_r", topupd.APIKey{ID: "key_3", AccountID: a.ID, CreatedAt: t0}, h3, later); err != nil {
		t.Fatalf("RotateKey: %v", err)
	}
	at := func(h topupd.KeyHash, when time.Time) string {
		got, err := e.s.AccountByKey(e.ctx, h, when)
		if err != nil {
			return string(topupd.CodeOf(err))
		}
		return got.ID
	}
	if a2, a3, gone := at(hr, later.Add(-time.Millisecond)), at(h3, later.Add(time.Hour)), at(hr, later); a2 != a.ID || a3 != a.ID || gone != invalid {
		t.Errorf("around a rotation's end: old key %s, new key %s, old key at the end %s", a2, a3, gone)
	}
	_, h4 := topupd.NewAPIKey()
	codeIs(t, e.s.RotateKey(e.ctx, nil, "key_1", topupd.APIKey{ID: "key_4", AccountID: a.ID, CreatedAt: t0.Add(time.Hour)}, h4, later), topupd.ENotFound, "RotateKey(revoked)")
	codeIs(t, e.s.RotateKey(e.ctx, nil, "key_b", topupd.APIKey{ID: "key_4", AccountID: a.ID, CreatedAt: t0}, h4, later), topupd.ENotFound, "RotateKey(another account's)")
	if err := e.s.RevokeKey(e.ctx, nil, "key_r", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := at(hr, t0.Add(2*time.Hour)); got != invalid {
		t.Errorf("a rotated key revoked at once: %s", got)
	}
	if err := e.s.RevokeKey(e.ctx, nil, "key_r", later.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := at(hr, t0.Add(2*time.Hour)); got != invalid {
		t.Errorf("a later revocation undid an earlier one: %s", got)
	}

	if err := e.s.AddKey(e.ctx, nil, topupd.APIKey{ID: "key_x", AccountID: "acc_nobody", CreatedAt: t0}, unknown); err == nil {
		t.Errorf("AddKey for an unknown account succeeded")
	}
	check("after a refused AddKey", map[string]string{"key_1": invalid, "key_2": a.ID, "key_b": b.ID, "unknown": invalid})
}

var ledgerTests = []test{
	{"CreditAndBalance", testCreditAndBalance},
	{"RepeatedReference", testRepeatedReference},
	{"CorrectionBelowZero", testCorrectionBelowZero},
	{"CreditedTotal", testCreditedTotal},
	{"LedgerLimit", testLedgerLimit},
	{"LedgerBefore", testLedgerBefore},
}

// testLedgerBefore pages an account's ledger back by its entries' ids:
// each page holds the entries older than the cursor alone, newest first,
// and none of another account's.
func testLedgerBefore(t *testing.T, e *env) {
	a, other := e.account("a", 0), e.account("other", topupd.USD(7))
	for i := 1; i <= 5; i++ {
		e.credit(a.ID, topupd.Money(i))
	}
	newest, err := e.s.Ledger(e.ctx, a.ID, 2)
	if err != nil || len(newest) != 2 {
		t.Fatalf("Ledger: %v, %v", newest, err)
	}
	var amounts []topupd.Money
	for before := newest[1].ID; ; {
		page, err := e.s.LedgerBefore(e.ctx, a.ID, before, 2)
		if err != nil {
			t.Fatalf("LedgerBefore(%d): %v", before, err)
		}
		if len(page) == 0 {
			break
		}
		for _, en := range page {
			if en.AccountID != a.ID || en.ID >= before {
				t.Errorf("LedgerBefore(%d): entry %+v", before, en)
			}
			amounts = append(amounts, en.Amount)
		}
		before = page[len(page)-1].ID
	}
	if diff := cmp.Diff([]topupd.Money{3, 2, 1}, amounts); diff != "" {
		t.Errorf("the older pages' amounts (-want +got):\n%s", diff)
	}
	first := newest[0].ID
	if got, err := e.s.LedgerBefore(e.ctx, other.ID, first, 10); err != nil || len(got) != 0 {
		t.Errorf("LedgerBefore(other, an entry of a) = %v, %v; want nothing: the entry is not other's", got, err)
	}
}

func testCreditAndBalance(t *testing.T, e *env) {
	a := e.account("funded", 0)
	amounts := []topupd.Money{topupd.USD(10), 2_500, -1_234, topupd.USD(1)}
	var want []topupd.LedgerEntry
	var running topupd.Money
	for i, m := range amounts {
		running += m
		now := t0.Add(time.Duration(i) * time.Second)
		ref := e.uniq("deposit")
		got, repeated, err := e.s.Credit(e.ctx, nil, a.ID, m, ref, now)
		if err != nil || repeated {
			t.Fatalf("Credit %v: repeated %v, err %v", m, repeated, err)
		}
		w := topupd.LedgerEntry{AccountID: a.ID, Kind: topupd.EntryCredit, Amount: m, BalanceAfter: running, Reference: ref, CreatedAt: now}
		if diff := cmp.Diff(w, got, cmpopts.IgnoreFields(topupd.LedgerEntry{}, "ID")); diff != "" {
			t.Errorf("Credit %v returned (-want +got):\n%s", m, diff)
		}
		w.ID = got.ID
		want = append([]topupd.LedgerEntry{w}, want...)
		if b := e.balance(a.ID); b != running {
			t.Errorf("after Credit %v: Balance = %v, want %v", m, b, running)
		}
	}
	got := e.ledger(a.ID)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Ledger, newest first (-want +got):\n%s", diff)
	}
	if s, b := sum(got), e.balance(a.ID); s != b {
		t.Errorf("sum of the ledger = %v, balance = %v", s, b)
	}
	if _, _, err := e.s.Credit(e.ctx, nil, "acc_nobody", 100, "x", t0); err == nil {
		t.Errorf("Credit to an unknown account succeeded")
	}
}

func testRepeatedReference(t *testing.T, e *env) {
	a := e.account("a", 0)
	b := e.account("b", 0)
	// A realistic clock: sub-millisecond and not UTC. The repeat must still
	// answer exactly the entry the first call returned.
	now := t0.Add(987_654_321 * time.Nanosecond).In(time.FixedZone("UTC-3", -3*3600))
	first, repeated, err := e.s.Credit(e.ctx, nil, a.ID, topupd.USD(5), "wire-1", now)
	if err != nil || repeated {
		t.Fatalf("first Credit: repeated %v, err %v", repeated, err)
	}
	before := e.snapshot(a.ID)
	for _, amount := range []topupd.Money{topupd.USD(5), topupd.USD(7), -topupd.USD(1)} {
		again, repeated, err := e.s.Credit(e.ctx, nil, a.ID, amount, "wire-1", t0.Add(time.Hour))
		if err != nil {
			t.Fatalf("repeated Credit %v: %v", amount, err)
		}
		if !repeated {
			t.Errorf("repeated Credit %v: repeated = false", amount)
		}
		if diff := cmp.Diff(first, again); diff != "" {
			t.Errorf("repeated Credit %v: entry (-first +got):\n%s", amount, diff)
		}
	}
	if diff := cmp.Diff([]topupd.LedgerEntry{first}, e.ledger(a.ID)); diff != "" {
		t.Errorf("Ledger differs from what Credit returned (-returned +ledger):\n%s", diff)
	}
	e.unchanged(before, "a repeated reference")
	// A reference belongs to its account: another account may use it.
	if _, repeated, err := e.s.Credit(e.ctx, nil, b.ID, topupd.USD(3), "wire-1", t0); err != nil || repeated {
		t.Errorf("Credit of another account with the same reference: repeated %v, err %v", repeated, err)
	}
	if got := e.balance(b.ID); got != topupd.USD(3) {
		t.Errorf("other account balance = %v, want 3", got)
	}
}

func testCorrectionBelowZero(t *testing.T, e *env) {
	a := e.account("corrected", topupd.USD(10))
	before := e.snapshot(a.ID)
	_, _, err := e.s.Credit(e.ctx, nil, a.ID, -topupd.USD(10)-1, "fix-1", t0)
	codeIs(t, err, topupd.EInsufficientBalance, "correction below zero")
	e.unchanged(before, "a refused correction")
	// The refused reference was not used up: a correction that fits may take it.
	got, repeated, err := e.s.Credit(e.ctx, nil, a.ID, -topupd.USD(10), "fix-1", t0)
	if err != nil || repeated {
		t.Fatalf("correction to exactly zero: repeated %v, err %v", repeated, err)
	}
	if got.BalanceAfter != 0 || got.Amount != -topupd.USD(10) {
		t.Errorf("correction entry: amount %v balance after %v, want -10 and 0", got.Amount, got.BalanceAfter)
	}
	if b := e.balance(a.ID); b != 0 {
		t.Errorf("balance = %v, want 0", b)
	}
	_, _, err = e.s.Credit(e.ctx, nil, a.ID, -1, "fix-2", t0)
	codeIs(t, err, topupd.EInsufficientBalance, "correction of an empty account")
}

func testCreditedTotal(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", 0)
	other := e.account("other", topupd.USD(1000))
	if got, err := e.s.CreditedTotal(e.ctx, a.ID); err != nil || got != 0 {
		t.Errorf("CreditedTotal of a new account = %v, %v; want 0", got, err)
	}
	e.credit(a.ID, topupd.USD(20))
	e.credit(a.ID, topupd.USD(5))
	e.credit(a.ID, -topupd.USD(3)) // a correction is a credit entry too
	o := e.place(a.ID, topup("T-1"), t0)
	e.settle(o, topupd.Settlement{Status: topupd.StatusCancelled, Error: "x", Refund: true, Now: t0})
	e.place(a.ID, topup("T-2"), t0)
	got, err := e.s.CreditedTotal(e.ctx, a.ID)
	if err != nil {
		t.Fatalf("CreditedTotal: %v", err)
	}
	if want := topupd.USD(22); got != want {
		t.Errorf("CreditedTotal = %v, want %v (credits only: no charges, no refunds, no other account)", got, want)
	}
	if b := e.balance(a.ID); b != topupd.USD(22)-priceTopup {
		t.Errorf("balance = %v, want %v", b, topupd.USD(22)-priceTopup)
	}
	if got, _ := e.s.CreditedTotal(e.ctx, other.ID); got != topupd.USD(1000) {
		t.Errorf("other CreditedTotal = %v, want 1000", got)
	}
}

func testLedgerLimit(t *testing.T, e *env) {
	a := e.account("a", 0)
	for i := 1; i <= 5; i++ {
		e.credit(a.ID, topupd.Money(i))
	}
	got, err := e.s.Ledger(e.ctx, a.ID, 2)
	if err != nil {
		t.Fatalf("Ledger: %v", err)
	}
	amounts := []topupd.Money{}
	for _, en := range got {
		amounts = append(amounts, en.Amount)
	}
	if diff := cmp.Diff([]topupd.Money{5, 4}, amounts); diff != "" {
		t.Errorf("Ledger(limit 2) amounts (-want +got):\n%s", diff)
	}
}

var settingsTests = []test{
	{"RoundTrip", testSettings},
	{"Ping", testPing},
}

func testPing(t *testing.T, e *env) {
	if err := e.s.Ping(e.ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
	if n, err := e.s.CountAccounts(e.ctx); err != nil || n != 0 {
		t.Errorf("CountAccounts of a fresh store = %d, %v; want 0", n, err)
	}
}

func testSettings(t *testing.T, e *env) {
	got, err := e.s.Settings(e.ctx)
	if err != nil {
		t.Fatalf("Settings: %v", err)
	}
	defaults := topupd.Settings{UpstreamBalancePollMinutes: 5, ReconcileAt: "03:00", DepositTicketHours: topupd.DefaultDepositTicketHours,
		DepositSecondApprovalAbove: topupd.DefaultSecondApprovalAbove, HoldAbove: topupd.DefaultHoldAbove,
		DisputeWindowDays: topupd.DefaultDisputeWindowDays, DisputeAnswerHours: topupd.DefaultDisputeAnswerHours}
	if diff := cmp.Diff(defaults, got); diff != "" {
		t.Errorf("default settings (-want +got):\n%s", diff)
	}
	yes, minTopup, delay, call, poll := true, topupd.USD(50), 1500, 200, 0
	want := defaults
	never, at := "", "23:59"
	bank := &topupd.DepositBank{BankName: "BCA", AccountNumber: "0123", AccountHolder: "PT Jaya"}
	var noBank *topupd.DepositBank
	hours, above, hold := 72, topupd.USD(250), topupd.Percent(25*topupd.MoneyScale)
	for _, st := range []struct {
		patch topupd.SettingsPatch
		edit  func(*topupd.Settings)
	}{
		{topupd.SettingsPatch{Maintenance: &yes}, func(s *topupd.Settings) { s.Maintenance = true }},
		{topupd.SettingsPatch{OrdersDisabled: &yes, EligibilityMinTopup: &minTopup},
			func(s *topupd.Settings) { s.OrdersDisabled, s.EligibilityMinTopup = true, minTopup }},
		{topupd.SettingsPatch{SimDelayMs: &delay, SimCallMs: &call}, func(s *topupd.Settings) { s.SimDelayMs, s.SimCallMs = delay, call }},
		{topupd.SettingsPatch{UpstreamBalancePollMinutes: &poll}, func(s *topupd.Settings) { s.UpstreamBalancePollMinutes = poll }},
		{topupd.SettingsPatch{ReconcileAt: &never}, func(s *topupd.Settings) { s.ReconcileAt = "" }},
		{topupd.SettingsPatch{ReconcileAt: &at}, func(s *topupd.Settings) { s.ReconcileAt = at }},
		{topupd.SettingsPatch{DepositBank: &bank, DepositTicketHours: &hours, DepositSecondApprovalAbove: &above}, func(s *topupd.Settings) {
			s.DepositBank, s.DepositTicketHours, s.DepositSecondApprovalAbove = bank, hours, above
		}},
		{topupd.SettingsPatch{DepositBank: &noBank}, func(s *topupd.Settings) { s.DepositBank = nil }},
		{topupd.SettingsPatch{HoldAbove: &hold}, func(s *topupd.Settings) { s.HoldAbove = hold }},
		{topupd.SettingsPatch{DisputeWindowDays: &hours, DisputeAnswerHours: &hours}, func(s *topupd.Settings) {
			s.DisputeWindowDays, s.DisputeAnswerHours = hours, hours
		}},
		{topupd.SettingsPatch{}, func(*topupd.Settings) {}},
	} {
		st.edit(&want)
		got, err := e.s.UpdateSettings(e.ctx, nil, st.patch)
		if err != nil {
			t.Fatalf("UpdateSettings: %v", err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("UpdateSettings returned (-want +got):\n%s", diff)
		}
		if got, err := e.s.Settings(e.ctx); err != nil || cmp.Diff(want, got) != "" {
			t.Errorf("Settings after update (-want +got):\n%s (err %v)", cmp.Diff(want, got), err)
		}
	}
	neg, tooLong, negMoney, dayAndMinute, badClock := -1, 86_400_001, topupd.Money(-1), 1441, "24:00"
	no, negHold := false, topupd.Percent(-1)
	for _, bad := range []topupd.SettingsPatch{
		{SimDelayMs: &neg, Maintenance: &no},
		{SimCallMs: &tooLong, Maintenance: &no},
		{EligibilityMinTopup: &negMoney, Maintenance: &no},
		{UpstreamBalancePollMinutes: &neg, Maintenance: &no},
		{UpstreamBalancePollMinutes: &dayAndMinute, Maintenance: &no},
		{ReconcileAt: &badClock, Maintenance: &no},
		{DepositTicketHours: &neg, Maintenance: &no},
		{DepositSecondApprovalAbove: &negMoney, Maintenance: &no},
		{HoldAbove: &negHold, Maintenance: &no},
		{DisputeWindowDays: &neg, Maintenance: &no},
		{DisputeAnswerHours: &tooLong, Maintenance: &no},
	} {
		_, err := e.s.UpdateSettings(e.ctx, nil, bad)
		codeIs(t, err, topupd.EInvalidBody, "UpdateSettings(bad patch)")
		if got, err := e.s.Settings(e.ctx); err != nil || cmp.Diff(want, got) != "" {
			t.Errorf("a refused patch changed the settings (-want +got):\n%s (err %v)", cmp.Diff(want, got), err)
		}
	}
}
