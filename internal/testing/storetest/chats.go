package storetest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/racer"
)

var chatTests = []test{
	{"LinkWithACode", testLinkWithACode},
	{"RefusedCodes", testRefusedCodes},
	{"RelinkMoves", testRelinkMoves},
	{"ChatsAndUnlink", testChatsAndUnlink},
	{"BalanceAlert", testBalanceAlert},
	{"RecordUpdateOnce", testRecordUpdateOnce},
	{"ChangeUpdateOnce", testChangeUpdateOnce},
	{"RacingUpdates", testRacingUpdates},
	{"BotLease", testBotLease},
	{"BotOffset", testBotOffset},
	{"BotAlerts", testBotAlerts},
}

// chatCode stores a fresh link code for an account (or, with account "",
// an operator), made at t0 and valid ChatLinkTTL, and returns its hash.
func (e *env) chatCode(account, operator string) topupd.KeyHash {
	e.t.Helper()
	_, h := topupd.NewSecret()
	l := topupd.ChatLink{Code: h, AccountID: account, Operator: operator, CreatedAt: t0, ExpiresAt: t0.Add(topupd.ChatLinkTTL)}
	if err := e.s.CreateChatLink(e.ctx, nil, l); err != nil {
		e.t.Fatalf("CreateChatLink %s%s: %v", account, operator, err)
	}
	return h
}

// link links a chat with a code at t0 plus after, as update.
func (e *env) link(code topupd.KeyHash, chatID int64, after time.Duration, update int64) topupd.Chat {
	e.t.Helper()
	c, err := e.s.LinkChat(e.ctx, nil, code, topupd.Chat{ChatID: chatID, Username: fmt.Sprint("user", chatID), LinkedAt: t0.Add(after)},
		topupd.BotUpdate{UpdateID: update, ChatID: chatID, At: t0.Add(after)})
	if err != nil {
		e.t.Fatalf("LinkChat %d: %v", chatID, err)
	}
	return c
}

// seen reports whether the store recorded an update.
func (e *env) seen(id int64) bool {
	e.t.Helper()
	ok, err := e.s.UpdateSeen(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return ok
}

// testLinkWithACode: a valid code links the chat to its account, records
// the update, and works once; a code is for an existing account or
// operator, exactly one.
func testLinkWithACode(t *testing.T, e *env) {
	a := e.account("a", 0)
	code := e.chatCode(a.ID, "")
	got := e.link(code, 42, time.Minute, 1001)
	want := topupd.Chat{ChatID: 42, Username: "user42", AccountID: a.ID, LinkedAt: t0.Add(time.Minute)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LinkChat (-want +got):\n%s", diff)
	}
	if c, err := e.s.Chat(e.ctx, 42); err != nil || !cmp.Equal(want, c) {
		t.Errorf("Chat 42 = %+v, %v; want %+v", c, err, want)
	}
	if !e.seen(1001) || e.seen(1002) {
		t.Error("UpdateSeen: want 1001 recorded, 1002 not")
	}
	_, err := e.s.LinkChat(e.ctx, nil, code, topupd.Chat{ChatID: 43, LinkedAt: t0.Add(2 * time.Minute)}, topupd.BotUpdate{UpdateID: 1002, ChatID: 43})
	if topupd.CodeOf(err) != topupd.EInvalidRequest {
		t.Errorf("the code used twice: %v, want EInvalidRequest", err)
	}
	for _, l := range []topupd.ChatLink{
		{AccountID: "acc_nobody"}, {Operator: "nobody"}, {}, {AccountID: a.ID, Operator: "kim"},
	} {
		l.Code, l.CreatedAt, l.ExpiresAt = topupd.HashSecret(fmt.Sprint(l)), t0, t0.Add(time.Minute)
		if err := e.s.CreateChatLink(e.ctx, nil, l); err == nil {
			t.Errorf("CreateChatLink %+v: no error", l)
		}
	}
}

// testRefusedCodes: a used, an expired and an unknown code are
// EInvalidRequest, and nothing changes: no chat is linked or moved, and the
// update is not recorded.
func testRefusedCodes(t *testing.T, e *env) {
	a, b := e.account("a", 0), e.account("b", 0)
	used := e.chatCode(b.ID, "")
	e.link(used, 7, time.Minute, 1)
	expired := e.chatCode(a.ID, "")
	for name, c := range map[string]struct {
		code topupd.KeyHash
		at   time.Time
	}{
		"used":    {used, t0.Add(2 * time.Minute)},
		"expired": {expired, t0.Add(topupd.ChatLinkTTL)},
		"unknown": {topupd.HashSecret("never made"), t0.Add(time.Minute)},
	} {
		for _, chat := range []int64{7, 8} {
			update := int64(100 + chat)
			_, err := e.s.LinkChat(e.ctx, nil, c.code, topupd.Chat{ChatID: chat, Username: "x", LinkedAt: c.at}, topupd.BotUpdate{UpdateID: update, ChatID: chat, At: c.at})
			if topupd.CodeOf(err) != topupd.EInvalidRequest {
				t.Errorf("%s code, chat %d: %v, want EInvalidRequest", name, chat, err)
			}
			if e.seen(update) {
				t.Errorf("%s code, chat %d: the update was recorded", name, chat)
			}
		}
	}
	if _, err := e.s.Chat(e.ctx, 8); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("chat 8: %v, want ENotFound", err)
	}
	if c, err := e.s.Chat(e.ctx, 7); err != nil || c.AccountID != b.ID || c.Username != "user7" {
		t.Errorf("chat 7 = %+v, %v; want b's as linked", c, err)
	}
	if chats, err := e.s.Chats(e.ctx, a.ID, ""); err != nil || len(chats) != 0 {
		t.Errorf("a's chats: %+v, %v", chats, err)
	}
	// The expired code worked a moment before it ran out.
	if c := e.link(expired, 8, topupd.ChatLinkTTL-time.Millisecond, 200); c.AccountID != a.ID {
		t.Errorf("the code before it ran out: %+v", c)
	}
}

