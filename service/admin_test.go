package service_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// adminService is a service over f's store that counts its cache
// invalidations and knows the console's address and the bot's name.
func adminService(t *testing.T, f *fixture, consoleURL string, invalidated *int) *service.Service {
	t.Helper()
	svc, err := service.New(service.Deps{Store: f.store, Now: func() time.Time { return t0 },
		Invalidate: func(context.Context) error { *invalidated++; return nil }, ConsoleURL: consoleURL,
		BotUsername: func() string { return "@topupd_bot" }})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// TestAdminRoles: each change of the admin area, the codes' read and the
// reports are refused (ROLE_FORBIDDEN) to a role without their
// permission, before anything changes: nothing reaches the action log.
func TestAdminRoles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	o := f.order()
	on := true
	from, to := t0.Add(-time.Hour), t0.Add(time.Hour)
	calls := map[string]func(a service.Actor) error{
		"settings": func(a service.Actor) error {
			_, err := f.svc.UpdateSettings(ctx, a, topupd.SettingsPatch{Maintenance: &on})
			return err
		},
		"create operator": func(a service.Actor) error {
			_, _, err := f.svc.CreateOperator(ctx, a, "kim", topupd.RoleViewer)
			return err
		},
		"update operator": func(a service.Actor) error {
			_, err := f.svc.UpdateOperator(ctx, a, "kim", topupd.OperatorPatch{Disabled: &on})
			return err
		},
		"token": func(a service.Actor) error { _, err := f.svc.CreateOperatorToken(ctx, a, "kim"); return err },
		"setup link": func(a service.Actor) error {
			_, err := f.svc.CreateSetupLink(ctx, a, "kim", "http://x/console/")
			return err
		},
		"chat link": func(a service.Actor) error { _, err := f.svc.CreateOperatorChatLink(ctx, a, "kim"); return err },
		"codes":     func(a service.Actor) error { _, err := f.svc.OrderCodes(ctx, a, o.ID); return err },
		"sales":     func(a service.Actor) error { _, err := f.svc.SalesReport(ctx, a, from, to, ""); return err },
		"durations": func(a service.Actor) error { _, err := f.svc.Durations(ctx, a, from, to); return err },
		"statement": func(a service.Actor) error { _, err := f.svc.Statement(ctx, a, f.acct, from, to); return err },
	}
	reports := map[string]bool{"sales": true, "durations": true, "statement": true}
	for _, role := range []topupd.Role{topupd.RoleViewer, topupd.RoleSupport, topupd.RoleFinance, topupd.RoleResellerChat} {
		a := as("val", role)
		if role == topupd.RoleResellerChat {
			a.Account = f.acct
		}
		for what, call := range calls {
			err := call(a)
			if role == topupd.RoleFinance && reports[what] {
				if err != nil {
					t.Errorf("finance reading %s: %v", what, err)
				}
				continue
			}
			if topupd.CodeOf(err) != topupd.ERoleForbidden {
				t.Errorf("%s may %s: %v", role, what, err)
			}
		}
	}
	if acts := f.actions(); len(acts) != 0 {
		t.Errorf("refused calls are in the action log: %+v", acts)
	}
	if st, _ := f.store.Settings(ctx); st.Maintenance {
		t.Error("a refused call changed the settings")
	}
}

