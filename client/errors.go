package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// Codes of the reseller API, as found in Error.Code. Failures the API names
// only by their message have the message with underscores as their code.
const (
	// Order placement (400 unless noted).
	CodeInvalidBody          = "INVALID_BODY"                          // the body failed validation
	CodeInvalidRequest       = "INVALID_REQUEST"                       // a field the line requires is missing or invalid
	CodeUnknownPID           = "UNKNOWN_PID"                           // no active pack has this PID
	CodeInvalidPack          = "INVALID_PACK"                          // the pack cannot be ordered
	CodeGameDisabled         = "GAME_DISABLED"                         // the pack's line is not orderable
	CodeInvalidProduct       = "INVALID_PRODUCT"                       // the product is inactive for orders
	CodeProductDisabled      = "PRODUCT_DISABLED"                      // the pack is disabled
	CodeQuantityOnlyStock    = "QUANTITY_ONLY_FOR_GAMEKEY_OR_GIFTCARD" // quantity sent for a top-up
	CodeQuantityExceedsMax   = "QUANTITY_EXCEEDS_MAX"                  // quantity over 500
	CodeInsufficientBalance  = "INSUFFICIENT_BALANCE"                  // rejected at submit (Error.Order set)
	CodeInsufficientStock    = "INSUFFICIENT_STOCK"                    // rejected at submit (Error.Order set)
	CodePriceAboveMax        = "PRICE_ABOVE_MAX"                       // rejected at submit: over MaxPriceUSD (Error.Order set, with its AmountUSD)
	CodeForbidden            = "FORBIDDEN"                             // 403: the trxid belongs to another account
	CodeIdempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED"                // 422: same trxid or key, different request
	CodeOrderNotFound        = "ORDER_NOT_FOUND"                       // 404: no such order of this account
	CodeDuplicateInFlight    = "DUPLICATE_IN_FLIGHT"                   // 429: the same trxid is still being processed
	CodeRateLimit            = "RATE_LIMIT"                            // 429: too many calls
	CodeNotImplemented       = "NOT_IMPLEMENTED"                       // 501: not on this build
	CodeMaintenance          = "MAINTENANCE"                           // 503: orders paused for maintenance
	CodeOrdersDisabled       = "API_ORDER_DISABLED"                    // 503: orders off for everyone for a while
	CodeRateLimitUnavailable = "RATE_LIMIT_UNAVAILABLE"                // 503: the limiter is down
	CodeSupplierUnavailable  = "SUPPLIER_UNAVAILABLE"                  // 503: a player check's supplier could not be asked
	CodeUpstreamLoop         = "UPSTREAM_LOOP"                         // 400: the call came back to the server, or through more than 3
	CodeInvalidJSON          = "INVALID_JSON"                          // 401: the body is not JSON (sent without a code)
	CodeBodyTooLarge         = "BODY_TOO_LARGE"                        // 413
	CodeHeaderTooLarge       = "HEADER_TOO_LARGE"                      // 431
	CodeNotFound             = "NOT_FOUND"                             // 404: no such path
	CodeMethodNotAllowed     = "METHOD_NOT_ALLOWED"                    // 405
	CodeInternal             = "INTERNAL"                              // 500

	// Authentication (401) and account access (403).
	CodeMissingAPIKey       = "MISSING_API_KEY"        // 401: no key header
	CodeInvalidAPIKeyFormat = "INVALID_API_KEY_FORMAT" // 401: malformed key
	CodeInvalidAPIKey       = "INVALID_API_KEY"        // 401: unknown or revoked key
	CodeAPIDisabled         = "API_DISABLED"           // 403: API not turned on for the account
	CodeAPIDisabledByAdmin  = "API_DISABLED_BY_ADMIN"  // 403: access turned off by the operator
	CodeAPINotEligible      = "API_NOT_ELIGIBLE"       // 403: the eligibility rule is not met yet
	CodeAccountBanned       = "ACCOUNT_BANNED"         // 403
	CodeAccountRestricted   = "ACCOUNT_RESTRICTED"     // 403: temporarily limited
	CodeIPAllowlistRequired = "IP_ALLOWLIST_REQUIRED"  // 403: no allow-listed address suits the caller
	CodeIPNotAllowed        = "IP_NOT_ALLOWED"         // 403: the caller's IP is not allowed

	// The admin API's own.
	CodeUnauthorized  = "UNAUTHORIZED"   // 401: no valid operator token
	CodeRoleForbidden = "ROLE_FORBIDDEN" // 403: the operator's role may not make this call
)

