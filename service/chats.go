package service

import (
	"context"
	"strconv"
	"time"

	"github.com/topupd/topupd"
)

// The operations a chat of the messaging app makes on itself.
const (
	// OpLinkChat links a chat by a link code: holding the code is the
	// permission, so no role is checked.
	OpLinkChat Op = "chat.link"
	// OpSetBalanceAlert sets or clears a reseller's chat's balance alert.
	OpSetBalanceAlert Op = "chat.balance-alert"
)

// chatOps are the rules of the operations a chat makes on itself.
var chatOps = map[Op]rule{
	OpLinkChat:        {topupd.PermRead, topupd.AccountChanged},
	OpSetBalanceAlert: {topupd.PermRead, topupd.AccountChanged},
}

// chatStore is what a chat's operations on itself need of the database.
type chatStore interface {
	LinkChat(ctx context.Context, ch *topupd.Change, code topupd.KeyHash, c topupd.Chat, u topupd.BotUpdate) (topupd.Chat, error)
	SetBalanceAlert(ctx context.Context, ch *topupd.Change, chatID int64, below *topupd.Money, low bool, u topupd.BotUpdate) error
}

// LinkChat spends a link code (EInvalidRequest when it is unknown, used or
// expired) and links the chat to the code's account or operator, as the
// messaging app's update updateID asks: acted on once, in the link's
// transaction.
func (s *Service) LinkChat(ctx context.Context, chatID int64, username, code string, updateID int64) (topupd.Chat, error) {
	a := Actor{Operator: topupd.ChatActor(chatID), IP: "127.0.0.1"} // the update is recorded with the link
	now := s.d.Now()
	c, err := s.d.Store.LinkChat(ctx, change(a, OpLinkChat, chatTarget(chatID)), topupd.HashSecret(code),
		topupd.Chat{ChatID: chatID, Username: username, LinkedAt: now}, topupd.BotUpdate{UpdateID: updateID, ChatID: chatID, At: now})
	if err != nil {
		return c, err
	}
	s.changed(ctx)
	return c, nil
}

// SetBalanceAlert sets a reseller's chat's balance alert at below, or
// clears it (nil): the chat is told when its account's balance next falls
// below it. Set while the balance is below it already, it waits for the
// next crossing. It answers the balance it was set at.
func (s *Service) SetBalanceAlert(ctx context.Context, a Actor, chatID int64, below *topupd.Money) (topupd.Money, error) {
	if err := Allowed(a, OpSetBalanceAlert); err != nil {
		return 0, err
	}
	if a.Account == "" {
		return 0, topupd.Errorf(topupd.ERoleForbidden, "only a reseller's chat has a balance alert")
	}
	if below != nil && *below <= 0 {
		return 0, topupd.Errorf(topupd.EInvalidBody, "the alert must be above 0 USD")
	}
	var bal topupd.Money
	low := false
	if below != nil {
		var err error
		if bal, err = s.d.Store.Balance(ctx, a.Account); err != nil {
			return 0, err
		}
		low = bal < *below
	}
	u := topupd.BotUpdate{UpdateID: a.Update.UpdateID, ChatID: chatID, At: s.d.Now()}
	if err := s.d.Store.SetBalanceAlert(ctx, change(a, OpSetBalanceAlert, chatTarget(chatID)), chatID, below, low, u); err != nil {
		return 0, err
	}
	return bal, nil
}

// chatTarget is a chat's id as the action log names it.
func chatTarget(chatID int64) string { return strconv.FormatInt(chatID, 10) }

// ChatLinkCode is a one-time code that links a chat of the messaging app,
// valid topupd.ChatLinkTTL.
type ChatLinkCode struct {
	// Code is shown this once; only its hash is kept.
	Code      string
	ExpiresAt time.Time
	// URL opens the bot with "/start <Code>"; "" while the bot's username
	// is not known.
	URL string
}

// ChatLink makes a one-time code that links a chat to the account.
func (s *Service) ChatLink(ctx context.Context, a Actor, accountID string) (ChatLinkCode, error) {
	if err := Allowed(a, OpChatLink); err != nil {
		return ChatLinkCode{}, err
	}
	if err := a.Own(accountID); err != nil {
		return ChatLinkCode{}, err
	}
	return s.issueChatLink(ctx, change(a, OpChatLink, accountID), topupd.ChatLink{AccountID: accountID})
}

// issueChatLink stores the hash of a fresh code for l's account or
// operator, valid topupd.ChatLinkTTL, and answers the code; ch is the
// change to record.
func (s *Service) issueChatLink(ctx context.Context, ch *topupd.Change, l topupd.ChatLink) (ChatLinkCode, error) {
	code, hash := topupd.NewSecret()
	now := s.d.Now().Truncate(time.Millisecond) // as stored
	l.Code, l.CreatedAt, l.ExpiresAt = hash, now, now.Add(topupd.ChatLinkTTL)
	if err := s.d.Store.CreateChatLink(ctx, ch, l); err != nil {
		return ChatLinkCode{}, err
	}
	s.changed(ctx)
	return ChatLinkCode{Code: code, ExpiresAt: l.ExpiresAt, URL: startURL(s.d.BotUsername(), code)}, nil
}

// Chats lists the account's linked chats, oldest link first.
func (s *Service) Chats(ctx context.Context, a Actor, accountID string) ([]topupd.Chat, error) {
	if err := s.accountReadable(a, accountID); err != nil {
		return nil, err
	}
	if err := s.accountExists(ctx, accountID); err != nil {
		return nil, err
	}
	return s.d.Store.Chats(ctx, accountID, "")
}

// UnlinkChat removes one of the account's chats (NOT_FOUND when the chat
// is not the account's).
func (s *Service) UnlinkChat(ctx context.Context, a Actor, accountID string, chatID int64) error {
	if err := Allowed(a, OpUnlinkChat); err != nil {
		return err
	}
	if err := a.Own(accountID); err != nil {
		return err
	}
	if err := s.d.Store.UnlinkChat(ctx, change(a, OpUnlinkChat, strconv.FormatInt(chatID, 10)), accountID, chatID); err != nil {
		return err
	}
	s.changed(ctx)
	return nil
}
