package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/topupd/topupd/api"
)

// load reads and validates one document as OpenAPI 3.1.
func load(t *testing.T, name string, data []byte) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatalf("%s: loading: %v", name, err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("%s: openapi is %q, want 3.1.0", name, doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("%s: invalid: %v", name, err)
	}
	return doc
}

func TestDocumentsValidate(t *testing.T) {
	load(t, "reseller.yaml", api.ResellerYAML())
	load(t, "admin.yaml", api.AdminYAML())
}

func TestResellerJSON(t *testing.T) {
	b, err := api.ResellerJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) {
		t.Fatal("ResellerJSON is not valid JSON")
	}
	fromJSON := load(t, "ResellerJSON", b)
	fromYAML := load(t, "reseller.yaml", api.ResellerYAML())
	if got, want := fromJSON.Paths.InMatchingOrder(), fromYAML.Paths.InMatchingOrder(); !slices.Equal(got, want) {
		t.Errorf("ResellerJSON paths %v, reseller.yaml paths %v", got, want)
	}
	j, err := fromJSON.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	y, err := fromYAML.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(j, y) {
		t.Error("ResellerJSON loads to a document other than reseller.yaml's")
	}
	// Callers get copies: changing one changes nothing.
	b[0] = 'x'
	if again, _ := api.ResellerJSON(); again[0] != '{' {
		t.Error("ResellerJSON hands out its own bytes")
	}
}

// TestResponseObjectsClosed checks that every object schema of a response
// lists its properties and refuses others, so that drift is caught.
func TestResponseObjectsClosed(t *testing.T) {
	for name, data := range map[string][]byte{"reseller.yaml": api.ResellerYAML(), "admin.yaml": api.AdminYAML()} {
		doc := load(t, name, data)
		seen := map[*openapi3.Schema]bool{}
		var walk func(where string, s *openapi3.SchemaRef)
		walk = func(where string, s *openapi3.SchemaRef) {
			if s == nil || s.Value == nil || seen[s.Value] {
				return
			}
			v := s.Value
			seen[v] = true
			if len(v.Properties) > 0 && v.AdditionalProperties.Has == nil && v.AdditionalProperties.Schema == nil {
				t.Errorf("%s: %s: an object schema without additionalProperties", name, where)
			}
			if v.AdditionalProperties.Has != nil && *v.AdditionalProperties.Has {
				t.Errorf("%s: %s: additionalProperties is true", name, where)
			}
			for p, ps := range v.Properties {
				walk(where+"."+p, ps)
			}
			walk(where+"[]", v.Items)
			for i, group := range [][]*openapi3.SchemaRef{v.AllOf, v.OneOf, v.AnyOf} {
				for j, sub := range group {
					// An allOf branch that narrows its sibling lists no properties of its own.
					if i == 0 && sub.Ref == "" && sub.Value != nil && v.Type == nil {
						for p, ps := range sub.Value.Properties {
							walk(where+".allOf."+p, ps)
						}
						continue
					}
					walk(where+"/"+string(rune('a'+i))+string(rune('0'+j)), sub)
				}
			}
		}
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				for status, r := range op.Responses.Map() {
					for _, mt := range r.Value.Content {
						if path == "/openapi.json" {
							continue // the document itself, an open object
						}
						walk(method+" "+path+" "+status, mt.Schema)
					}
				}
			}
		}
	}
}

