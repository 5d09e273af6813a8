package clienttest_test

import (
	"context"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// TestAdminChats: a code from ChatLink links a chat (as the bot does with
// /start <code>), Chats lists it, Unlink removes it, and unlinking it again
// is NOT_FOUND; OperatorChatLink makes an operator's code.
func TestAdminChats(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	root := s.AdminClient
	acct, err := root.CreateAccount(ctx, "shop", nil)
	if err != nil {
		t.Fatal(err)
	}
	link, err := root.ChatLink(ctx, acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	s.Logs.Secret(link.Code, "the chat link code")
	if len(link.Code) != 43 || link.URL != "" || link.ExpiresAt.Sub(s.Now()) > topupd.ChatLinkTTL || link.ExpiresAt.Sub(s.Now()) < topupd.ChatLinkTTL-time.Minute {
		t.Errorf("ChatLink: %+v", link)
	}
	linked, err := s.Store.LinkChat(ctx, nil, topupd.HashSecret(link.Code), topupd.Chat{ChatID: 123, Username: "shopkeeper", LinkedAt: s.Now()},
		topupd.BotUpdate{UpdateID: 1, ChatID: 123})
	if err != nil {
		t.Fatal(err)
	}
	chats, err := root.Chats(ctx, acct.ID)
	if err != nil || len(chats) != 1 || chats[0].ChatID != 123 || chats[0].Username != "shopkeeper" || !chats[0].LinkedAt.Equal(linked.LinkedAt) {
		t.Fatalf("Chats: %+v, %v; want chat 123 linked at %v", chats, err, linked.LinkedAt)
	}
	if err := root.Unlink(ctx, acct.ID, 123); err != nil {
		t.Fatal(err)
	}
	if err := root.Unlink(ctx, acct.ID, 123); !client.IsCode(err, client.CodeNotFound) {
		t.Errorf("unlinking twice: %v, want NOT_FOUND", err)
	}
	if chats, err := root.Chats(ctx, acct.ID); err != nil || len(chats) != 0 {
		t.Errorf("Chats after Unlink: %+v, %v", chats, err)
	}
	if _, err := root.CreateOperator(ctx, "kim", "viewer"); err != nil {
		t.Fatal(err)
	}
	op, err := root.OperatorChatLink(ctx, "kim")
	s.Logs.Secret(op.Code, "kim's chat link code")
	if err != nil || len(op.Code) != 43 || op.Code == link.Code {
		t.Errorf("OperatorChatLink: %+v, %v", op, err)
	}
	if _, err := root.OperatorChatLink(ctx, "nobody"); !client.IsCode(err, client.CodeNotFound) {
		t.Errorf("OperatorChatLink of nobody: %v, want NOT_FOUND", err)
	}
}
