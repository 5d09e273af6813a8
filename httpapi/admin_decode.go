package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// object is a decoded admin request body whose fields are taken one by one;
// a field left over at the end is a typo, refused as EInvalidBody.
type object struct {
	m   map[string]json.RawMessage
	err error
}

// readAdminObject reads an admin body; an empty body is an empty object.
func readAdminObject(r *http.Request) (*object, error) {
	if r.ContentLength == 0 {
		return &object{m: map[string]json.RawMessage{}}, nil
	}
	m, err := readObject(r)
	if err != nil {
		if topupd.CodeOf(err) == topupd.EInvalidJSON {
			return nil, topupd.Errorf(topupd.EInvalidBody, "the body is not valid JSON")
		}
		return nil, err
	}
	return &object{m: m}, nil
}

// take removes a field and decodes it into dst; it reports whether the field
// was present and not null.
func (o *object) take(name string, dst any) bool {
	raw, ok := o.m[name]
	if !ok {
		return false
	}
	delete(o.m, name)
	if o.err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return false
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		o.err = topupd.Errorf(topupd.EInvalidBody, "%s: %v", name, strings.TrimPrefix(err.Error(), "json: "))
		return false
	}
	return true
}

// has reports whether a field is present, even as null.
func (o *object) has(name string) bool {
	_, ok := o.m[name]
	return ok
}

// done reports the first decoding error, or any field nobody took.
func (o *object) done() error {
	if o.err != nil {
		return o.err
	}
	if len(o.m) > 0 {
		names := make([]string, 0, len(o.m))
		for k := range o.m {
			names = append(names, k)
		}
		sort.Strings(names)
		return topupd.Errorf(topupd.EInvalidBody, "unknown fields: %s", strings.Join(names, ", "))
	}
	return nil
}

// money takes a JSON number of USD exactly.
func (o *object) money(name string) (topupd.Money, bool) {
	var raw json.RawMessage
	if !o.take(name, &raw) {
		return 0, false
	}
	m, err := topupd.ParseMoney(string(bytes.TrimSpace(raw)))
	if err != nil && o.err == nil {
		o.err = topupd.Errorf(topupd.EInvalidBody, "%s: %v", name, err)
		return 0, false
	}
	return m, err == nil
}

// accountPatch takes the account flags of a PATCH (or a POST's extras).
func (o *object) accountPatch() topupd.AccountPatch {
	var p topupd.AccountPatch
	var name string
	if o.take("name", &name) {
		p.Name = &name
	}
	for _, f := range []struct {
		name string
		dst  **bool
	}{{"apiEnabled", &p.APIEnabled}, {"adminDisabled", &p.AdminDisabled}, {"banned", &p.Banned}, {"ipAllowlistRequired", &p.IPAllowlistRequired}} {
		var b bool
		if o.take(f.name, &b) {
			*f.dst = &b
		}
	}
	if o.has("restrictedUntil") {
		var t time.Time
		var until *time.Time
		if o.take("restrictedUntil", &t) {
			until = &t
		}
		p.RestrictedUntil = &until
	}
	if o.has("ipAllowlist") {
		list := []string{}
		o.take("ipAllowlist", &list)
		p.IPAllowlist = &list
	}
	if o.has("tier") {
		var tier *string
		var name string
		if o.take("tier", &name) {
			tier = &name
		}
		p.Tier = &tier
	}
	for _, l := range topupd.LimitSettings {
		if m := o.optionalMoney(l.Name); m != nil {
			if p.Limits == nil {
				p.Limits = topupd.LimitsPatch{}
			}
			p.Limits[l.Name] = *m
		}
	}
	return p
}

// optionalMoney takes an amount that may be null: nil when the body does
// not send it, a pointer to nil when it sends null.
func (o *object) optionalMoney(name string) **topupd.Money {
	if !o.has(name) {
		return nil
	}
	var m *topupd.Money
	if v, ok := o.money(name); ok {
		m = &v
	}
	return &m
}

// options takes serverIdOptions or regionOptions: strings, or {value, label} objects.
func (o *object) options(name string) []topupd.Option {
	var raw []json.RawMessage
	if !o.take(name, &raw) {
		return nil
	}
	out := make([]topupd.Option, 0, len(raw))
	for _, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil {
			out = append(out, topupd.Option{Value: s, Label: s})
			continue
		}
		var opt topupd.Option
		if err := json.Unmarshal(r, &opt); err != nil || opt.Value == "" {
			if o.err == nil {
				o.err = topupd.Errorf(topupd.EInvalidBody, "%s: strings or {value, label} objects", name)
			}
			return nil
		}
		if opt.Label == "" {
			opt.Label = opt.Value
		}
		out = append(out, opt)
	}
	return out
}

// suppliers takes a pack's supplier list: {provider, upstream?, upstreamPid?,
// costUsd?} objects, with no other fields; null or [] is no list.
func (o *object) suppliers(name string) []topupd.Supplier {
	var raw []json.RawMessage
	if !o.take(name, &raw) {
		return nil
	}
	out := make([]topupd.Supplier, 0, len(raw))
	for i, r := range raw {
		s, err := decodeStrict[topupd.Supplier](r, fmt.Sprintf("%s[%d]", name, i))
		if err != nil {
			if o.err == nil {
				o.err = err
			}
			return nil
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// decodeStrict reads one JSON object into T, refusing unknown fields
// (INVALID_BODY naming field).
func decodeStrict[T any](raw json.RawMessage, field string) (T, error) {
	var v T
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return v, topupd.Errorf(topupd.EInvalidBody, "%s: %v", field, strings.TrimPrefix(err.Error(), "json: "))
	}
	return v, nil
}
