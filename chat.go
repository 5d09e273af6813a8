package topupd

import (
	"context"
	"strconv"
	"time"
)

// The messaging app (Telegram): chats linked to an account or an operator,
// one-time link codes, the poller's lease, and the updates already acted on.

// KeyRotationOverlap is how long a rotated key keeps working beside the
// new one before it is revoked.
const KeyRotationOverlap = 24 * time.Hour

// ChatLinkTTL is how long a chat link code works.
const ChatLinkTTL = 15 * time.Minute

// ChatLink is a one-time code that links a private chat to an account or
// to an operator (exactly one of AccountID and Operator is set). Only the
// code's hash is stored.
type ChatLink struct {
	Code      KeyHash
	AccountID string
	Operator  string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Chat is a chat linked to an account or to an operator (exactly one of
// AccountID and Operator is set).
type Chat struct {
	ChatID    int64
	Username  string
	AccountID string
	Operator  string
	LinkedAt  time.Time
	// LinkedPos is where the event stream stood when the chat was linked:
	// it hears of its account's events after it.
	LinkedPos StreamPos
	// BalanceAlert, when not nil, is the amount below which the chat is
	// warned; BalanceLow records that the balance was last seen below it,
	// so that the warning is sent once per crossing.
	BalanceAlert *Money
	BalanceLow   bool
}

// ChatActor is the action log's operator of a change made from a
// reseller's chat.
func ChatActor(chatID int64) string { return "chat:" + strconv.FormatInt(chatID, 10) }

// BotUpdate is a Bot API update the bot has acted on: recorded in the
// transaction of the change it made (see Change.UpdateID), or alone when
// it changed nothing, so that it is acted on at most once.
type BotUpdate struct {
	UpdateID int64
	ChatID   int64
	At       time.Time
}

// ChatStore keeps the messaging app's chats and the bot's state.
type ChatStore interface {
	// CreateChatLink stores a link code's hash.
	CreateChatLink(ctx context.Context, ch *Change, l ChatLink) error
	// LinkChat spends a code: in one transaction the code is marked used
	// and the chat is linked to the code's account or operator (replacing
	// any earlier link of the chat), and the update is recorded. A used,
	// expired or unknown code is EInvalidRequest, and nothing changes.
	LinkChat(ctx context.Context, ch *Change, code KeyHash, c Chat, u BotUpdate) (Chat, error)
	// Chat returns a linked chat, or ENotFound.
	Chat(ctx context.Context, chatID int64) (Chat, error)
	// Chats returns the chats of an account (accountID set) or of an
	// operator (operator set), oldest link first.
	Chats(ctx context.Context, accountID, operator string) ([]Chat, error)
	// OperatorChats returns the linked chats of the operators not disabled.
	OperatorChats(ctx context.Context) ([]Chat, error)
	// BalanceAlertChats returns every chat with a balance alert.
	BalanceAlertChats(ctx context.Context) ([]Chat, error)
	// BotAlerts returns the operator alerts told as started and not yet
	// as cleared: each one's key and message.
	BotAlerts(ctx context.Context) (map[string]string, error)
	// SetBotAlert records an alert as started (on) or cleared; it
	// reports whether that changed anything (an alert to tell).
	SetBotAlert(ctx context.Context, key, message string, on bool, at time.Time) (changed bool, err error)
	// UnlinkChat removes an account's chat (ENotFound when the chat is not
	// the account's).
	UnlinkChat(ctx context.Context, ch *Change, accountID string, chatID int64) error
	// SetBalanceAlert sets or (nil) clears a chat's balance alert, and
	// whether the balance is below it now.
	SetBalanceAlert(ctx context.Context, ch *Change, chatID int64, below *Money, low bool, u BotUpdate) error
	// SetBalanceLow records whether a chat's balance was last seen below
	// its alert; it reports whether that changed (an alert to send).
	SetBalanceLow(ctx context.Context, chatID int64, low bool) (changed bool, err error)
	// RecordUpdate records an update that changed nothing; an update
	// recorded before is EConflict.
	RecordUpdate(ctx context.Context, u BotUpdate) error
	// UpdateSeen reports whether an update was recorded (alone or with a change).
	UpdateSeen(ctx context.Context, updateID int64) (bool, error)
	// TakeBotLease takes or renews the poller's lease for holder until
	// until, if no other holder's lease runs past now; it reports whether
	// holder has it.
	TakeBotLease(ctx context.Context, holder string, now, until time.Time) (bool, error)
	// ReleaseBotLease gives the lease up if holder has it.
	ReleaseBotLease(ctx context.Context, holder string) error
	// BotOffset and SetBotOffset keep the next getUpdates offset.
	BotOffset(ctx context.Context) (int64, error)
	// SetBotOffset stores the next getUpdates offset if it is larger.
	SetBotOffset(ctx context.Context, offset int64) error
}
