package service

import (
	"context"
	"strconv"
	"time"

	"github.com/topupd/topupd"
)

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
	return s.issueChatLink(change(ctx, a, OpChatLink, accountID), topupd.ChatLink{AccountID: accountID})
}

// issueChatLink stores the hash of a fresh code for l's account or
// operator, valid topupd.ChatLinkTTL, and answers the code. ctx carries
// the change to record.
func (s *Service) issueChatLink(ctx context.Context, l topupd.ChatLink) (ChatLinkCode, error) {
	code, hash := topupd.NewSecret()
	now := s.d.Now().Truncate(time.Millisecond) // as stored
	l.Code, l.CreatedAt, l.ExpiresAt = hash, now, now.Add(topupd.ChatLinkTTL)
	if err := s.d.Store.CreateChatLink(ctx, l); err != nil {
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
	if err := s.d.Store.UnlinkChat(change(ctx, a, OpUnlinkChat, strconv.FormatInt(chatID, 10)), accountID, chatID); err != nil {
		return err
	}
	s.changed(ctx)
	return nil
}