// TestAdminChanges: each change is made, recorded in the action log under
// its operation's name and target with who made it, and invalidates the
// auth cache; invalid input is refused before anything is written.
func TestAdminChanges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	invalidated := 0
	svc := adminService(t, f, "", &invalidated)
	owner := as("olga", topupd.RoleOwner)

	if _, _, err := svc.CreateOperator(ctx, owner, "K", topupd.RoleViewer); topupd.CodeOf(err) != topupd.EInvalidBody {
		t.Errorf("a name in capitals: %v", err)
	}
	if _, _, err := svc.CreateOperator(ctx, owner, "kim", "boss"); topupd.CodeOf(err) != topupd.EInvalidBody {
		t.Errorf("an unknown role: %v", err)
	}
	if acts := f.actions(); len(acts) != 0 || invalidated != 0 {
		t.Fatalf("refused input was written: %+v, %d invalidations", acts, invalidated)
	}
	kim, token, err := svc.CreateOperator(ctx, owner, "kim", topupd.RoleViewer)
	if err != nil || kim.Name != "kim" || !strings.HasPrefix(token, topupd.OperatorTokenPrefix) {
		t.Fatalf("create: %+v %q %v", kim, token, err)
	}
	if _, _, err := svc.CreateOperator(ctx, owner, "kim", topupd.RoleViewer); topupd.CodeOf(err) != topupd.EConflict {
		t.Errorf("a name taken: %v", err)
	}
	support := topupd.RoleSupport
	if kim, err = svc.UpdateOperator(ctx, owner, "kim", topupd.OperatorPatch{Role: &support}); err != nil || kim.Role != support {
		t.Errorf("update: %+v %v", kim, err)
	}
	if _, err := svc.UpdateOperator(ctx, owner, "nobody", topupd.OperatorPatch{Role: &support}); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("updating an unknown operator: %v", err)
	}
	if tok, err := svc.CreateOperatorToken(ctx, owner, "kim"); err != nil || tok == token {
		t.Errorf("token: %q %v", tok, err)
	}
	link, err := svc.CreateSetupLink(ctx, owner, "kim", "http://203.0.113.5:8081/console/")
	if err != nil || !strings.HasPrefix(link.URL, "http://203.0.113.5:8081/console/setup/") || !link.ExpiresAt.Equal(t0.Add(topupd.SetupLinkTTL)) {
		t.Errorf("setup link: %+v %v", link, err)
	}
	code, err := svc.CreateOperatorChatLink(ctx, owner, "kim")
	if err != nil || code.Code == "" || code.URL != "https://t.me/topupd_bot?start="+code.Code {
		t.Errorf("chat link: %+v %v", code, err)
	}
	if _, err := svc.CreateOperatorChatLink(ctx, owner, topupd.RootOperator); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("root's chat link: %v", err)
	}
	on := true
	if st, err := svc.UpdateSettings(ctx, owner, topupd.SettingsPatch{OrdersDisabled: &on}); err != nil || !st.OrdersDisabled {
		t.Errorf("settings: %+v %v", st, err)
	}
	done, err := svc.CompleteOrder(ctx, owner, f.upstreamOrder().ID, []string{"GIFT-CODE-123456"})
	if err != nil {
		t.Fatal(err)
	}
	full, err := svc.OrderCodes(ctx, owner, done.ID)
	if err != nil || len(full.Codes) != 1 || full.Codes[0] != "GIFT-CODE-123456" {
		t.Errorf("the codes in full: %+v %v", full.Codes, err)
	}

	var got []string
	for _, a := range f.actions() {
		if a.Actor.Operator != "olga" || a.Actor.IP != "198.51.100.7" || a.Actor.RequestID != "req-1" {
			t.Errorf("action %s: %+v", a.Action, a.Actor)
		}
		got = append(got, a.Action+" "+a.Target)
	}
	want := []string{"order.codes-viewed " + done.ID, "order.complete " + done.ID, "settings.update ", "operator.chat-link-code kim",
		"operator.setup-link kim", "operator.token kim", "operator.update kim", "operator.create kim"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the action log, newest first:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if invalidated != 6 { // each change of operators and settings
		t.Errorf("%d invalidations, want 6", invalidated)
	}
	configured := adminService(t, f, "https://console.example/", &invalidated)
	if link, err := configured.CreateSetupLink(ctx, owner, "kim", "http://ignored/console/"); err != nil || !strings.HasPrefix(link.URL, "https://console.example/setup/") {
		t.Errorf("the console's own address: %+v %v", link, err)
	}
}

