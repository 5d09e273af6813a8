package main

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/botapitest"
)

// TestBotOnePollerTakeover: two topupd processes on one PostgreSQL run the
// bot against one Bot API stand-in: exactly one polls (no 409 Conflict
// ever), and each command is answered once; SIGKILL the poller, and the
// other node takes over within its lease (30 s) and answers. The reseller
// API answers throughout.
func TestBotOnePollerTakeover(t *testing.T) {
	t.Parallel()
	const token = "424242:proc-test-token"
	keepSecret(t, token, "the bot's token")
	api := botapitest.New(t, token)
	c := newCluster(t, 2, noRedis, "--telegram-token", token, "--telegram-api", api.URL())
	n0 := c.nodes[0]
	acct, key := n0.setup("10")
	code := n0.must("POST", "/admin/accounts/"+acct+"/chat-links", nil)["code"].(string)
	keepSecret(t, code, "a chat link code")
	chat := botapitest.Chat{ID: 1001, Type: "private", Username: "shop"}
	answered := func(text string, limit time.Duration) {
		t.Helper()
		api.WaitMessage(chat.ID, func(m botapitest.Message) bool { return strings.Contains(m.Text, text) }, limit)
	}
	api.Send(chat, "/start "+code)
	answered("linked to account "+acct, 60*time.Second)
	for range 5 {
		api.Send(chat, "/balance")
	}
	deadline := time.Now().Add(60 * time.Second)
	for countMessages(api, chat.ID, "Balance: 10.00 USD") < 5 && time.Now().Before(deadline) {
		if api.Pollers() > 1 {
			t.Errorf("%d pollers at once", api.Pollers())
		}
		time.Sleep(20 * time.Millisecond)
	}
	api.Send(chat, "/help") // handled in order after the five
	answered("/balance", 60*time.Second)
	if n := countMessages(api, chat.ID, "Balance: 10.00 USD"); n != 5 {
		t.Errorf("5 commands answered %d times", n)
	}

	db, err := sql.Open("pgx", c.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var holder string
	if err := db.QueryRow(`SELECT COALESCE(lease_holder, '') FROM bot_state`).Scan(&holder); err != nil {
		t.Fatal(err)
	}
	victim, other := c.nodes[0], c.nodes[1]
	switch holder {
	case "node-0":
	case "node-1":
		victim, other = c.nodes[1], c.nodes[0]
	default:
		t.Fatalf("the lease holder is %q", holder)
	}
	victim.kill()
	if status, _ := call(t, "GET", other.api+"/balance", key, nil); status != 200 {
		t.Errorf("the reseller API on the other node after the kill: %d", status)
	}
	api.Send(chat, "/keys")
	answered("Your keys:", 90*time.Second)
	if api.Conflicts() != 0 {
		t.Errorf("%d getUpdates were refused with 409: two pollers at once", api.Conflicts())
	}
}

// countMessages counts the bot's messages in a chat that contain text.
func countMessages(api *botapitest.Server, chatID int64, text string) int {
	n := 0
	for _, m := range api.Messages(chatID) {
		if strings.Contains(m.Text, text) {
			n++
		}
	}
	return n
}
