package telegram

import (
	"crypto/rand"
	"encoding/base32"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/topupd/topupd"
)

// pending is a destructive command waiting for its confirmation button.
type pending struct {
	chatID  int64
	kind    string // revoke, credit
	args    []string
	expires time.Time
}

// confirms keeps the pending confirmations server-side: a button carries
// only a random token, bound to its chat, so callback data cannot be
// forged. A confirmation lives confirmTTL, and on the node that asked
// (after a takeover the button says it has expired).
type confirms struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]pending
}

func newConfirms(now func() time.Time) *confirms {
	return &confirms{now: now, m: map[string]pending{}}
}

// add keeps a pending command and returns its token.
func (c *confirms) add(p pending) string {
	var b [10]byte
	rand.Read(b[:])
	token := strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	for k, v := range c.m {
		if now.After(v.expires) {
			delete(c.m, k)
		}
	}
	p.expires = now.Add(confirmTTL)
	c.m[token] = p
	return token
}

// take removes and returns the chat's pending command for token, if it is
// there and alive.
func (c *confirms) take(token string, chatID int64) (pending, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[token]
	if !ok || p.chatID != chatID {
		return pending{}, false
	}
	delete(c.m, token)
	return p, !c.now().After(p.expires)
}

// chatLimits counts each chat's commands in a sliding minute.
type chatLimits struct {
	per    int
	now    func() time.Time
	mu     sync.Mutex
	seen   map[int64][]time.Time
	warned map[int64]time.Time
}

func newChatLimits(per int, now func() time.Time) *chatLimits {
	return &chatLimits{per: per, now: now, seen: map[int64][]time.Time{}, warned: map[int64]time.Time{}}
}

// allow counts a command of the chat and reports whether it is within
// the limit.
func (l *chatLimits) allow(chatID int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	recent := l.seen[chatID][:0]
	for _, t := range l.seen[chatID] {
		if now.Sub(t) < time.Minute {
			recent = append(recent, t)
		}
	}
	if len(recent) >= l.per {
		l.seen[chatID] = recent
		return false
	}
	l.seen[chatID] = append(recent, now)
	return true
}

// warn reports whether to tell the chat it is over the limit: once a minute.
func (l *chatLimits) warn(chatID int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if now.Sub(l.warned[chatID]) < time.Minute {
		return false
	}
	l.warned[chatID] = now
	return true
}

// refusal says in words why the service layer refused a call, when it
// did: a failure of ours (a status of 500 or more) is not a
// refusal.
func refusal(err error) (string, bool) {
	var de *topupd.Error
	if errors.As(err, &de) {
		if ourFault[de.Code] {
			return "", false
		}
		if de.Code == topupd.EConflict && strings.Contains(de.Detail, "acted on before") {
			return "This was done already.", true
		}
		msg := de.Detail
		if msg == "" {
			msg = de.Code.Message()
		}
		return "Refused: " + msg, true
	}
	return "", false
}

// ourFault are the codes the admin API answers with a status of 500 or
// more: no refusal, but a failure on our side.
var ourFault = map[topupd.ErrorCode]bool{topupd.EInternal: true, topupd.ENotImplemented: true, topupd.EMaintenance: true,
	topupd.EOrdersDisabled: true, topupd.ERateLimitDown: true}