// testRelinkMoves: a chat linked with another account's (or an operator's)
// code moves there, and loses its balance alert; the change is logged.
func testRelinkMoves(t *testing.T, e *env) {
	a, b := e.account("a", 0), e.account("b", 0)
	e.operator("kim", topupd.RoleSupport)
	e.link(e.chatCode(a.ID, ""), 5, time.Minute, 1)
	alert := topupd.USD(3)
	if err := e.s.SetBalanceAlert(e.ctx, nil, 5, &alert, true, topupd.BotUpdate{UpdateID: 2, ChatID: 5}); err != nil {
		t.Fatal(err)
	}
	logged := &topupd.Change{Actor: topupd.Actor{Operator: topupd.ChatActor(5)}, Action: "chat.link"}
	c, err := e.s.LinkChat(e.ctx, logged, e.chatCode(b.ID, ""), topupd.Chat{ChatID: 5, Username: "new", LinkedAt: t0.Add(2 * time.Minute)},
		topupd.BotUpdate{UpdateID: 3, ChatID: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := topupd.Chat{ChatID: 5, Username: "new", AccountID: b.ID, LinkedAt: t0.Add(2 * time.Minute)}
	if got, err := e.s.Chat(e.ctx, 5); err != nil || !cmp.Equal(want, got) || !cmp.Equal(want, c) {
		t.Errorf("the moved chat = %+v (answered %+v), %v; want %+v", got, c, err, want)
	}
	for acct, n := range map[string]int{a.ID: 0, b.ID: 1} {
		if chats, err := e.s.Chats(e.ctx, acct, ""); err != nil || len(chats) != n {
			t.Errorf("chats of %s: %+v, %v; want %d", acct, chats, err, n)
		}
	}
	acts, err := e.s.Actions(e.ctx, topupd.ActionsQuery{Action: "chat.link", Limit: 10})
	if err != nil || len(acts) != 1 {
		t.Fatalf("chat.link entries: %+v, %v", acts, err)
	}
	wantBefore := map[string]any{"accountId": a.ID, "username": "user5"}
	wantAfter := map[string]any{"accountId": b.ID, "username": "new"}
	if x := acts[0]; x.Target != "5" || x.AccountID != b.ID || !cmp.Equal(wantBefore, x.Before) || !cmp.Equal(wantAfter, x.After) {
		t.Errorf("the entry: %+v; want target 5, account %s, before %v, after %v", x, b.ID, wantBefore, wantAfter)
	}
	// And on to an operator.
	if c := e.link(e.chatCode("", "kim"), 5, 3*time.Minute, 4); c.Operator != "kim" || c.AccountID != "" {
		t.Errorf("moved to kim: %+v", c)
	}
	if chats, err := e.s.Chats(e.ctx, b.ID, ""); err != nil || len(chats) != 0 {
		t.Errorf("b's chats after the move to kim: %+v, %v", chats, err)
	}
}

// testChatsAndUnlink: an account's and an operator's chats, oldest link
// first; UnlinkChat removes only the account's own chat, in the action log.
func testChatsAndUnlink(t *testing.T, e *env) {
	a, b := e.account("a", 0), e.account("b", 0)
	e.operator("kim", topupd.RoleOwner)
	e.operator("lee", topupd.RoleFinance)
	e.link(e.chatCode(a.ID, ""), 30, 3*time.Minute, 1)
	e.link(e.chatCode(a.ID, ""), -10, time.Minute, 2) // a group chat's id is negative
	e.link(e.chatCode(b.ID, ""), 20, 2*time.Minute, 3)
	e.link(e.chatCode("", "lee"), 50, 5*time.Minute, 4)
	e.link(e.chatCode("", "kim"), 40, 4*time.Minute, 5)
	ids := func(chats []topupd.Chat, err error) []int64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out := []int64{}
		for _, c := range chats {
			out = append(out, c.ChatID)
		}
		return out
	}
	for name, c := range map[string]struct {
		got  []int64
		want []int64
	}{
		"a":         {ids(e.s.Chats(e.ctx, a.ID, "")), []int64{-10, 30}},
		"b":         {ids(e.s.Chats(e.ctx, b.ID, "")), []int64{20}},
		"kim":       {ids(e.s.Chats(e.ctx, "", "kim")), []int64{40}},
		"nobody":    {ids(e.s.Chats(e.ctx, "acc_nobody", "")), []int64{}},
		"operators": {ids(e.s.OperatorChats(e.ctx)), []int64{40, 50}},
	} {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("chats of %s (-want +got):\n%s", name, diff)
		}
	}
	if _, err := e.s.Chats(e.ctx, "", ""); err == nil {
		t.Error("Chats of no one: no error")
	}
	for _, c := range []struct {
		account string
		chat    int64
	}{{b.ID, 30}, {a.ID, 20}, {a.ID, 40}, {a.ID, 99}} {
		if err := e.s.UnlinkChat(e.ctx, nil, c.account, c.chat); topupd.CodeOf(err) != topupd.ENotFound {
			t.Errorf("UnlinkChat %s %d: %v, want ENotFound", c.account, c.chat, err)
		}
	}
	logged := &topupd.Change{Actor: topupd.Actor{Operator: "kim"}, Action: "chat.unlink"}
	if err := e.s.UnlinkChat(e.ctx, logged, a.ID, 30); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Chat(e.ctx, 30); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("the unlinked chat: %v", err)
	}
	if got := ids(e.s.Chats(e.ctx, a.ID, "")); !cmp.Equal(got, []int64{-10}) {
		t.Errorf("a's chats after unlinking 30: %v", got)
	}
	if err := e.s.UnlinkChat(e.ctx, nil, a.ID, 30); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("unlinking twice: %v", err)
	}
	acts, err := e.s.Actions(e.ctx, topupd.ActionsQuery{Action: "chat.unlink", Limit: 10})
	if err != nil || len(acts) != 1 {
		t.Fatalf("chat.unlink entries: %+v, %v", acts, err)
	}
	wantBefore := map[string]any{"chatId": json.Number("30"), "username": "user30", "accountId": a.ID}
	if x := acts[0]; x.Target != "30" || x.AccountID != a.ID || !cmp.Equal(wantBefore, x.Before) || len(x.After) != 0 {
		t.Errorf("the entry: %+v; want target 30, account %s, before %v, after {}", x, a.ID, wantBefore)
	}
}

