package topupdtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/topupd/topupd/api"
	"github.com/topupd/topupd/internal/statuswriter"
)

// document is one loaded OpenAPI document and its router.
type document struct {
	name   string
	doc    *openapi3.T
	router routers.Router
}

// documents loads and validates both documents once per test binary.
var documents = sync.OnceValues(func() ([2]*document, error) {
	var out [2]*document
	for i, d := range []struct {
		name string
		data []byte
	}{{"api/reseller.yaml", api.ResellerYAML()}, {"api/admin.yaml", api.AdminYAML()}} {
		doc, err := openapi3.NewLoader().LoadFromData(d.data)
		if err != nil {
			return out, fmt.Errorf("%s: %w", d.name, err)
		}
		if err := doc.Validate(context.Background()); err != nil {
			return out, fmt.Errorf("%s: %w", d.name, err)
		}
		r, err := legacy.NewRouter(doc)
		if err != nil {
			return out, fmt.Errorf("%s: %w", d.name, err)
		}
		out[i] = &document{name: d.name, doc: doc, router: r}
	}
	return out, nil
})

// checker checks every answer of one server's two APIs against their
// documents. It sits between the app's handlers and the network, so that
// it sees every answer the app gives, to any client, and none of those a
// test injects in front of them.
type checker struct {
	tb                    testing.TB
	resellerDoc, adminDoc *document

	mu       sync.Mutex
	failures []string
	checked  int
}

func newChecker(tb testing.TB) *checker {
	docs, err := documents()
	if err != nil {
		tb.Fatalf("topupdtest: the OpenAPI documents: %v", err)
	}
	return &checker{tb: tb, resellerDoc: docs[0], adminDoc: docs[1]}
}

// reseller wraps the reseller API's handler.
func (c *checker) reseller(next http.Handler) http.Handler { return c.wrap(c.resellerDoc, next) }

// admin wraps the admin API's handler.
func (c *checker) admin(next http.Handler) http.Handler { return c.wrap(c.adminDoc, next) }

// wrap passes every request to next and copies its answer as it goes out;
// once next returns, the answer is checked against d.
func (c *checker) wrap(d *document, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tee := &teeWriter{Writer: statuswriter.Writer{ResponseWriter: w}}
		next.ServeHTTP(tee, r)
		if tee.Status == 0 {
			tee.Status = http.StatusOK
		}
		resp := &http.Response{StatusCode: tee.Status, Header: w.Header().Clone()}
		if resp.Header.Get("Content-Type") == "" && tee.body.Len() > 0 {
			resp.Header.Set("Content-Type", http.DetectContentType(tee.body.Bytes())) // as net/http will
		}
		c.check(d, r, resp, tee.body.Bytes())
	})
}

// check validates one answer; a failure is remembered for report.
func (c *checker) check(d *document, req *http.Request, resp *http.Response, raw []byte) {
	err := validate(d, req, resp, raw)
	if err == nil {
		err = checkRetryable(resp.StatusCode, raw)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checked++
	if err != nil {
		c.failures = append(c.failures, fmt.Sprintf("%s %s → %d %s\n\t%s: %v", req.Method, req.URL.RequestURI(), resp.StatusCode,
			clip(raw), d.name, err))
	}
}

// report fails the test for every answer that drifted from its document.
func (c *checker) report() {
	for _, f := range c.take() {
		c.tb.Errorf("an answer does not match the OpenAPI document: %s", f)
	}
}

// take returns the failures so far and forgets them.
func (c *checker) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.failures
	c.failures = nil
	return f
}

// teeWriter writes an answer through, remembering its status, and keeps a
// copy of it.
type teeWriter struct {
	statuswriter.Writer
	body bytes.Buffer
}

// Write keeps a copy of b and sends it.
func (t *teeWriter) Write(b []byte) (int, error) {
	t.body.Write(b)
	return t.Writer.Write(b)
}

// validate checks one answer against the operation its request matches.
// A path the document does not have (a 404 or 405 test) must answer the
// document's Failure schema.
func validate(d *document, req *http.Request, resp *http.Response, raw []byte) error {
	r := req.Clone(context.Background())
	r.Body = http.NoBody
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
	route, params, err := d.router.FindRoute(r)
	if err != nil {
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
			return fmt.Errorf("no operation for the request, yet it was answered %d: %w", resp.StatusCode, err)
		}
		return validateFailure(d, raw)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Options:                opts,
	}
	in.SetBodyBytes(raw)
	return openapi3filter.ValidateResponse(context.Background(), in)
}

// checkRetryable checks the retryable of a refusal (a body with an error):
// true exactly for 429, 500, 502, 503 and 504, as integration.md has it.
func checkRetryable(status int, raw []byte) error {
	var body struct {
		Error     *string `json:"error"`
		Retryable *bool   `json:"retryable"`
	}
	if status < 300 || json.Unmarshal(raw, &body) != nil || body.Error == nil {
		return nil
	}
	want := status == 429 || status == 500 || status == 502 || status == 503 || status == 504
	if body.Retryable == nil || *body.Retryable != want {
		return fmt.Errorf("a %d refusal must carry \"retryable\": %v", status, want)
	}
	return nil
}

// validateFailure checks a body against the document's Failure schema.
func validateFailure(d *document, raw []byte) error {
	ref, ok := d.doc.Components.Schemas["Failure"]
	if !ok {
		return fmt.Errorf("%s has no Failure schema", d.name)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("the answer is not JSON: %w", err)
	}
	return ref.Value.VisitJSON(v, openapi3.EnableJSONSchema2020())
}

// clip shortens a body for a failure message.
func clip(raw []byte) string {
	s := strings.TrimSpace(string(raw))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
