package api_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/topupd/topupd/api"
)

// schemaVisit calls f on every schema of a document that a code generator
// turns into a type: those of components, parameters, request bodies and
// answers, and those inside them (properties, items, additional
// properties, allOf, oneOf and anyOf members). The validation-only
// keywords (not, if, then, else) are not entered: generators skip them.
func schemaVisit(doc *openapi3.T, f func(where string, s *openapi3.Schema)) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(where string, ref *openapi3.SchemaRef)
	walk = func(where string, ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		f(where, s)
		for _, p := range slices.Sorted(func(yield func(string) bool) {
			for k := range s.Properties {
				if !yield(k) {
					return
				}
			}
		}) {
			walk(where+"."+p, s.Properties[p])
		}
		walk(where+"[]", s.Items)
		walk(where+".additionalProperties", s.AdditionalProperties.Schema)
		for name, group := range map[string][]*openapi3.SchemaRef{"allOf": s.AllOf, "oneOf": s.OneOf, "anyOf": s.AnyOf} {
			for i, m := range group {
				walk(fmt.Sprintf("%s.%s[%d]", where, name, i), m)
			}
		}
	}
	for name, s := range doc.Components.Schemas {
		walk("schemas."+name, s)
	}
	for name, p := range doc.Components.Parameters {
		walk("parameters."+name, p.Value.Schema)
	}
	for name, r := range doc.Components.Responses {
		for _, mt := range r.Value.Content {
			walk("responses."+name, mt.Schema)
		}
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for _, p := range append(item.Parameters, op.Parameters...) {
				walk(method+" "+path+" "+p.Value.Name, p.Value.Schema)
			}
			if op.RequestBody != nil {
				for _, mt := range op.RequestBody.Value.Content {
					walk(method+" "+path+" body", mt.Schema)
				}
			}
			for status, r := range op.Responses.Map() {
				for _, mt := range r.Value.Content {
					walk(method+" "+path+" "+status, mt.Schema)
				}
			}
		}
	}
}

// TestGeneratorConventions checks the conventions written at the top of
// both documents, which code generators (oapi-codegen, openapi-typescript;
// .ci/generate runs them) need to give every field a real type:
//   - every schema states its type, unless it is a composition (allOf,
//     oneOf, anyOf): an enum or a const too;
//   - a type is one JSON type, or one and "null"; an enum never lists null;
//   - every number is a double (money is Usd: generated Go gets float64,
//     not float32);
//   - an inline allOf member is an object, and the first member of an
//     allOf is a $ref (the type it narrows);
//   - an answer (components/responses) has a schema's name only when it
//     is that schema.
func TestGeneratorConventions(t *testing.T) {
	for name, data := range map[string][]byte{"reseller.yaml": api.ResellerYAML(), "admin.yaml": api.AdminYAML()} {
		doc := load(t, name, data)
		count := 0
		schemaVisit(doc, func(where string, s *openapi3.Schema) {
			count++
			composed := len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) > 0
			if s.Type == nil || len(s.Type.Slice()) == 0 {
				if !composed {
					t.Errorf("%s: %s: a schema without a type", name, where)
				}
				return
			}
			var kinds []string
			for _, k := range s.Type.Slice() {
				if k != "null" {
					kinds = append(kinds, k)
				}
			}
			if len(kinds) != 1 {
				t.Errorf("%s: %s: type %v: want one type, or one and \"null\"", name, where, s.Type.Slice())
			}
			if slices.Contains(s.Enum, nil) {
				t.Errorf("%s: %s: an enum lists null (generated Go gets a constant \"<nil>\")", name, where)
			}
			if s.Type.Includes("number") && s.Format != "double" {
				t.Errorf("%s: %s: a number with format %q, want double", name, where, s.Format)
			}
			for i, m := range s.AllOf {
				if i == 0 && m.Ref == "" {
					t.Errorf("%s: %s: allOf[0] is inline, want the $ref it narrows", name, where)
				}
				if i > 0 && m.Ref == "" && (m.Value.Type == nil || !m.Value.Type.Is("object")) {
					t.Errorf("%s: %s: allOf[%d] is not type: object", name, where, i)
				}
			}
		})
		if count < 50 {
			t.Errorf("%s: only %d schemas visited", name, count)
		}
		for r, resp := range doc.Components.Responses {
			if _, clash := doc.Components.Schemas[r]; !clash {
				continue
			}
			for _, mt := range resp.Value.Content {
				if mt.Schema == nil || mt.Schema.Ref != "#/components/schemas/"+r {
					t.Errorf("%s: the response %s has the name of a schema it is not (generated types clash)", name, r)
				}
			}
		}
	}
}
