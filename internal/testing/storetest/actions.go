package storetest

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/racer"
)

var actionTests = []test{
	{"CommitWithTheChange", testActionsCommitWithTheChange},
	{"RacingChanges", testActionsRacingChanges},
}

// testActionsCommitWithTheChange: a change made with a Change in its
// context is in the action log with its fields; one that is refused, or
// rolled back, leaves no entry; one made without a Change leaves none.
func testActionsCommitWithTheChange(t *testing.T, e *env) {
	a := e.account("a", topupd.USD(10))
	change := func(action string) *topupd.Change {
		return &topupd.Change{Actor: topupd.Actor{Operator: "kim", IP: "10.0.0.1", RequestID: "req-" + action}, Action: action, Target: a.ID}
	}
	renamed, empty := "renamed", ""
	if _, err := e.s.UpdateAccount(e.ctx, change("account.update"), a.ID, topupd.AccountPatch{Name: &renamed}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.UpdateAccount(e.ctx, change("refused.update"), a.ID, topupd.AccountPatch{Name: &empty}); err == nil {
		t.Fatal("an empty name was taken")
	}
	if _, _, err := e.s.Credit(e.ctx, change("refused.credit"), a.ID, -topupd.USD(100), "overdraw", t0); err == nil {
		t.Fatal("an overdraft was taken")
	}
	if _, _, err := e.s.Credit(e.ctx, nil, a.ID, topupd.USD(1), "no change in ctx", t0); err != nil {
		t.Fatal(err)
	}
	acts, err := e.s.Actions(e.ctx, topupd.ActionsQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 {
		t.Fatalf("%d entries, want 1: %+v", len(acts), acts)
	}
	got := acts[0]
	got.ID, got.At = 0, got.At.Truncate(0)
	if got.At.IsZero() {
		t.Error("an entry without a time")
	}
	got.At = t0
	want := topupd.Action{At: t0, Actor: topupd.Actor{Operator: "kim", IP: "10.0.0.1", RequestID: "req-account.update"},
		Action: "account.update", Target: a.ID, AccountID: a.ID, Before: map[string]any{"name": "a"}, After: map[string]any{"name": "renamed"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entry (-want +got):\n%s", diff)
	}
	if acts, _ := e.s.Actions(e.ctx, topupd.ActionsQuery{Operator: "lee", Limit: 10}); len(acts) != 0 {
		t.Errorf("entries of another operator: %+v", acts)
	}
	// An action ending in "." is a prefix; any other is the whole name.
	for q, want := range map[string]int{"account.": 1, "account": 0, "account.update": 1, "accounts.": 0, "account.up": 0} {
		if acts, err := e.s.Actions(e.ctx, topupd.ActionsQuery{Action: q, Limit: 10}); err != nil || len(acts) != want {
			t.Errorf("entries of action %q: %d, want %d (%v)", q, len(acts), want, err)
		}
	}
}

// testActionsRacingChanges: racing changes each leave exactly their own
// entry, under group commit too.
func testActionsRacingChanges(t *testing.T, e *env) {
	a := e.account("a", topupd.USD(10))
	const n = 40
	errs := racer.Run(n, func(i int) error {
		c := &topupd.Change{Actor: topupd.Actor{Operator: "kim", RequestID: fmt.Sprint(i)}, Action: "account.credit"}
		_, _, err := e.s.Credit(e.ctx, c, a.ID, topupd.USD(1), fmt.Sprintf("ref-%d", i), t0)
		return err
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	acts, err := e.s.Actions(e.ctx, topupd.ActionsQuery{AccountID: a.ID, Action: "account.credit", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, x := range acts {
		seen[x.Actor.RequestID] = true
	}
	if len(acts) != n || len(seen) != n {
		t.Errorf("%d entries for %d requests, want %d each", len(acts), len(seen), n)
	}
}
