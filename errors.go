package topupd

import (
	"errors"
	"fmt"
)

// ErrorCode is the stable, machine-readable code of a failure; it is the
// `code` field of an error answer.
type ErrorCode string

// The error codes of the reseller API and the admin API.
const (
	EInternal            ErrorCode = "INTERNAL"
	EInvalidJSON         ErrorCode = "INVALID_JSON"
	EInvalidBody         ErrorCode = "INVALID_BODY"
	EInvalidRequest      ErrorCode = "INVALID_REQUEST"
	EUnknownPID          ErrorCode = "UNKNOWN_PID"
	EInvalidPack         ErrorCode = "INVALID_PACK"
	EGameDisabled        ErrorCode = "GAME_DISABLED"
	EProductDisabled     ErrorCode = "PRODUCT_DISABLED"
	EInvalidProduct      ErrorCode = "INVALID_PRODUCT"
	EQuantityOnlyStock   ErrorCode = "QUANTITY_ONLY_FOR_GAMEKEY_OR_GIFTCARD"
	EQuantityExceedsMax  ErrorCode = "QUANTITY_EXCEEDS_MAX"
	EInsufficientBalance ErrorCode = "INSUFFICIENT_BALANCE"
	EInsufficientStock   ErrorCode = "INSUFFICIENT_STOCK"
	EForbidden           ErrorCode = "FORBIDDEN"
	EIdempotencyReused   ErrorCode = "IDEMPOTENCY_KEY_REUSED"
	EOrderNotFound       ErrorCode = "ORDER_NOT_FOUND"
	EDuplicateInFlight   ErrorCode = "DUPLICATE_IN_FLIGHT"
	ERateLimit           ErrorCode = "RATE_LIMIT"
	ENotImplemented      ErrorCode = "NOT_IMPLEMENTED"
	EMaintenance         ErrorCode = "MAINTENANCE"
	EOrdersDisabled      ErrorCode = "API_ORDER_DISABLED"
	ERateLimitDown       ErrorCode = "RATE_LIMIT_UNAVAILABLE"
	EMissingKey          ErrorCode = "MISSING_API_KEY"
	EKeyFormat           ErrorCode = "INVALID_API_KEY_FORMAT"
	EInvalidKey          ErrorCode = "INVALID_API_KEY"
	EAPIDisabled         ErrorCode = "API_DISABLED"
	EAPIDisabledByAdmin  ErrorCode = "API_DISABLED_BY_ADMIN"
	ENotEligible         ErrorCode = "API_NOT_ELIGIBLE"
	EBanned              ErrorCode = "ACCOUNT_BANNED"
	ERestricted          ErrorCode = "ACCOUNT_RESTRICTED"
	EAllowlistRequired   ErrorCode = "IP_ALLOWLIST_REQUIRED"
	EIPNotAllowed        ErrorCode = "IP_NOT_ALLOWED"
	ENotFound            ErrorCode = "NOT_FOUND"
	EMethodNotAllowed    ErrorCode = "METHOD_NOT_ALLOWED"
	EBodyTooLarge        ErrorCode = "BODY_TOO_LARGE"
	EHeaderTooLarge      ErrorCode = "HEADER_TOO_LARGE"
	EUnauthorized        ErrorCode = "UNAUTHORIZED"
	ERoleForbidden       ErrorCode = "ROLE_FORBIDDEN"
	EConflict            ErrorCode = "CONFLICT"
	EOrderFinal          ErrorCode = "ORDER_FINAL"
	ECodeAlreadyUsed     ErrorCode = "CODE_ALREADY_USED"
	ESimDisabled         ErrorCode = "SIM_DISABLED"
	EProviderRequired    ErrorCode = "PROVIDER_REQUIRED"
	EBelowCost           ErrorCode = "BELOW_COST"
	ESpendLimit          ErrorCode = "SPEND_LIMIT_EXCEEDED"
	EPriceAboveMax       ErrorCode = "PRICE_ABOVE_MAX"
	// ESupplierUnavailable: a supplier could not be asked (a player check).
	ESupplierUnavailable ErrorCode = "SUPPLIER_UNAVAILABLE"
	// EWebhookURLForbidden: an endpoint URL that is not https, or whose host
	// is or resolves to a loopback, private, link-local or unspecified address.
	EWebhookURLForbidden ErrorCode = "WEBHOOK_URL_FORBIDDEN"
	// EWebhookLimit: an account already has MaxWebhookEndpoints endpoints.
	EWebhookLimit ErrorCode = "WEBHOOK_LIMIT"
	// ELastOwner: a change would leave no operator who is an owner and not
	// disabled (the built-in root aside), so no one could sign in to the
	// console as an owner.
	ELastOwner ErrorCode = "LAST_OWNER"
	// EUpstreamLoop: an order or a player check that came round to this
	// server again, or through more than MaxHops servers (route.go).
	EUpstreamLoop ErrorCode = "UPSTREAM_LOOP"
	// EUpstreamInUse: an upstream a pack or a processing order still names
	// cannot be removed.
	EUpstreamInUse ErrorCode = "UPSTREAM_IN_USE"
	// EMismatchesOpen: a reconciliation cannot close while a mismatch of
	// it is open.
	EMismatchesOpen ErrorCode = "MISMATCHES_OPEN"
	// EReconciliationClosed: a closed reconciliation is final.
	EReconciliationClosed ErrorCode = "RECONCILIATION_CLOSED"
	// EDepositsDisabled: no deposit bank is set, so no ticket opens.
	EDepositsDisabled ErrorCode = "DEPOSITS_DISABLED"
	// EDepositLimit: the account holds MaxPendingDeposits pending tickets.
	EDepositLimit ErrorCode = "DEPOSIT_LIMIT"
	// EDepositAmountTaken: every cent of the amount is another pending
	// ticket's.
	EDepositAmountTaken ErrorCode = "DEPOSIT_AMOUNT_TAKEN"
	// EDepositFinal: a confirmed, rejected or expired ticket never changes.
	EDepositFinal ErrorCode = "DEPOSIT_FINAL"
	// ESecondApprovalRequired: the operator who confirmed a ticket first
	// cannot give its second approval.
	ESecondApprovalRequired ErrorCode = "SECOND_APPROVAL_REQUIRED"
	// EConfirmationMismatch: a second confirmation names another bank
	// reference or received amount than the first.
	EConfirmationMismatch ErrorCode = "CONFIRMATION_MISMATCH"
	// EBankRefUsed: a bank reference confirms one ticket, ever.
	EBankRefUsed ErrorCode = "BANK_REF_USED"
	// EOrderNotCompleted: only a completed order may be disputed.
	EOrderNotCompleted ErrorCode = "ORDER_NOT_COMPLETED"
	// EDisputeWindowClosed: the order completed more than
	// disputeWindowDays ago.
	EDisputeWindowClosed ErrorCode = "DISPUTE_WINDOW_CLOSED"
	// EDisputeOpen: the order has an open dispute already.
	EDisputeOpen ErrorCode = "DISPUTE_OPEN"
	// EPriceChangeApplied: a scheduled price change that took effect
	// cannot be deleted.
	EPriceChangeApplied ErrorCode = "PRICE_CHANGE_APPLIED"
	// EMismatchResolved: a mismatch is resolved once.
	EMismatchResolved ErrorCode = "MISMATCH_RESOLVED"
	// EActionNotApplicable: the action does not apply to the mismatch, or
	// to its order as it stands.
	EActionNotApplicable ErrorCode = "ACTION_NOT_APPLICABLE"
	// EUpstreamKeyRefused: saving an upstream whose check was answered
	// with anything but a balance (EUpstreamRefused on a check).
	EUpstreamKeyRefused ErrorCode = "UPSTREAM_KEY_REFUSED"
	// EUpstreamRefused: an upstream's check answered with anything but a
	// balance.
	EUpstreamRefused ErrorCode = "UPSTREAM_REFUSED"
	// EUpstreamUnreachable: an upstream's check got no answer.
	EUpstreamUnreachable ErrorCode = "UPSTREAM_UNREACHABLE"
)

