package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"

	"github.com/topupd/topupd"
)

// AsChat returns a context whose admin calls through Transport are made
// for a reseller's chat in the messaging app: as the operator
// chat:<chatID> with the reseller-chat role, held to one account, asked
// for by a Bot API update (recorded with the change, so that it is acted
// on at most once).
func AsChat(ctx context.Context, chatID int64, accountID string, updateID int64) context.Context {
	return context.WithValue(ctx, inProcessKey{}, inProcessCaller{operator: topupd.ChatActor(chatID), ip: "127.0.0.1",
		requestID: "upd_" + strconv.FormatInt(updateID, 10), account: accountID, updateID: updateID})
}

// AsOperatorChat is AsOperator for an operator's own chat, asked for by a
// Bot API update.
func AsOperatorChat(ctx context.Context, operator string, updateID int64) context.Context {
	return context.WithValue(ctx, inProcessKey{}, inProcessCaller{operator: operator, ip: "127.0.0.1",
		requestID: "upd_" + strconv.FormatInt(updateID, 10), updateID: updateID})
}

// updateOf is the Bot API update an in-process call was made for, or 0.
func updateOf(ctx context.Context) int64 {
	c, _ := inProcessCallerOf(ctx)
	return c.updateID
}

// chatPatchFields are the account fields a reseller's chat may change:
// never adminDisabled, banned or restrictedUntil, which are the operator's.
var chatPatchFields = []string{"apiEnabled", "ipAllowlist", "ipAllowlistRequired"}

// chatScope holds a reseller's chat to its own account: the account's
// reads, a PATCH of its own fields, and its keys. Anything else is 403
// ROLE_FORBIDDEN before anything changes.
func (a *admin) chatScope(r *http.Request, op topupd.Operator) error {
	if op.Role != topupd.RoleResellerChat {
		return nil
	}
	c, _ := inProcessCallerOf(r.Context())
	forbidden := topupd.Errorf(topupd.ERoleForbidden, "a reseller's chat may act only on its own account")
	switch {
	case r.PathValue("id") == c.account && c.account != "":
		if r.Method == http.MethodPatch {
			return onlyFields(r, chatPatchFields)
		}
		return nil
	case r.PathValue("keyId") != "":
		keys, err := a.Store.Keys(r.Context(), c.account)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if k.ID == r.PathValue("keyId") {
				return nil
			}
		}
		return topupd.Errorf(topupd.ENotFound, "key %s is not this account's", r.PathValue("keyId"))
	}
	return forbidden
}

// onlyFields refuses a JSON object body with a field not in allowed,
// leaving the body to be read again.
func onlyFields(r *http.Request, allowed []string) error {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil // the handler answers a bad body
	}
	for k := range obj {
		if !slices.Contains(allowed, k) {
			return topupd.Errorf(topupd.ERoleForbidden, "a reseller's chat may not change %s", k)
		}
	}
	return nil
}