// testBalanceAlert: an alert is set and cleared; SetBalanceLow reports a
// change only when the balance crosses it; an update repeated changes
// nothing.
func testBalanceAlert(t *testing.T, e *env) {
	a := e.account("a", 0)
	e.link(e.chatCode(a.ID, ""), 9, time.Minute, 1)
	five := topupd.USD(5)
	if err := e.s.SetBalanceAlert(e.ctx, nil, 10, &five, false, topupd.BotUpdate{UpdateID: 2, ChatID: 10}); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("an alert for a chat not linked: %v", err)
	}
	if e.seen(2) {
		t.Error("the refused alert's update was recorded")
	}
	minus := topupd.Money(-1)
	if err := e.s.SetBalanceAlert(e.ctx, nil, 9, &minus, false, topupd.BotUpdate{UpdateID: 3, ChatID: 9}); topupd.CodeOf(err) != topupd.EInvalidRequest {
		t.Errorf("a negative alert: %v", err)
	}
	logged := &topupd.Change{Actor: topupd.Actor{Operator: topupd.ChatActor(9)}, Action: "chat.alert"}
	if err := e.s.SetBalanceAlert(e.ctx, logged, 9, &five, true, topupd.BotUpdate{UpdateID: 4, ChatID: 9}); err != nil {
		t.Fatal(err)
	}
	check := func(what string, alert *topupd.Money, low bool) {
		t.Helper()
		c, err := e.s.Chat(e.ctx, 9)
		if err != nil || !cmp.Equal(alert, c.BalanceAlert) || c.BalanceLow != low {
			t.Errorf("%s: chat %+v, %v; want alert %v, low %v", what, c, err, alert, low)
		}
	}
	check("set", &five, true)
	ten := topupd.USD(10)
	if err := e.s.SetBalanceAlert(e.ctx, nil, 9, &ten, false, topupd.BotUpdate{UpdateID: 4, ChatID: 9}); topupd.CodeOf(err) != topupd.EConflict {
		t.Errorf("the update repeated: %v, want EConflict", err)
	}
	check("after the repeated update", &five, true)
	for i, s := range []struct{ low, changed bool }{{true, false}, {false, true}, {false, false}, {true, true}, {true, false}} {
		if changed, err := e.s.SetBalanceLow(e.ctx, 9, s.low); err != nil || changed != s.changed {
			t.Errorf("step %d: SetBalanceLow %v = %v, %v; want %v", i, s.low, changed, err, s.changed)
		}
	}
	check("low", &five, true)
	if err := e.s.SetBalanceAlert(e.ctx, nil, 9, nil, true, topupd.BotUpdate{UpdateID: 5, ChatID: 9}); err != nil {
		t.Fatal(err)
	}
	check("cleared", nil, false)
	if changed, err := e.s.SetBalanceLow(e.ctx, 9, true); err != nil || changed {
		t.Errorf("SetBalanceLow without an alert = %v, %v; want no change", changed, err)
	}
	if changed, err := e.s.SetBalanceLow(e.ctx, 99, true); err != nil || changed {
		t.Errorf("SetBalanceLow of a chat not linked = %v, %v; want no change", changed, err)
	}
	acts, err := e.s.Actions(e.ctx, topupd.ActionsQuery{Action: "chat.alert", Limit: 10})
	if err != nil || len(acts) != 1 {
		t.Fatalf("chat.alert entries: %+v, %v", acts, err)
	}
	if x := acts[0]; x.Target != "9" || x.AccountID != a.ID || x.Before["balanceAlertUsd"] != nil || x.After["balanceAlertUsd"] != json.Number("5") {
		t.Errorf("the entry: %+v", x)
	}
}

