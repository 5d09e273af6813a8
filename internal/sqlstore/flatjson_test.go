package sqlstore

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// TestFlatJSONTakesOrderEvents: the data of an order's events, cancelled
// with an error or not, goes the direct way both ways (else the shortcut
// would quietly do nothing), and reads back as encoding/json reads it.
func TestFlatJSONTakesOrderEvents(t *testing.T) {
	at := time.UnixMilli(1_790_000_000_000).UTC()
	o := topupd.Order{Seq: 7, ID: "ord_1", AccountID: "acc_1", TrxID: "T-1", PID: "uc60", Slug: "pubg", Provider: "upstream",
		Upstream: "up-1", Status: topupd.StatusCancelled, Amount: topupd.USD(1) + 2500, Refunded: true, Error: "INVALID PLAYER",
		CreatedAt: at, FinishedAt: at.Add(time.Second), Sandbox: true}
	for _, e := range []topupd.Event{orderEvent(topupd.OrderPlaced, &o, at, nil), orderEvent(topupd.OrderCancelled, &o, at, map[string]any{"by": "sim"})} {
		got, ok := appendFlatJSON(nil, e.Data)
		if !ok {
			t.Fatalf("%s: the data took the slow way: %v", e.Type, e.Data)
		}
		want, _ := json.Marshal(e.Data)
		if string(got) != string(want) {
			t.Errorf("%s: wrote %s, encoding/json %s", e.Type, got, want)
		}
		m, ok := parseFlatJSON(got)
		if !ok {
			t.Fatalf("%s: %s read the slow way", e.Type, got)
		}
		var std map[string]any
		if err := json.Unmarshal(got, &std); err != nil || !reflect.DeepEqual(m, std) {
			t.Errorf("%s: read %v, encoding/json %v (%v)", e.Type, m, std, err)
		}
	}
}

// TestParseFlatJSON: what the direct reader takes (white space as
// PostgreSQL's jsonb writes it too), and what it leaves to encoding/json.
func TestParseFlatJSON(t *testing.T) {
	for _, c := range []struct {
		in   string
		flat bool
	}{
		{`{}`, true},
		{` { } `, true},
		{`{"a": 1, "b": "x", "c": true, "d": null, "e": -0.5e+3}`, true},
		{`{"a":1,"a":2}`, true},
		{`{"a":"\u00e9"}`, false},
		{`{"a":"é"}`, false},
		{`{"a":{"b":1}}`, false},
		{`{"a":[1]}`, false},
		{`{"a":01}`, false},
		{`{"a":1.}`, false},
		{`{"a":1e999}`, false},
		{`{"a":1,}`, false},
		{`{"a":1} x`, false},
		{`null`, false},
		{`[]`, false},
		{`{"a":tru}`, false},
	} {
		m, ok := parseFlatJSON([]byte(c.in))
		if ok != c.flat {
			t.Errorf("%s: direct %v, want %v", c.in, ok, c.flat)
		}
		if ok {
			var std map[string]any
			if err := json.Unmarshal([]byte(c.in), &std); err != nil || !reflect.DeepEqual(m, std) {
				t.Errorf("%s: read %v, encoding/json %v (%v)", c.in, m, std, err)
			}
		}
	}
}

// FuzzFlatJSON holds the direct writer and reader to encoding/json: what
// the reader takes, encoding/json reads as the same map; what the writer
// takes, encoding/json writes as the same bytes; a map of plain strings,
// integers, amounts and flags always goes the direct way.
func FuzzFlatJSON(f *testing.F) {
	f.Add([]byte(`{"amountUsd":1.25,"orderId":"ord_1","refunded":false}`), "orderId", "ord_1", int64(12500), true)
	f.Add([]byte(` {"a" : -0.0e-1 , "b":null} `), "a<b", "x\"y", int64(-1), false)
	f.Add([]byte(`{"a":"\n"}`), "", "é", int64(0), true)
	f.Fuzz(func(t *testing.T, data []byte, key, s string, n int64, b bool) {
		if m, ok := parseFlatJSON(data); ok {
			var std map[string]any
			if err := json.Unmarshal(data, &std); err != nil {
				t.Fatalf("%q: read directly, but encoding/json says %v", data, err)
			}
			if !reflect.DeepEqual(m, std) {
				t.Fatalf("%q: read %v, encoding/json %v", data, m, std)
			}
		}
		m := map[string]any{key: s, "n": n, "i": int(n), "amountUsd": topupd.Money(n), "b": b, "nil": nil}
		got, ok := appendFlatJSON(nil, m)
		plain := true // key may be one of the others, s then gone
		for k, v := range m {
			vs, _ := v.(string)
			plain = plain && plainJSON(k) && plainJSON(vs)
		}
		if ok != plain {
			t.Fatalf("%v: direct %v, want %v", m, ok, plain)
		}
		if !ok {
			return
		}
		want, err := json.Marshal(m)
		if err != nil || string(got) != string(want) {
			t.Fatalf("%v: wrote %s, encoding/json %s (%v)", m, got, want, err)
		}
		var dst map[string]any
		if err := unmarshalMap(got, &dst); err != nil {
			t.Fatalf("%s: %v", got, err)
		}
		var std map[string]any
		if err := json.Unmarshal(got, &std); err != nil || !reflect.DeepEqual(dst, std) {
			t.Fatalf("%s: read %v, encoding/json %v (%v)", got, dst, std, err)
		}
	})
}

// BenchmarkEventJSON writes and reads an order event's data, the direct
// way and through encoding/json.
func BenchmarkEventJSON(b *testing.B) {
	at := time.UnixMilli(1_790_000_000_000).UTC()
	o := topupd.Order{Seq: 7, ID: "ord_01JD8Y3Q4V5W6X7Y8Z9A0B1C2D", AccountID: "acc_1", TrxID: "shop-000123", PID: "uc60", Slug: "pubg",
		Provider: "sim", Status: topupd.StatusCompleted, Amount: topupd.USD(1), CreatedAt: at, FinishedAt: at}
	data := orderEvent(topupd.OrderCompleted, &o, at, nil).Data
	text := []byte(jsonText(data))
	b.Run("write/direct", func(b *testing.B) {
		for b.Loop() {
			appendFlatJSON(nil, data)
		}
	})
	b.Run("write/encoding-json", func(b *testing.B) {
		for b.Loop() {
			json.Marshal(data)
		}
	})
	b.Run("read/direct", func(b *testing.B) {
		for b.Loop() {
			var m map[string]any
			unmarshalMap(text, &m)
		}
	})
	b.Run("read/encoding-json", func(b *testing.B) {
		for b.Loop() {
			var m map[string]any
			json.Unmarshal(text, &m)
		}
	})
}
