package service

import (
	"context"
	"strconv"
	"time"

	"github.com/topupd/topupd"
)

// actorStore is what finding an actor needs of the database.
type actorStore interface {
	Operator(ctx context.Context, name string) (topupd.Operator, error)
	SeeOperator(ctx context.Context, name string, at time.Time) error
}

// ChatActor is a reseller's chat in the messaging app, held to its
// account, asking by a Bot API update (acted on at most once).
func ChatActor(chatID int64, accountID string, updateID int64) Actor {
	return Actor{Operator: topupd.ChatActor(chatID), Role: topupd.RoleResellerChat, Account: accountID, IP: "127.0.0.1",
		RequestID: updateRequestID(updateID), Update: topupd.BotUpdate{UpdateID: updateID, ChatID: chatID}}
}

// updateRequestID is the request id of what a Bot API update asks for.
func updateRequestID(updateID int64) string { return "upd_" + strconv.FormatInt(updateID, 10) }

// OperatorChatActor is OperatorActor for an operator's own chat in the
// messaging app, asking by a Bot API update (acted on at most once).
func (s *Service) OperatorChatActor(ctx context.Context, name string, chatID, updateID int64) (Actor, error) {
	a, err := s.OperatorActor(ctx, name, "127.0.0.1", updateRequestID(updateID))
	a.Update = topupd.BotUpdate{UpdateID: updateID, ChatID: chatID}
	return a, err
}

// RootActor is the command line's operator, or the server itself (what
// the messaging app's alerts read), as root.
func RootActor(requestID string) Actor {
	return Actor{Operator: topupd.RootOperator, Role: topupd.RoleOwner, IP: "127.0.0.1", RequestID: requestID}
}

// SystemOperator names the server's own work in the action log.
const SystemOperator = "system"

// SystemActor is the server acting by itself (the nightly
// reconciliation), as the owner, logged as operator system.
func SystemActor() Actor {
	return Actor{Operator: SystemOperator, Role: topupd.RoleOwner, IP: "127.0.0.1"}
}

// OperatorActor is the named operator, with their role, asking from ip.
// An operator who is unknown or disabled is 401
// UNAUTHORIZED. The operator's last call is recorded.
func (s *Service) OperatorActor(ctx context.Context, name, ip, requestID string) (Actor, error) {
	a := Actor{Operator: name, IP: ip, RequestID: requestID}
	if name == topupd.RootOperator {
		a.Role = topupd.RoleOwner
		return a, nil
	}
	op, err := s.d.Store.Operator(ctx, name)
	switch {
	case topupd.CodeOf(err) == topupd.ENotFound:
		return a, topupd.Errorf(topupd.EUnauthorized, "no operator %s", name)
	case err != nil:
		return a, err
	case op.Disabled:
		return a, topupd.Errorf(topupd.EUnauthorized, "operator %s is disabled", name)
	}
	a.Role = op.Role
	if err := s.d.Store.SeeOperator(ctx, name, s.d.Now()); err != nil {
		s.d.Logger.WarnContext(ctx, "recording an operator's call", "operator", name, "err", err)
	}
	return a, nil
}
