package service

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// Operators lists every named operator, by name.
func (s *Service) Operators(ctx context.Context, a Actor) ([]topupd.Operator, error) {
	if err := Allowed(a, OpRead); err != nil {
		return nil, err
	}
	return s.d.Store.Operators(ctx)
}

// CreateOperator adds an operator with a role and answers them with their
// first token, shown this once. A name taken is CONFLICT.
func (s *Service) CreateOperator(ctx context.Context, a Actor, name string, role topupd.Role) (topupd.Operator, string, error) {
	if err := Allowed(a, OpCreateOperator); err != nil {
		return topupd.Operator{}, "", err
	}
	o := topupd.Operator{Name: name, Role: role, CreatedAt: s.d.Now()}
	if err := o.Validate(); err != nil {
		return o, "", err
	}
	token, hash := topupd.NewOperatorToken()
	o, err := s.d.Store.CreateOperator(ctx, change(a, OpCreateOperator, name), o, hash)
	if err != nil {
		return o, "", err
	}
	s.changed(ctx)
	return o, token, nil
}

// UpdateOperator changes an operator's role or disabled flag (the store
// checks the result: topupd.Operator.Validate); an unknown name is
// NOT_FOUND.
func (s *Service) UpdateOperator(ctx context.Context, a Actor, name string, p topupd.OperatorPatch) (topupd.Operator, error) {
	if err := Allowed(a, OpUpdateOperator); err != nil {
		return topupd.Operator{}, err
	}
	o, err := s.d.Store.UpdateOperator(ctx, change(a, OpUpdateOperator, name), name, p)
	if err != nil {
		return o, err
	}
	s.changed(ctx)
	return o, nil
}

// CreateOperatorToken gives an operator one more token, shown this once.
func (s *Service) CreateOperatorToken(ctx context.Context, a Actor, name string) (string, error) {
	if err := Allowed(a, OpCreateOperatorToken); err != nil {
		return "", err
	}
	token, hash := topupd.NewOperatorToken()
	if err := s.d.Store.AddOperatorToken(ctx, change(a, OpCreateOperatorToken, name), name, hash, s.d.Now()); err != nil {
		return "", err
	}
	s.changed(ctx)
	return token, nil
}

// SetupLink is a one-time console setup link, shown this once.
type SetupLink struct {
	URL       string
	ExpiresAt time.Time
}

// CreateSetupLink gives an operator a one-time link, valid
// topupd.SetupLinkTTL, where they set a console password and enrol TOTP;
// their earlier unused links stop working. The link starts with
// Deps.ConsoleURL or, when that is not set, with consoleURL: the console
// on the admin address the call came to.
func (s *Service) CreateSetupLink(ctx context.Context, a Actor, name, consoleURL string) (SetupLink, error) {
	if err := Allowed(a, OpCreateSetupLink); err != nil {
		return SetupLink{}, err
	}
	link, hash := topupd.NewSecret()
	now := s.d.Now()
	expires := now.Add(topupd.SetupLinkTTL)
	if err := s.d.Store.CreateSetupLink(ctx, change(a, OpCreateSetupLink, name), name, hash, now, expires); err != nil {
		return SetupLink{}, err
	}
	s.changed(ctx)
	if s.d.ConsoleURL != "" {
		consoleURL = s.d.ConsoleURL
	}
	return SetupLink{URL: strings.TrimSuffix(consoleURL, "/") + "/setup/" + link, ExpiresAt: expires}, nil
}

// OperatorChatLink is a one-time code that links a chat of the messaging
// app to an operator, shown this once.
type OperatorChatLink struct {
	Code      string
	ExpiresAt time.Time
	// URL opens the bot with "/start <code>"; "" while the bot's username
	// is not known.
	URL string
}

// CreateOperatorChatLink makes a one-time code, valid topupd.ChatLinkTTL,
// that links a chat to the operator. Root, who has no row of its own, has
// no chat (NOT_FOUND).
func (s *Service) CreateOperatorChatLink(ctx context.Context, a Actor, name string) (OperatorChatLink, error) {
	if err := Allowed(a, OpCreateOperatorChatLink); err != nil {
		return OperatorChatLink{}, err
	}
	if name == topupd.RootOperator {
		return OperatorChatLink{}, topupd.Errorf(topupd.ENotFound,
			"operator %s: the built-in operator of TOPUPD_ADMIN_TOKEN has no chat; link a named operator's", name)
	}
	code, hash := topupd.NewSecret()
	now := s.d.Now().Truncate(time.Millisecond) // as stored
	l := topupd.ChatLink{Code: hash, Operator: name, CreatedAt: now, ExpiresAt: now.Add(topupd.ChatLinkTTL)}
	if err := s.d.Store.CreateChatLink(ctx, change(a, OpCreateOperatorChatLink, name), l); err != nil {
		return OperatorChatLink{}, err
	}
	s.changed(ctx)
	return OperatorChatLink{Code: code, ExpiresAt: l.ExpiresAt, URL: startURL(s.d.BotUsername(), code)}, nil
}

// startURL is the link that opens the bot with "/start <code>", or ""
// when the bot's username is not known.
func startURL(bot, code string) string {
	bot = strings.TrimPrefix(bot, "@")
	if bot == "" {
		return ""
	}
	return "https://t.me/" + url.PathEscape(bot) + "?start=" + url.QueryEscape(code)
}
