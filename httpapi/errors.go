package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/topupd/topupd"
)

// statusOf is the one table from error code to HTTP status.
var statusOf = map[topupd.ErrorCode]int{
	topupd.EInvalidJSON:            http.StatusUnauthorized,
	topupd.EInvalidBody:            http.StatusBadRequest,
	topupd.EInvalidRequest:         http.StatusBadRequest,
	topupd.EUnknownPID:             http.StatusBadRequest,
	topupd.EInvalidPack:            http.StatusBadRequest,
	topupd.EGameDisabled:           http.StatusBadRequest,
	topupd.EProductDisabled:        http.StatusBadRequest,
	topupd.EInvalidProduct:         http.StatusBadRequest,
	topupd.EQuantityOnlyStock:      http.StatusBadRequest,
	topupd.EQuantityExceedsMax:     http.StatusBadRequest,
	topupd.EInsufficientBalance:    http.StatusBadRequest,
	topupd.EInsufficientStock:      http.StatusBadRequest,
	topupd.EForbidden:              http.StatusForbidden,
	topupd.EIdempotencyReused:      http.StatusUnprocessableEntity,
	topupd.EOrderNotFound:          http.StatusNotFound,
	topupd.EDuplicateInFlight:      http.StatusTooManyRequests,
	topupd.ERateLimit:              http.StatusTooManyRequests,
	topupd.ENotImplemented:         http.StatusNotImplemented,
	topupd.EMaintenance:            http.StatusServiceUnavailable,
	topupd.EOrdersDisabled:         http.StatusServiceUnavailable,
	topupd.ERateLimitDown:          http.StatusServiceUnavailable,
	topupd.EMissingKey:             http.StatusUnauthorized,
	topupd.EKeyFormat:              http.StatusUnauthorized,
	topupd.EInvalidKey:             http.StatusUnauthorized,
	topupd.EAPIDisabled:            http.StatusForbidden,
	topupd.EAPIDisabledByAdmin:     http.StatusForbidden,
	topupd.ENotEligible:            http.StatusForbidden,
	topupd.EBanned:                 http.StatusForbidden,
	topupd.ERestricted:             http.StatusForbidden,
	topupd.EAllowlistRequired:      http.StatusForbidden,
	topupd.EIPNotAllowed:           http.StatusForbidden,
	topupd.ENotFound:               http.StatusNotFound,
	topupd.EMethodNotAllowed:       http.StatusMethodNotAllowed,
	topupd.EBodyTooLarge:           http.StatusRequestEntityTooLarge,
	topupd.EHeaderTooLarge:         http.StatusRequestHeaderFieldsTooLarge,
	topupd.EUnauthorized:           http.StatusUnauthorized,
	topupd.ERoleForbidden:          http.StatusForbidden,
	topupd.EConflict:               http.StatusConflict,
	topupd.EOrderFinal:             http.StatusConflict,
	topupd.ECodeAlreadyUsed:        http.StatusConflict,
	topupd.ESimDisabled:            http.StatusBadRequest,
	topupd.EProviderRequired:       http.StatusBadRequest,
	topupd.EBelowCost:              http.StatusBadRequest,
	topupd.ESpendLimit:             http.StatusBadRequest,
	topupd.EPriceAboveMax:          http.StatusBadRequest,
	topupd.ESupplierUnavailable:    http.StatusServiceUnavailable,
	topupd.EWebhookURLForbidden:    http.StatusBadRequest,
	topupd.EWebhookLimit:           http.StatusConflict,
	topupd.ELastOwner:              http.StatusConflict,
	topupd.EUpstreamLoop:           http.StatusBadRequest,
	topupd.EUpstreamInUse:          http.StatusConflict,
	topupd.EMismatchesOpen:         http.StatusConflict,
	topupd.EReconciliationClosed:   http.StatusConflict,
	topupd.EMismatchResolved:       http.StatusConflict,
	topupd.EActionNotApplicable:    http.StatusConflict,
	topupd.EDepositsDisabled:       http.StatusConflict,
	topupd.EDepositLimit:           http.StatusConflict,
	topupd.EDepositAmountTaken:     http.StatusConflict,
	topupd.EDepositFinal:           http.StatusConflict,
	topupd.EOrderNotCompleted:      http.StatusConflict,
	topupd.EDisputeWindowClosed:    http.StatusConflict,
	topupd.EDisputeOpen:            http.StatusConflict,
	topupd.ESecondApprovalRequired: http.StatusConflict,
	topupd.EConfirmationMismatch:   http.StatusConflict,
	topupd.EBankRefUsed:            http.StatusConflict,
	topupd.EPriceChangeApplied:     http.StatusConflict,
	topupd.EUpstreamKeyRefused:     http.StatusBadRequest,
	topupd.EUpstreamRefused:        http.StatusBadGateway,
	// 502 on a check; a PUT answers its own 400 (putUpstream).
	topupd.EUpstreamUnreachable: http.StatusBadGateway,
	topupd.EInternal:            http.StatusInternalServerError,
}

