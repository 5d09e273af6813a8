// Package api holds the OpenAPI documents of the reseller and admin APIs, embedded.
package api

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

//go:embed reseller.yaml
var resellerYAML []byte

//go:embed admin.yaml
var adminYAML []byte

// ResellerYAML returns a copy of the reseller API's OpenAPI 3.1 document, in YAML.
func ResellerYAML() []byte { return bytes.Clone(resellerYAML) }

// AdminYAML returns a copy of the admin API's OpenAPI 3.1 document, in YAML.
func AdminYAML() []byte { return bytes.Clone(adminYAML) }

// resellerJSON converts the reseller document once.
var resellerJSON = sync.OnceValues(func() ([]byte, error) { return yamlToJSON(resellerYAML) })

// ResellerJSON returns a copy of the reseller API's OpenAPI document converted to JSON, for GET /openapi.json.
func ResellerJSON() ([]byte, error) {
	b, err := resellerJSON()
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil
}

// yamlToJSON converts a YAML document to JSON: mapping keys become strings,
// and a value JSON cannot hold (such as .nan) is an error.
func yamlToJSON(doc []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		return nil, fmt.Errorf("api: decoding YAML: %w", err)
	}
	v, err := jsonValue(v)
	if err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("api: encoding JSON: %w", err)
	}
	return b, nil
}

// jsonValue rewrites a decoded YAML value into one encoding/json can
// marshal: maps keyed by strings, timestamps as RFC 3339 text.
func jsonValue(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			e, err := jsonValue(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			v[k] = e
		}
		return v, nil
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			var key string
			switch k := k.(type) {
			case string:
				key = k
			case int, int64, uint64, float64, bool:
				key = fmt.Sprint(k)
			default:
				return nil, fmt.Errorf("a mapping key of type %T", k)
			}
			if _, dup := out[key]; dup {
				return nil, fmt.Errorf("mapping key %q twice", key)
			}
			e, err := jsonValue(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			out[key] = e
		}
		return out, nil
	case []any:
		for i, e := range v {
			e, err := jsonValue(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			v[i] = e
		}
		return v, nil
	case time.Time:
		return v.Format(time.RFC3339Nano), nil
	}
	return v, nil
}