// testRecordUpdateOnce: an update is recorded once; so is one recorded by
// a link.
func testRecordUpdateOnce(t *testing.T, e *env) {
	if e.seen(77) {
		t.Fatal("77 seen before")
	}
	if err := e.s.RecordUpdate(e.ctx, topupd.BotUpdate{UpdateID: 77, ChatID: 1, At: t0}); err != nil {
		t.Fatal(err)
	}
	if !e.seen(77) {
		t.Error("77 not seen")
	}
	if err := e.s.RecordUpdate(e.ctx, topupd.BotUpdate{UpdateID: 77, ChatID: 2, At: t0}); topupd.CodeOf(err) != topupd.EConflict {
		t.Errorf("77 twice: %v, want EConflict", err)
	}
	a := e.account("a", 0)
	e.link(e.chatCode(a.ID, ""), 1, time.Minute, 78)
	if err := e.s.RecordUpdate(e.ctx, topupd.BotUpdate{UpdateID: 78, ChatID: 1, At: t0}); topupd.CodeOf(err) != topupd.EConflict {
		t.Errorf("the link's update again: %v, want EConflict", err)
	}
	// A link whose update was recorded before links nothing.
	_, err := e.s.LinkChat(e.ctx, nil, e.chatCode(a.ID, ""), topupd.Chat{ChatID: 2, LinkedAt: t0}, topupd.BotUpdate{UpdateID: 77, ChatID: 2})
	if topupd.CodeOf(err) != topupd.EConflict {
		t.Errorf("a link with update 77: %v, want EConflict", err)
	}
	if _, err := e.s.Chat(e.ctx, 2); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("chat 2: %v, want ENotFound", err)
	}
}

