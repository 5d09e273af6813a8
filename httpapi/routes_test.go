package httpapi

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/topupd/topupd/api"
	"github.com/topupd/topupd/internal/metrics"
)

// recorder is a router that keeps the patterns registered on it.
type recorder struct{ patterns []string }

func (r *recorder) Handle(pattern string, _ http.Handler) { r.patterns = append(r.patterns, pattern) }

func (r *recorder) HandleFunc(pattern string, _ func(http.ResponseWriter, *http.Request)) {
	r.patterns = append(r.patterns, pattern)
}

// operations returns a document's operations as "METHOD /path", the
// shape of the route patterns.
func operations(t *testing.T, name string, yaml []byte) []string {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(yaml)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, method+" "+path)
		}
	}
	slices.Sort(out)
	return out
}

// undocumented are routes served on purpose without an operation in
// their API's document. The operations paths (/metrics, /livez, /readyz)
// and the profiles (/admin/debug/pprof/…) are in admin.yaml. The console
// is not a route of either API: internal/app serves it under /console/
// beside the admin API, and its pages are tested in console/.
var undocumented = map[string]string{
	"GET /orders/{$}": "an empty order id; reseller.yaml documents its answer under GET /orders/{orderId}",
	"/orders":         "every method but POST, answered 405 as the mux would; it keeps the mux from redirecting GET /orders to GET /orders/",
}

// unserved are operations a document lists that no route pattern names
// as such, each with the pattern that serves it.
var unserved = map[string]string{
	// The index's subtree serves every named profile (heap, goroutine,
	// allocs, …); the document names them with a path parameter.
	"GET /admin/debug/pprof/{name}": "GET /admin/debug/pprof/",
}

// TestRoutesDocumented: every route the reseller and the admin API
// register (recorded from the very functions NewReseller and NewAdmin
// register them with) is an operation of its OpenAPI document, with the
// same method, path and path parameters, and every operation of a
// document is a route of its API; the exceptions are listed above, and
// each must still be one.
func TestRoutesDocumented(t *testing.T) {
	var res, adm recorder
	(&reseller{}).routes(&res)
	// With metrics, as internal/app builds it: /metrics is registered only then.
	(&admin{AdminDeps: AdminDeps{Metrics: metrics.New(nil, time.Now)}}).routes(&adm)
	for _, c := range []struct {
		doc    string
		yaml   []byte
		served []string
	}{
		{"reseller.yaml", api.ResellerYAML(), res.patterns},
		{"admin.yaml", api.AdminYAML(), adm.patterns},
	} {
		documented := operations(t, c.doc, c.yaml)
		for _, r := range c.served {
			if _, listed := undocumented[r]; !listed && (strings.Count(r, " ") != 1 || !strings.HasPrefix(strings.SplitN(r, " ", 2)[1], "/")) {
				t.Errorf("route %q: want a pattern of a method and a path, as the documents name operations", r)
			}
			why, allowed := undocumented[r]
			switch in := slices.Contains(documented, r); {
			case !in && !allowed:
				t.Errorf("%s has no operation for the route %s: document it (or list it in undocumented, saying why)", c.doc, r)
			case in && allowed:
				t.Errorf("%s documents %s, listed as undocumented (%s): take it off the list", c.doc, r, why)
			}
		}
		for _, op := range documented {
			by, allowed := unserved[op]
			switch in := slices.Contains(c.served, op); {
			case !in && !allowed:
				t.Errorf("%s documents %s, which no route serves", c.doc, op)
			case in && allowed:
				t.Errorf("%s is served as such: take it off unserved", op)
			case allowed && !slices.Contains(c.served, by):
				t.Errorf("%s: listed as served by %s, which is not a route", op, by)
			}
		}
	}
	for _, routes := range [][]string{res.patterns, adm.patterns} {
		if len(routes) == 0 {
			t.Error("an API registered no routes on the recorder")
		}
	}
}
