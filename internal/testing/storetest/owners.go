package storetest

import (
	"sync"
	"testing"

	"github.com/topupd/topupd"
)

// testLastOwner: no change leaves no operator who is an owner and not
// disabled: demoting or disabling the only one is ELastOwner and changes
// nothing; with two, one may go. Two owners demoting each other at once
// cannot both succeed.
func testLastOwner(t *testing.T, e *env) {
	e.operator("ann", topupd.RoleOwner)
	e.operator("kim", topupd.RoleSupport)
	viewer, owner, yes := topupd.RoleViewer, topupd.RoleOwner, true
	for _, p := range []topupd.OperatorPatch{{Role: &viewer}, {Disabled: &yes}} {
		if _, err := e.s.UpdateOperator(e.ctx, nil, "ann", p); topupd.CodeOf(err) != topupd.ELastOwner {
			t.Errorf("the only owner, %+v: %v", p, err)
		}
	}
	if _, err := e.s.UpdateOperator(e.ctx, nil, "kim", topupd.OperatorPatch{Role: &viewer}); err != nil {
		t.Errorf("demoting someone else: %v", err)
	}
	ops, err := e.s.Operators(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range ops {
		if o.Name == "ann" && !o.ActiveOwner() {
			t.Errorf("ann after the refusals: %+v", o)
		}
	}
	if _, err := e.s.UpdateOperator(e.ctx, nil, "kim", topupd.OperatorPatch{Role: &owner}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.UpdateOperator(e.ctx, nil, "kim", topupd.OperatorPatch{Disabled: &yes}); err != nil {
		t.Errorf("disabling one of two owners: %v", err)
	}
	if _, err := e.s.UpdateOperator(e.ctx, nil, "ann", topupd.OperatorPatch{Role: &viewer}); topupd.CodeOf(err) != topupd.ELastOwner {
		t.Errorf("demoting the owner left beside a disabled one: %v", err)
	}

	// Each of two owners demotes the other at once: one change wins.
	e.operator("bea", topupd.RoleOwner)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, name := range []string{"ann", "bea"} {
		wg.Go(func() { _, errs[i] = e.s.UpdateOperator(e.ctx, nil, name, topupd.OperatorPatch{Role: &viewer}) })
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Errorf("two owners demoting each other at once: %v, %v", errs[0], errs[1])
	}
	for _, err := range errs {
		if err != nil && topupd.CodeOf(err) != topupd.ELastOwner {
			t.Errorf("the refused demotion: %v", err)
		}
	}
}