// testChangeUpdateOnce: a change that carries a bot update is made once:
// made again (a fresh Change, the same update), through any write, it is
// EConflict and changes nothing; the update is seen, and the action log
// holds the first change alone.
func testChangeUpdateOnce(t *testing.T, e *env) {
	a := e.account("a", 0)
	change := func(action string, update int64) *topupd.Change {
		return &topupd.Change{Actor: topupd.Actor{Operator: topupd.ChatActor(-55)}, Action: action, Update: topupd.BotUpdate{UpdateID: update, ChatID: -55}}
	}
	off, on := false, true
	if _, err := e.s.UpdateAccount(e.ctx, change("account.update", 900), a.ID, topupd.AccountPatch{APIEnabled: &off}); err != nil {
		t.Fatal(err)
	}
	_, err := e.s.UpdateAccount(e.ctx, change("account.update", 900), a.ID, topupd.AccountPatch{APIEnabled: &on})
	if topupd.CodeOf(err) != topupd.EConflict {
		t.Errorf("the update applied twice: %v, want EConflict", err)
	}
	if got, err := e.s.Account(e.ctx, a.ID); err != nil || got.APIEnabled {
		t.Errorf("the account after the repeat: %+v, %v; want apiEnabled false", got, err)
	}
	// An update recorded alone, then asking for a change.
	if err := e.s.RecordUpdate(e.ctx, topupd.BotUpdate{UpdateID: 901, ChatID: -55}); err != nil {
		t.Fatal(err)
	}
	k := topupd.APIKey{ID: topupd.NewID("key_"), AccountID: a.ID, Prefix: "tpd_abcd", CreatedAt: t0}
	if err := e.s.AddKey(e.ctx, change("key.create", 901), k, topupd.HashSecret("k")); topupd.CodeOf(err) != topupd.EConflict {
		t.Errorf("a key for an update recorded before: %v, want EConflict", err)
	}
	if keys, err := e.s.Keys(e.ctx, a.ID); err != nil || len(keys) != 0 {
		t.Errorf("keys: %+v, %v; want none", keys, err)
	}
	// A link whose change carries its own update records it once.
	logged := change("chat.link", 902)
	if _, err := e.s.LinkChat(e.ctx, logged, e.chatCode(a.ID, ""), topupd.Chat{ChatID: -55, LinkedAt: t0}, topupd.BotUpdate{UpdateID: 902, ChatID: -55}); err != nil {
		t.Errorf("a link with its change's update: %v", err)
	}
	for _, id := range []int64{900, 901, 902} {
		if !e.seen(id) {
			t.Errorf("update %d not seen", id)
		}
	}
	if err := e.s.RecordUpdate(e.ctx, topupd.BotUpdate{UpdateID: 900}); topupd.CodeOf(err) != topupd.EConflict {
		t.Errorf("recording 900 after its change: %v, want EConflict", err)
	}
	acts, err := e.s.Actions(e.ctx, topupd.ActionsQuery{Operator: topupd.ChatActor(-55), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range acts {
		got = append(got, x.Action)
	}
	if diff := cmp.Diff([]string{"chat.link", "account.update"}, got); diff != "" {
		t.Errorf("the chat's entries, newest first (-want +got):\n%s", diff)
	}
}

// testRacingUpdates: racing writes for one update: exactly one is made.
func testRacingUpdates(t *testing.T, e *env) {
	a := e.account("a", topupd.USD(1))
	const n = 16
	errs := racer.Run(n, func(i int) error {
		c := &topupd.Change{Actor: topupd.Actor{Operator: topupd.ChatActor(8)}, Action: "account.credit", Update: topupd.BotUpdate{UpdateID: 4242, ChatID: 8}}
		_, _, err := e.s.Credit(e.ctx, c, a.ID, topupd.USD(1), fmt.Sprintf("ref-%d", i), t0)
		return err
	})
	made := 0
	for _, err := range errs {
		switch {
		case err == nil:
			made++
		case topupd.CodeOf(err) != topupd.EConflict:
			t.Errorf("a racing write: %v", err)
		}
	}
	if made != 1 {
		t.Errorf("%d writes made for one update, want 1", made)
	}
	if bal, err := e.s.Balance(e.ctx, a.ID); err != nil || bal != topupd.USD(2) {
		t.Errorf("balance %v, %v; want 2 USD", bal, err)
	}
}

// testBotLease: one holder at a time; another takes over once the lease
// runs out, after which the first cannot renew it; a release frees it.
func testBotLease(t *testing.T, e *env) {
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	steps := []struct {
		holder string
		now    int
		want   bool
	}{
		{"A", 0, true},   // A until 60
		{"B", 30, false}, // A's runs
		{"A", 30, true},  // A renews until 90
		{"B", 89, false},
		{"B", 90, true},   // A's ran out: B until 150
		{"A", 100, false}, // A's renewal fails
		{"B", 120, true},  // B renews until 180
	}
	for i, s := range steps {
		got, err := e.s.TakeBotLease(e.ctx, s.holder, at(s.now), at(s.now+60))
		if err != nil || got != s.want {
			t.Errorf("step %d: %s at %ds = %v, %v; want %v", i, s.holder, s.now, got, err, s.want)
		}
	}
	if err := e.s.ReleaseBotLease(e.ctx, "A"); err != nil {
		t.Fatal(err)
	}
	if got, err := e.s.TakeBotLease(e.ctx, "A", at(130), at(190)); err != nil || got {
		t.Errorf("A after releasing a lease it does not hold: %v, %v; want B's lease to hold", got, err)
	}
	if err := e.s.ReleaseBotLease(e.ctx, "B"); err != nil {
		t.Fatal(err)
	}
	if got, err := e.s.TakeBotLease(e.ctx, "A", at(130), at(190)); err != nil || !got {
		t.Errorf("A after B released: %v, %v; want it taken", got, err)
	}
}

// testBotOffset: the offset starts at 0 and only grows.
func testBotOffset(t *testing.T, e *env) {
	for i, s := range []struct{ set, want int64 }{{0, 0}, {10, 10}, {5, 10}, {11, 11}, {1 << 40, 1 << 40}, {-1, 1 << 40}} {
		if s.set != 0 {
			if err := e.s.SetBotOffset(e.ctx, s.set); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := e.s.BotOffset(e.ctx); err != nil || got != s.want {
			t.Errorf("step %d: offset %d, %v; want %d", i, got, err, s.want)
		}
	}
}
