package client

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// ChatLinkCode is a one-time code that links a messaging app chat to an
// account or an operator: "/start <Code>" in a private chat with the bot.
type ChatLinkCode struct {
	// Code is shown this once.
	Code      string    `json:"code"`
	ExpiresAt time.Time `json:"expiresAt"`
	// URL opens the bot with "/start <Code>"; empty when the server does
	// not know the bot's username.
	URL string `json:"url"`
}

// LinkedChat is a messaging app chat linked to an account.
type LinkedChat struct {
	ChatID   int64     `json:"chatId"`
	Username string    `json:"username"`
	LinkedAt time.Time `json:"linkedAt"`
}

// ChatLink makes a one-time code, valid 15 minutes, that links a chat to
// the account.
func (a *Admin) ChatLink(ctx context.Context, accountID string) (ChatLinkCode, error) {
	var out ChatLinkCode
	err := a.Do(ctx, http.MethodPost, "/admin/accounts/"+esc(accountID)+"/chat-links", nil, &out)
	return out, err
}

// Chats lists the account's linked chats, oldest link first.
func (a *Admin) Chats(ctx context.Context, accountID string) ([]LinkedChat, error) {
	var out struct {
		Chats []LinkedChat `json:"chats"`
	}
	err := a.Do(ctx, http.MethodGet, "/admin/accounts/"+esc(accountID)+"/chats", nil, &out)
	return out.Chats, err
}

// Unlink unlinks one of the account's chats. A chat that is not the
// account's is NOT_FOUND (and so is a retry whose first attempt unlinked
// it but whose answer was lost).
func (a *Admin) Unlink(ctx context.Context, accountID string, chatID int64) error {
	return a.Do(ctx, http.MethodDelete, "/admin/accounts/"+esc(accountID)+"/chats/"+strconv.FormatInt(chatID, 10), nil, nil)
}

// OperatorChatLink makes a one-time code, valid 15 minutes, that links a
// chat to the operator (an owner's call).
func (a *Admin) OperatorChatLink(ctx context.Context, name string) (ChatLinkCode, error) {
	var out ChatLinkCode
	err := a.Do(ctx, http.MethodPost, "/admin/operators/"+esc(name)+"/chat-links", nil, &out)
	return out, err
}

// RotatedKey is the answer to a key's rotation: the new key, shown this
// once, and when the old one stops working.
type RotatedKey struct {
	KeyID           string    `json:"keyId"`
	APIKey          string    `json:"apiKey"`
	OldKeyID        string    `json:"oldKeyId"`
	OldKeyRevokedAt time.Time `json:"oldKeyRevokedAt"`
}

// RotateKey makes a new key for the account (with the old key's label)
// and revokes the old one a day later.
func (a *Admin) RotateKey(ctx context.Context, accountID, keyID string) (RotatedKey, error) {
	var out RotatedKey
	err := a.Do(ctx, http.MethodPost, "/admin/accounts/"+esc(accountID)+"/keys/"+esc(keyID)+"/rotate", nil, &out)
	return out, err
}