// TestStrict checks that the documents refuse answers the server must not
// give: an unknown field, a missing field, money as a string.
func TestStrict(t *testing.T) {
	reseller := load(t, "reseller.yaml", api.ResellerYAML())
	admin := load(t, "admin.yaml", api.AdminYAML())
	order := `"orderCreated":true,"orderId":"ord_1","trxid":"t1","status":"completed","game":"pubg","pid":"pubg-60",` +
		`"packName":"60 UC","quantity":1,"amountUsd":0.89,"durationSec":0,"userId":"5123456789","createdAt":"2026-01-02T03:04:05.678Z"`
	cancelled := strings.Replace(order, `"status":"completed"`, `"status":"cancelled"`, 1)
	for _, c := range []struct {
		name   string
		doc    *openapi3.T
		method string
		path   string
		status int
		body   string
		ok     bool
	}{
		{"balance", reseller, "GET", "/balance", 200, `{"success":true,"balanceUsd":1000,"currency":"USD"}`, true},
		{"balance as a string", reseller, "GET", "/balance", 200, `{"success":true,"balanceUsd":"1000","currency":"USD"}`, false},
		{"balance with an extra field", reseller, "GET", "/balance", 200, `{"success":true,"balanceUsd":1,"currency":"USD","x":1}`, false},
		{"balance without currency", reseller, "GET", "/balance", 200, `{"success":true,"balanceUsd":1}`, false},
		{"order", reseller, "POST", "/orders", 200, `{"success":true,` + order + `,"idempotentReplay":false}`, true},
		{"order without idempotentReplay", reseller, "POST", "/orders", 200, `{"success":true,` + order + `}`, false},
		{"order with refunded", reseller, "POST", "/orders", 200, `{"success":true,` + order + `,"idempotentReplay":false,"refunded":true}`, false},
		{"cancelled order", reseller, "POST", "/orders", 200, `{"success":true,` + cancelled + `,"idempotentReplay":false,"refunded":true}`, true},
		{"cancelled order without refunded", reseller, "POST", "/orders", 200, `{"success":true,` + cancelled + `,"idempotentReplay":false}`, false},
		{"cancelled order on GET", reseller, "GET", "/orders/ord_1", 200, `{"success":true,` + cancelled + `,"refunded":false}`, true},
		{"history item cancelled without refunded", reseller, "GET", "/history", 200, `{"success":true,"count":1,"orders":[{` + cancelled + `}]}`, false},
		{"rejected order", reseller, "POST", "/orders", 400, `{"success":false,"orderCreated":false,"status":"cancelled","game":"pubg","error":"INSUFFICIENT BALANCE","code":"INSUFFICIENT_BALANCE","retryable":false}`, true},
		{"failed order", reseller, "POST", "/orders", 400, `{"success":false,"code":"UNKNOWN_PID","error":"UNKNOWN PID","retryable":false}`, true},
		{"failed order without retryable", reseller, "POST", "/orders", 400, `{"success":false,"code":"UNKNOWN_PID","error":"UNKNOWN PID"}`, false},
		{"invalid JSON", reseller, "POST", "/orders", 401, `{"success":false,"error":"INVALID JSON","retryable":false}`, true},
		{"failure with an extra field", reseller, "GET", "/balance", 401, `{"success":false,"code":"INVALID_API_KEY","error":"INVALID_API_KEY","x":1}`, false},
		{"history item with success", reseller, "GET", "/history", 200, `{"success":true,"count":1,"orders":[{"success":true,` + order + `}]}`, false},
		{"admin order page", admin, "GET", "/admin/orders", 200, `{"success":true,"count":0,"orders":[],"nextCursor":null}`, true},
		{"admin order page without a cursor", admin, "GET", "/admin/orders", 200, `{"success":true,"count":0,"orders":[]}`, false},
		{"admin failure without a code", admin, "GET", "/admin/settings", 401, `{"success":false,"error":"UNAUTHORIZED"}`, false},
		{"settings", admin, "GET", "/admin/settings", 200, `{"maintenance":false,"ordersDisabled":false,"eligibilityMinTopupUsd":0,"simDelayMs":0,"simCallMs":0,"upstreamBalancePollMinutes":5,"reconcileAt":"03:00","depositBank":null,"depositTicketHours":24,"depositSecondApprovalAboveUsd":1000,"holdAbovePercent":10,"disputeWindowDays":7,"disputeAnswerHours":48}`, true},
		{"settings with money as a string", admin, "GET", "/admin/settings", 200, `{"maintenance":false,"ordersDisabled":false,"eligibilityMinTopupUsd":"0","simDelayMs":0,"simCallMs":0,"upstreamBalancePollMinutes":5,"reconcileAt":"03:00","depositBank":null,"depositTicketHours":24,"depositSecondApprovalAboveUsd":1000,"holdAbovePercent":10,"disputeWindowDays":7,"disputeAnswerHours":48}`, false},
	} {
		err := validateResponse(t, c.doc, c.method, c.path, c.status, c.body)
		if c.ok && err != nil {
			t.Errorf("%s: refused: %v", c.name, err)
		}
		if !c.ok && err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
}

// validateResponse validates one JSON answer to a request against a document.
func validateResponse(t *testing.T, doc *openapi3.T, method, path string, status int, body string) error {
	t.Helper()
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(method, path, nil)
	route, params, err := router.FindRoute(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts},
		Status:                 status,
		Header:                 http.Header{"Content-Type": {"application/json"}, "Retry-After": {"1"}},
		Body:                   io.NopCloser(strings.NewReader(body)),
		Options:                opts,
	}
	return openapi3filter.ValidateResponse(context.Background(), in)
}
