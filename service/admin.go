package service

import (
	"context"
	"time"

	"github.com/topupd/topupd"
)

// The operations on operators, settings, order reads and reports: their
// names are those of their changes in the action log.
const (
	// OpReadReports reads the sales and durations reports and statements.
	OpReadReports Op = "reports.read"
	// OpOrderCodes reads an order's codes in full, and records the read.
	OpOrderCodes Op = "order.codes-viewed"
	// OpUpdateSettings changes the settings.
	OpUpdateSettings Op = "settings.update"
	// OpCreateOperator adds an operator with a first token.
	OpCreateOperator Op = "operator.create"
	// OpUpdateOperator changes an operator's role or disables them.
	OpUpdateOperator Op = "operator.update"
	// OpCreateOperatorToken gives an operator one more token.
	OpCreateOperatorToken Op = "operator.token"
	// OpCreateSetupLink gives an operator a console setup link.
	OpCreateSetupLink Op = "operator.setup-link"
	// OpCreateOperatorChatLink makes a code that links a chat to an operator.
	OpCreateOperatorChatLink Op = "operator.chat-link-code"
)

// adminOps are the permissions of the operations on operators, settings, order reads, reports and the action log.
var adminOps = map[Op]rule{
	OpReadReports:            {perm: topupd.PermReports},
	OpOrderCodes:             {perm: topupd.PermOrderCodes},
	OpUpdateSettings:         {perm: topupd.PermSettings},
	OpCreateOperator:         {perm: topupd.PermOperators},
	OpUpdateOperator:         {perm: topupd.PermOperators},
	OpCreateOperatorToken:    {perm: topupd.PermOperators},
	OpCreateSetupLink:        {perm: topupd.PermOperators},
	OpCreateOperatorChatLink: {perm: topupd.PermOperators},
	OpUnlockLogin:            {perm: topupd.PermOperators},
}

// adminStore is what the operations on operators, settings, order reads, reports and the action log need of the database.
type adminStore interface {
	Orders(ctx context.Context, q topupd.OrdersQuery) ([]topupd.Order, error)
	OrderCodes(ctx context.Context, ch *topupd.Change, id string) (topupd.Order, error)
	OrderEvents(ctx context.Context, seq int64) ([]topupd.OrderEvent, error)
	OrderEntries(ctx context.Context, orderSeq int64) ([]topupd.LedgerEntry, error)
	SupplierAttempts(ctx context.Context, seq int64) ([]topupd.SupplierAttempt, error)
	Settings(ctx context.Context) (topupd.Settings, error)
	UpdateSettings(ctx context.Context, ch *topupd.Change, p topupd.SettingsPatch) (topupd.Settings, error)
	CreateOperator(ctx context.Context, ch *topupd.Change, o topupd.Operator, token topupd.KeyHash) (topupd.Operator, error)
	Operators(ctx context.Context) ([]topupd.Operator, error)
	UpdateOperator(ctx context.Context, ch *topupd.Change, name string, p topupd.OperatorPatch) (topupd.Operator, error)
	AddOperatorToken(ctx context.Context, ch *topupd.Change, name string, token topupd.KeyHash, now time.Time) error
	CreateSetupLink(ctx context.Context, ch *topupd.Change, name string, link topupd.KeyHash, now, expires time.Time) error
	CreateChatLink(ctx context.Context, ch *topupd.Change, l topupd.ChatLink) error
	Actions(ctx context.Context, q topupd.ActionsQuery) ([]topupd.Action, error)
	Account(ctx context.Context, id string) (topupd.Account, error)
	Statement(ctx context.Context, accountID string, from, to time.Time) (topupd.Statement, error)
	SalesReport(ctx context.Context, from, to time.Time, by topupd.SalesGroup) ([]topupd.SalesRow, error)
	Durations(ctx context.Context, from, to time.Time) ([]topupd.DurationRow, error)
}
