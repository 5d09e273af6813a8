package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/topupd/topupd"
)

// maxTokenLen bounds trxid and idempotency keys.
const maxTokenLen = 128

// readObject reads a request body that must be one JSON object and nothing
// after it. Malformed JSON is EInvalidJSON; well-formed JSON that is not an
// object is EInvalidBody; an oversized body is EBodyTooLarge.
func readObject(r *http.Request) (map[string]json.RawMessage, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, topupd.Fail(topupd.EBodyTooLarge)
		}
		return nil, topupd.Errorf(topupd.EInvalidJSON, "reading body: %v", err)
	}
	if !json.Valid(body) {
		return nil, topupd.Fail(topupd.EInvalidJSON)
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, topupd.Errorf(topupd.EInvalidBody, "the body must be a JSON object")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, topupd.Fail(topupd.EInvalidJSON)
	}
	return obj, nil
}

// stringField reads one string field under any of its aliases. A JSON number
// is taken as its literal text (clients send zone ids as numbers); null or
// absence is "". Two aliases with different values are EInvalidBody.
func stringField(obj map[string]json.RawMessage, names ...string) (string, error) {
	out, seen := "", false
	for _, n := range names {
		raw, ok := obj[n]
		if !ok {
			continue
		}
		v, err := stringValue(raw)
		if err != nil {
			return "", topupd.Errorf(topupd.EInvalidBody, "%s: %v", n, err)
		}
		if seen && v != out && v != "" && out != "" {
			return "", topupd.Errorf(topupd.EInvalidBody, "%s and its alias disagree", names[0])
		}
		if v != "" {
			out, seen = v, true
		}
	}
	return out, nil
}

func stringValue(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return s, nil
	case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		return string(raw), nil
	}
	return "", errors.New("must be a string")
}

// quantityField reads quantity: an integer, or absent/null (0).
func quantityField(obj map[string]json.RawMessage) (int, error) {
	raw, ok := obj["quantity"]
	raw = bytes.TrimSpace(raw)
	if !ok || string(raw) == "null" {
		return 0, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if errors.Is(err, strconv.ErrRange) && raw[0] != '-' {
		return 0, topupd.Fail(topupd.EQuantityExceedsMax)
	}
	if err != nil {
		return 0, topupd.Errorf(topupd.EInvalidBody, "quantity must be a whole number")
	}
	if n < 1 {
		return 0, topupd.Errorf(topupd.EInvalidBody, "quantity must be at least 1")
	}
	if n > topupd.MaxQuantity {
		return 0, topupd.Fail(topupd.EQuantityExceedsMax)
	}
	return int(n), nil
}

// token checks a trxid or idempotency key: at most 128 characters, no
// control characters.
func token(name, v string) error {
	if len(v) > maxTokenLen || !utf8.ValidString(v) {
		return topupd.Errorf(topupd.EInvalidBody, "%s: at most %d bytes of text", name, maxTokenLen)
	}
	for _, c := range v {
		if unicode.IsControl(c) {
			return topupd.Errorf(topupd.EInvalidBody, "%s: no control characters", name)
		}
	}
	return nil
}

// DecodeOrder reads a POST /orders body with the spec's field aliases. Fields
// the spec does not name (a price or a status, say) are ignored.
func DecodeOrder(r *http.Request) (topupd.OrderRequest, error) {
	var req topupd.OrderRequest
	obj, err := readObject(r)
	if err != nil {
		return req, err
	}
	fields := []struct {
		dst   *string
		names []string
	}{
		{&req.PID, []string{"pid", "PID"}},
		{&req.TrxID, []string{"trxid", "trxId", "idtrx", "idTrx"}},
		{&req.IdempotencyKey, []string{"idempotencyKey", "idempotency"}},
		{&req.Fields.UserID, []string{"userId", "userID"}},
		{&req.Fields.ZoneID, []string{"zoneId"}},
		{&req.Fields.ServerID, []string{"serverId"}},
		{&req.Fields.Region, []string{"region"}},
		{&req.Fields.MoreID, []string{"moreId"}},
	}
	for _, f := range fields {
		if *f.dst, err = stringField(obj, f.names...); err != nil {
			return req, err
		}
	}
	if req.Quantity, err = quantityField(obj); err != nil {
		return req, err
	}
	if err := token("trxid", req.TrxID); err != nil {
		return req, err
	}
	if err := token("idempotencyKey", req.IdempotencyKey); err != nil {
		return req, err
	}
	switch {
	case strings.TrimSpace(req.PID) == "":
		return req, topupd.Errorf(topupd.EInvalidRequest, "pid is required")
	case strings.TrimSpace(req.TrxID) == "":
		return req, topupd.Errorf(topupd.EInvalidRequest, "trxid is required")
	}
	return req, nil
}