// messages holds the spec's `error` text for codes whose text differs from the code.
var messages = map[ErrorCode]string{
	EInternal:            "INTERNAL ERROR",
	EInvalidJSON:         "INVALID JSON",
	EInvalidBody:         "INVALID BODY",
	EInvalidRequest:      "INVALID REQUEST",
	EUnknownPID:          "UNKNOWN PID",
	EInvalidPack:         "INVALID PACK",
	EGameDisabled:        "GAME DISABLED",
	EProductDisabled:     "PRODUCT DISABLED",
	EInvalidProduct:      "INVALID PRODUCT",
	EQuantityOnlyStock:   "QUANTITY ONLY FOR GAMEKEY OR GIFTCARD",
	EQuantityExceedsMax:  "QUANTITY EXCEEDS MAX",
	EInsufficientBalance: "INSUFFICIENT BALANCE",
	EInsufficientStock:   "INSUFFICIENT STOCK",
	EOrderNotFound:       "ORDER NOT FOUND",
	ERateLimit:           "TOO MANY REQUESTS",
	ENotImplemented:      "NOT IMPLEMENTED",
	ERateLimitDown:       "RATE LIMIT UNAVAILABLE",
	ENotFound:            "NOT FOUND",
	EMethodNotAllowed:    "METHOD NOT ALLOWED",
	EBodyTooLarge:        "BODY TOO LARGE",
	EHeaderTooLarge:      "HEADER TOO LARGE",
	EOrderFinal:          "ORDER ALREADY FINAL",
	ERoleForbidden:       "ROLE FORBIDDEN",
	ESpendLimit:          "SPEND LIMIT EXCEEDED",
	EPriceAboveMax:       "PRICE ABOVE MAX",
	ESupplierUnavailable: "SUPPLIER UNAVAILABLE",
}

// Message returns the spec's `error` text for a code: its own table entry, or
// the code itself (FORBIDDEN, DUPLICATE_IN_FLIGHT, the authentication codes…).
func (c ErrorCode) Message() string {
	if m, ok := messages[c]; ok {
		return m
	}
	return string(c)
}

// Error is a failure the API reports to its caller: a code, the spec's message,
// and an optional detail for humans.
type Error struct {
	Code   ErrorCode
	Detail string
	// Game is set on an order rejected at submit: the line's game key.
	Game string
	// Amount, on an order rejected for its price (PRICE_ABOVE_MAX), is
	// what the order would have cost.
	Amount *Money
	// Undercut, on a cost raise refused as BELOW_COST, are the prices the
	// new cost is above.
	Undercut []Undercut
}

// Error implements error.
func (e *Error) Error() string {
	if e.Detail == "" {
		return e.Code.Message()
	}
	return e.Code.Message() + ": " + e.Detail
}

// Errorf returns an *Error with a code and a formatted detail.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// Fail returns an *Error with a code and no detail.
func Fail(code ErrorCode) *Error { return &Error{Code: code} }

// CodeOf returns the code of the first *Error in err's chain, or EInternal.
func CodeOf(err error) ErrorCode {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}