// TestAdminReads: order lists page with cursors and mask every code; a
// reseller's chat reads its own account's orders alone; a query that is
// not valid is INVALID_REQUEST.
func TestAdminReads(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	owner := as("olga", topupd.RoleOwner)
	var ids []string
	for range 2 {
		ids = append(ids, f.order().ID)
	}
	ids = append(ids, f.upstreamOrder().ID)
	if _, err := f.svc.CompleteOrder(ctx, owner, ids[2], []string{"GIFT-CODE-123456"}); err != nil {
		t.Fatal(err)
	}
	viewer := as("val", topupd.RoleViewer)
	page, err := f.svc.Orders(ctx, viewer, topupd.OrdersQuery{Limit: 2})
	if err != nil || len(page.Orders) != 2 || page.Next == nil {
		t.Fatalf("the first page: %+v %v", page, err)
	}
	if c := page.Orders[0].Codes; len(c) != 1 || c[0] == "GIFT-CODE-123456" || !strings.HasSuffix(c[0], "3456") {
		t.Errorf("a list shows the code %v, want it masked", c)
	}
	cursor := service.ListCursor(service.OrdersCursor, *page.Next)
	before, err := service.ParseListCursor(service.OrdersCursor, cursor)
	if err != nil {
		t.Fatal(err)
	}
	rest, err := f.svc.Orders(ctx, viewer, topupd.OrdersQuery{Limit: 2, Before: before})
	if err != nil || len(rest.Orders) != 1 || rest.Next != nil || rest.Orders[0].ID != ids[0] {
		t.Errorf("the last page: %+v %v", rest, err)
	}
	if _, err := service.ParseListCursor(service.ActionsCursor, cursor); topupd.CodeOf(err) != topupd.EInvalidRequest {
		t.Errorf("an orders cursor for the action log: %v", err)
	}
	d, err := f.svc.OrderDetail(ctx, viewer, ids[2])
	if err != nil || len(d.History) < 2 || len(d.Ledger) != 1 || d.Codes[0] == "GIFT-CODE-123456" {
		t.Errorf("the detail: %+v %v", d, err)
	}
	for what, q := range map[string]topupd.OrdersQuery{"status": {Status: "lost"}, "limit": {Limit: service.MaxPage + 1}} {
		if _, err := f.svc.Orders(ctx, viewer, q); topupd.CodeOf(err) != topupd.EInvalidRequest {
			t.Errorf("a bad %s: %v", what, err)
		}
	}

	other, err := f.store.CreateAccount(ctx, nil, topupd.Account{ID: "acc_other", Name: "other", CreatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	chat := service.ChatActor(42, other.ID, 7)
	if page, err := f.svc.Orders(ctx, chat, topupd.OrdersQuery{}); err != nil || len(page.Orders) != 0 {
		t.Errorf("a chat reads another account's orders: %+v %v", page, err)
	}
	if _, err := f.svc.Orders(ctx, chat, topupd.OrdersQuery{AccountID: f.acct}); topupd.CodeOf(err) != topupd.ERoleForbidden {
		t.Errorf("a chat naming another account: %v", err)
	}
	if _, err := f.svc.Order(ctx, chat, ids[0]); topupd.CodeOf(err) != topupd.EOrderNotFound {
		t.Errorf("a chat reads another account's order: %v", err)
	}

	finance := as("fin", topupd.RoleFinance)
	for what, span := range map[string][2]time.Time{"no from": {{}, t0}, "from after to": {t0, t0.Add(-time.Hour)},
		"over a year": {t0.Add(-367 * 24 * time.Hour), t0}} {
		if _, err := f.svc.SalesReport(ctx, finance, span[0], span[1], ""); topupd.CodeOf(err) != topupd.EInvalidRequest {
			t.Errorf("sales, %s: %v", what, err)
		}
	}
	rep, err := f.svc.SalesReport(ctx, finance, t0.Add(-time.Hour), t0.Add(time.Hour), "")
	if err != nil || rep.By != topupd.ByDay || rep.Total.Orders != 3 || rep.Total.Key != "total" || len(rep.CSV()) != 3 { // header, the day, the total
		t.Errorf("sales: %+v %v", rep, err)
	}
	if _, err := f.svc.SalesReport(ctx, finance, t0.Add(-time.Hour), t0, "week"); topupd.CodeOf(err) != topupd.EInvalidRequest {
		t.Errorf("sales by week: %v", err)
	}
	if _, err := f.svc.Statement(ctx, finance, "acc_nosuch", t0.Add(-time.Hour), t0); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("an unknown account's statement: %v", err)
	}
	st, err := f.svc.Statement(ctx, finance, f.acct, t0.Add(-time.Hour), t0.Add(time.Hour))
	if rows := service.StatementCSV(st); err != nil || len(rows) != 2+len(st.Entries)+1 || rows[1][1] != "opening" {
		t.Errorf("statement: %+v %v", st, err)
	}
	acts, err := f.svc.Actions(ctx, viewer, topupd.ActionsQuery{Limit: 1})
	if err != nil || len(acts.Actions) != 1 || acts.Next != nil {
		t.Errorf("the action log: %+v %v", acts, err)
	}
}

// TestCell: a text cell that a spreadsheet would take for a formula is
// quoted.
func TestCell(t *testing.T) {
	for in, want := range map[string]string{"": "", "shop": "shop", "=1+1": "'=1+1", "-5": "'-5", "@x": "'@x", "+1": "'+1"} {
		if got := service.Cell(in); got != want {
			t.Errorf("Cell(%q) = %q, want %q", in, got, want)
		}
	}
}