// Error is a failure answered by the API (any status other than 2xx).
type Error struct {
	// StatusCode is the HTTP status, which the API calls authoritative.
	StatusCode int
	// Code is the answer's code, or its message with spaces as underscores
	// when it has none (so "UNKNOWN PID" becomes UNKNOWN_PID).
	Code string
	// Message is the answer's error text, for example "INSUFFICIENT BALANCE".
	Message string
	// Detail is an optional explanation for humans, such as the field that failed.
	Detail string
	// RetryAfter is the wait the Retry-After header asked for, if any.
	RetryAfter time.Duration
	// Order is set when an order was rejected at submit: the answer in the
	// order form, with OrderCreated false, Status cancelled, Game and Error.
	Order *Order
	// Undercut, on a cost raise refused as BELOW_COST (409), are the
	// prices the new cost is above.
	Undercut []Undercut
}

// Undercut is a price a pack is sold at that a raised cost is above:
// Kind pack, tier (Name), account (AccountID) or scheduled.
type Undercut struct {
	Kind      string `json:"kind"`
	Name      string `json:"name,omitempty"`
	AccountID string `json:"accountId,omitempty"`
	PriceUSD  Money  `json:"priceUsd"`
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "topupd: %d", e.StatusCode)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" && e.Message != e.Code {
		b.WriteString(": " + e.Message)
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	return b.String()
}

// Rejected reports whether the error is an order rejected at submit (no order exists).
func (e *Error) Rejected() bool { return e.Order != nil && !e.Order.OrderCreated }

// Temporary reports whether the same call may succeed later (429, 502, 503, 504).
func (e *Error) Temporary() bool { return retryableStatus(e.StatusCode) }

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// IsCode reports whether err's chain holds an *Error whose Code, or whose
// Message, equals code.
func IsCode(err error, code string) bool {
	e, ok := AsError(err)
	return ok && (e.Code == code || e.Message == code)
}

// StatusCode returns the HTTP status of the *Error in err's chain, or 0.
func StatusCode(err error) int {
	if e, ok := AsError(err); ok {
		return e.StatusCode
	}
	return 0
}

// failureBody is what an error answer may hold, in either form.
type failureBody struct {
	Code         string     `json:"code"`
	Error        string     `json:"error"`
	Detail       string     `json:"detail"`
	Message      string     `json:"message"`
	OrderCreated *bool      `json:"orderCreated"`
	Undercut     []Undercut `json:"undercut"`
}

// parseError turns a non-2xx answer into an *Error.
func parseError(status int, h http.Header, raw []byte) *Error {
	e := &Error{StatusCode: status, RetryAfter: parseRetryAfter(h.Get("Retry-After"))}
	if loc := h.Get("Location"); status/100 == 3 && loc != "" {
		e.Message, e.Detail = http.StatusText(status), "redirected to "+loc
		return e
	}
	var f failureBody
	if err := json.Unmarshal(raw, &f); err != nil {
		e.Message = http.StatusText(status)
		if s := strings.TrimSpace(string(raw)); s != "" && utf8.ValidString(s) {
			if len(s) > 200 {
				i := 200
				for i > 0 && !utf8.RuneStart(s[i]) {
					i--
				}
				s = s[:i] + "…"
			}
			e.Detail = s
		}
		return e
	}
	e.Code, e.Message, e.Detail, e.Undercut = f.Code, f.Error, f.Detail, f.Undercut
	if e.Message == "" {
		e.Message = f.Message
	}
	if e.Code == "" {
		e.Code = strings.ReplaceAll(strings.TrimSpace(e.Message), " ", "_")
	}
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	if f.OrderCreated != nil {
		var o Order
		if json.Unmarshal(raw, &o) == nil {
			e.Order = &o
		}
	}
	return e
}
