package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// PlayerCheckRequest is the body of POST /players/check: a pack, and the
// account fields its line requires, as an order of it would carry them.
type PlayerCheckRequest struct {
	// PID is the catalog id of the pack (Product.ID). Required.
	PID      string `json:"pid"`
	UserID   string `json:"userId,omitempty"`
	ZoneID   string `json:"zoneId,omitempty"`
	ServerID string `json:"serverId,omitempty"`
	Region   string `json:"region,omitempty"`
	MoreID   string `json:"moreId,omitempty"`
}

// PlayerCheck is the answer of POST /players/check.
type PlayerCheck struct {
	// Supported is false when the pack's supplier cannot check players
	// (manual packs, packs sold from stock); Valid is then false too, and
	// says nothing.
	Supported bool
	// Valid is true when the supplier knows the player.
	Valid bool
	// Nickname is the player's name, when the supplier gives one.
	Nickname string
	// Error is why the player is not valid: "INVALID PLAYER".
	Error string
}

// UnmarshalJSON reads { "valid", "nickname"?, "error"? } or
// { "supported": false }; an answer saying neither is an error.
func (p *PlayerCheck) UnmarshalJSON(b []byte) error {
	var w struct {
		Supported *bool      `json:"supported"`
		Valid     *bool      `json:"valid"`
		Nickname  flexString `json:"nickname"`
		Error     string     `json:"error"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	switch {
	case w.Supported != nil && !*w.Supported:
		*p = PlayerCheck{}
	case w.Valid != nil:
		*p = PlayerCheck{Supported: true, Valid: *w.Valid, Nickname: string(w.Nickname), Error: w.Error}
	default:
		return errors.New(`the answer says neither "valid" nor "supported": false`)
	}
	return nil
}

// CheckPlayer asks whether a player account exists before ordering for it
// (POST /players/check). Nothing is charged or recorded, and a check is
// safe to retry. A body an order would refuse is refused the same way (an
// *Error: INVALID_REQUEST, UNKNOWN_PID, …); a supplier that cannot be asked
// is a 503 *Error with code SUPPLIER_UNAVAILABLE (retried, as 503s are). A
// server without player checks answers 404 or 501.
func (c *Client) CheckPlayer(ctx context.Context, req PlayerCheckRequest) (*PlayerCheck, error) {
	if req.PID == "" {
		return nil, errors.New("client: PlayerCheckRequest.PID is required")
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	var out PlayerCheck
	if err := c.do(ctx, request{method: http.MethodPost, path: "/players/check", body: body}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
