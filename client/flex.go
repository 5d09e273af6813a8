package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// flexString reads a JSON string, or a JSON number as its literal text.
type flexString string

func (s *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		*s = ""
	case len(b) > 0 && b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = flexString(v)
	case len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9'):
		*s = flexString(b)
	default:
		return fmt.Errorf("client: want a string, got %.40s", b)
	}
	return nil
}

// flexMoney reads an exact amount from a JSON number or a numeric string;
// null is zero.
type flexMoney Money

func (m *flexMoney) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	text := string(b)
	switch {
	case text == "null":
		*m = 0
		return nil
	case len(b) > 0 && b[0] == '"':
		if err := json.Unmarshal(b, &text); err != nil {
			return err
		}
	}
	v, err := ParseMoney(text)
	if err != nil {
		return fmt.Errorf("client: amount %.40s: %w", b, err)
	}
	*m = flexMoney(v)
	return nil
}

// flexSeconds reads a count of seconds, whole or not (truncated); null is zero.
type flexSeconds int64

func (s *flexSeconds) UnmarshalJSON(b []byte) error {
	text := string(bytes.TrimSpace(b))
	if text == "null" {
		*s = 0
		return nil
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		*s = flexSeconds(n)
		return nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(f) || math.Abs(f) > math.MaxInt32*1000.0 {
		return fmt.Errorf("client: seconds %.40s: not a number", text)
	}
	*s = flexSeconds(f)
	return nil
}