// rejectedAtSubmit are the failures answered in the order form with
// orderCreated false, as the spec shows for INSUFFICIENT BALANCE, when they
// reject an order (the error then names the line's game).
var rejectedAtSubmit = map[topupd.ErrorCode]bool{
	topupd.EInsufficientBalance: true,
	topupd.EInsufficientStock:   true,
	topupd.ESpendLimit:          true,
	topupd.EPriceAboveMax:       true,
}

// failure is the body of an error answer.
type failure struct {
	Success   bool   `json:"success"`
	Code      string `json:"code,omitempty"`
	Error     string `json:"error"`
	Detail    string `json:"detail,omitempty"`
	Retryable bool   `json:"retryable"`
	// Undercut, on a cost raise refused as BELOW_COST, are the prices
	// the new cost is above.
	Undercut []topupd.Undercut `json:"undercut,omitempty"`
}

// rejection is the body of an order rejected at submit.
type rejection struct {
	Success      bool   `json:"success"`
	OrderCreated bool   `json:"orderCreated"`
	Status       string `json:"status"`
	Game         string `json:"game"`
	Error        string `json:"error"`
	Code         string `json:"code"`
	// AmountUsd, on PRICE_ABOVE_MAX, is what the order would cost.
	AmountUsd *topupd.Money `json:"amountUsd,omitempty"`
	Retryable bool          `json:"retryable"`
}

// retryable reports whether a client should retry a call answered with
// status, with the same trxid: only for 429, 500, 502, 503 and 504.
func retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// internalFailure is the body of a 500 answer.
var internalFailure = failure{Code: string(topupd.EInternal), Error: topupd.EInternal.Message(), Retryable: true}

// StatusOf is the HTTP status an error is answered with: its code's, or
// 500 for an error without a code (or with one the table lacks).
func StatusOf(err error) int {
	var e *topupd.Error
	if !errors.As(err, &e) {
		return http.StatusInternalServerError
	}
	var st statusError
	if errors.As(err, &st) {
		return st.status
	}
	if status, ok := statusOf[e.Code]; ok {
		return status
	}
	return http.StatusInternalServerError
}

// writeError answers err in the spec's shape. An error without a code is
// logged and answered as a generic 500.
func writeError(w http.ResponseWriter, log *slog.Logger, r *http.Request, err error) {
	var e *topupd.Error
	if !errors.As(err, &e) || e.Code == topupd.EInternal {
		log.ErrorContext(r.Context(), "internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		writeJSON(w, http.StatusInternalServerError, internalFailure)
		return
	}
	status, ok := statusOf[e.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	var st statusError
	if errors.As(err, &st) {
		status = st.status
	}
	if rejectedAtSubmit[e.Code] && e.Game != "" {
		writeJSON(w, status, rejection{Status: string(topupd.StatusCancelled), Game: e.Game, Error: e.Code.Message(), Code: string(e.Code),
			AmountUsd: e.Amount, Retryable: retryable(status)})
		return
	}
	f := failure{Code: string(e.Code), Error: e.Code.Message(), Detail: e.Detail, Retryable: retryable(status), Undercut: e.Undercut}
	if e.Undercut != nil {
		status = http.StatusConflict // a cost raise; a price set below the cost stays 400
	}
	if e.Code == topupd.EInvalidJSON {
		f.Code = "" // the spec gives INVALID JSON no code
	}
	writeJSON(w, status, f)
}

// writeJSON answers v with a status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := encodeAnswer(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"success":false,"code":"INTERNAL","error":"INTERNAL ERROR","retryable":true}` + "\n")
	}
	writeEncoded(w, status, b)
}

// encodeAnswer is v as an answer's body: its JSON and a newline.
func encodeAnswer(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return append(b, '\n'), err
}

// writeEncoded answers a body encodeAnswer made, with a status.
func writeEncoded(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// statusError answers its error with a status of its own, where one call
// answers a code with another status than the table's (UPSTREAM_UNREACHABLE
// is 502 on a check, 400 on a save).
type statusError struct {
	error
	status int
}

// Unwrap returns the error.
func (e statusError) Unwrap() error { return e.error }

// withStatus answers err with status.
func withStatus(err error, status int) error { return statusError{err, status} }
