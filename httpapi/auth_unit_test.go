package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/ratelimit"
	"github.com/topupd/topupd/service"
)

// These tests run the reseller API's key check and the admin API's
// bearer check on fake stores, with a recorder: no database, so they run
// under -short. auth_test.go keeps the same rules end to end.

// resellerStore is the reseller API's store, and its service's, in
// memory: accounts by key, the settings, and a balance. The catalog and
// orders are not needed by these tests; their methods are the nil
// embedded interface.
type resellerStore struct {
	service.Store
	mu       sync.Mutex
	accounts map[topupd.KeyHash]topupd.Account
	settings topupd.Settings
	credited topupd.Money
	balances map[string]topupd.Money
	used     int // UseKey calls
}

func (s *resellerStore) AccountByKey(_ context.Context, h topupd.KeyHash, _ time.Time) (topupd.Account, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.accounts[h]
	if !ok {
		return a, topupd.Fail(topupd.EInvalidKey)
	}
	return a, nil
}

func (s *resellerStore) UseKey(context.Context, topupd.KeyHash, time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used++
	return nil
}

func (s *resellerStore) Settings(context.Context) (topupd.Settings, error) { return s.settings, nil }

func (s *resellerStore) CreditedTotal(context.Context, string) (topupd.Money, error) {
	return s.credited, nil
}

func (s *resellerStore) Balance(_ context.Context, accountID string) (topupd.Money, error) {
	return s.balances[accountID], nil
}

// fulfiller is a Fulfiller and a Players these tests never reach.
type fulfiller struct{}

func (fulfiller) Owner() string                      { return "unit" }
func (fulfiller) LeaseUntil(now time.Time) time.Time { return now.Add(time.Minute) }
func (fulfiller) Attempt(_ context.Context, o topupd.Order, _ time.Duration) topupd.Order {
	return o
}
func (fulfiller) Answered(context.Context, topupd.Order) {}
func (fulfiller) CheckPlayer(context.Context, []topupd.Supplier, topupd.AccountFields) (topupd.PlayerCheck, error) {
	return topupd.PlayerCheck{}, nil
}

// answer is the part of a JSON answer these tests check.
type answer struct {
	Status     int
	Code       string
	Error      string
	BalanceUsd string
}

// do serves one request and reads its answer.
func do(t *testing.T, h http.Handler, r *http.Request) answer {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var body struct {
		Code, Error string
		BalanceUsd  json.Number
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s %s: answer %q is not JSON: %v", r.Method, r.URL, w.Body, err)
	}
	return answer{Status: w.Code, Code: body.Code, Error: body.Error, BalanceUsd: body.BalanceUsd.String()}
}

func TestResellerKeyCheck(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	store := &resellerStore{accounts: map[topupd.KeyHash]topupd.Account{}, balances: map[string]topupd.Money{}}
	// key gives the fake an account with a key, and returns the key.
	key := func(id string, edit func(*topupd.Account)) string {
		k, h := topupd.NewAPIKey()
		a := topupd.Account{ID: id, Name: id, APIEnabled: true, CreatedAt: now}
		if edit != nil {
			edit(&a)
		}
		store.accounts[h] = a
		store.balances[id] = topupd.USD(7)
		return k
	}
	good := key("acc_good", nil)
	banned := key("acc_banned", func(a *topupd.Account) { a.Banned = true })
	adminOff := key("acc_admin_off", func(a *topupd.Account) { a.AdminDisabled = true })
	apiOff := key("acc_api_off", func(a *topupd.Account) { a.APIEnabled = false })
	later := now.Add(time.Hour)
	restricted := key("acc_restricted", func(a *topupd.Account) { a.RestrictedUntil = &later })
	// httptest's requests come from 192.0.2.1.
	listed := key("acc_listed", func(a *topupd.Account) { a.IPAllowlist = []string{"203.0.113.9", "192.0.2.0/24"} })
	unlisted := key("acc_unlisted", func(a *topupd.Account) { a.IPAllowlist = []string{"203.0.113.9", "198.51.100.0/24"} })
	required := key("acc_required", func(a *topupd.Account) { a.IPAllowlistRequired = true })
	unknown, _ := topupd.NewAPIKey()

	limiter := ratelimit.NewMemory([]ratelimit.Window{{Limit: 1000, Period: time.Minute}}, func() time.Time { return now })
	svc, err := service.New(service.Deps{Store: store, Now: func() time.Time { return now }, Fulfiller: fulfiller{}, Players: fulfiller{}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := httpapi.NewReseller(httpapi.Deps{Store: store, Service: svc, Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return now },
		Limiter: limiter, Orders: ratelimit.NewMemoryOrders(limiter, func() time.Time { return now })})
	if err != nil {
		t.Fatal(err)
	}
	admitted := answer{Status: 200, BalanceUsd: "7"}
	refused := func(status int, code topupd.ErrorCode) answer {
		return answer{Status: status, Code: string(code), Error: code.Message()}
	}
	tests := []struct {
		name   string
		header map[string]string
		want   answer
	}{
		{"no key", nil, refused(401, topupd.EMissingKey)},
		{"malformed key", map[string]string{"X-API-Key": "tpd_abc"}, refused(401, topupd.EKeyFormat)},
		{"a key in the wrong scheme", map[string]string{"Authorization": "Basic " + good}, refused(401, topupd.EKeyFormat)},
		{"unknown key", map[string]string{"X-API-Key": unknown}, refused(401, topupd.EInvalidKey)},
		{"banned", map[string]string{"X-API-Key": banned}, refused(403, topupd.EBanned)},
		{"API disabled by an admin", map[string]string{"X-API-Key": adminOff}, refused(403, topupd.EAPIDisabledByAdmin)},
		{"API disabled", map[string]string{"X-API-Key": apiOff}, refused(403, topupd.EAPIDisabled)},
		{"restricted", map[string]string{"X-API-Key": restricted}, refused(403, topupd.ERestricted)},
		{"IP outside the allow-list", map[string]string{"X-API-Key": unlisted}, refused(403, topupd.EIPNotAllowed)},
		{"allow-list required and empty", map[string]string{"X-API-Key": required}, refused(403, topupd.EAllowlistRequired)},
		{"IP in the allow-list", map[string]string{"X-API-Key": listed}, admitted},
		{"good key", map[string]string{"X-API-Key": good}, admitted},
		{"good key as bearer", map[string]string{"Authorization": "bearer " + good}, admitted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/balance", nil)
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			if diff := cmp.Diff(tt.want, do(t, h, r)); diff != "" {
				t.Errorf("GET /balance (-want +got):\n%s", diff)
			}
		})
	}

	// The settings' eligibility rule: an account credited less than the
	// minimum is refused.
	store.settings.EligibilityMinTopup = topupd.USD(10)
	store.credited = topupd.USD(10) - 1
	r := httptest.NewRequest("GET", "/balance", nil)
	r.Header.Set("X-API-Key", good)
	if diff := cmp.Diff(refused(403, topupd.ENotEligible), do(t, h, r)); diff != "" {
		t.Errorf("credited below the minimum (-want +got):\n%s", diff)
	}
	store.credited = topupd.USD(10)
	r = httptest.NewRequest("GET", "/balance", nil)
	r.Header.Set("X-API-Key", good)
	if diff := cmp.Diff(admitted, do(t, h, r)); diff != "" {
		t.Errorf("credited the minimum (-want +got):\n%s", diff)
	}
}

// adminStore is the admin API's store in memory: operators by token.
type adminStore struct {
	mu    sync.Mutex
	ops   map[topupd.KeyHash]topupd.Operator
	seen  []string
	down  bool // OperatorByToken fails as a database down does
	audit topupd.Audit
}

var _ httpapi.AdminStore = (*adminStore)(nil)

func (s *adminStore) OperatorByToken(_ context.Context, h topupd.KeyHash) (topupd.Operator, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return topupd.Operator{}, errors.New("database is down")
	}
	op, ok := s.ops[h]
	if !ok {
		return op, topupd.Fail(topupd.ENotFound)
	}
	return op, nil
}

func (s *adminStore) SeeOperator(_ context.Context, name string, _ time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, name)
	return nil
}

func (s *adminStore) Ping(context.Context) error { return nil }

func (s *adminStore) Audit(context.Context, time.Time) (topupd.Audit, error) { return s.audit, nil }

func TestAdminBearerCheck(t *testing.T) {
	const root = "root-token-for-the-unit-test"
	store := &adminStore{ops: map[topupd.KeyHash]topupd.Operator{}, audit: topupd.Audit{Accounts: 3}}
	token := func(op topupd.Operator) string {
		tok, h := topupd.NewOperatorToken()
		store.ops[h] = op
		return tok
	}
	viewer := token(topupd.Operator{Name: "vic", Role: topupd.RoleViewer})
	disabled := token(topupd.Operator{Name: "dan", Role: topupd.RoleOwner, Disabled: true})
	unknown, _ := topupd.NewOperatorToken()
	// The service's store is nil: a check that let a request through to
	// an operation would panic the test.
	svc, err := service.New(service.Deps{Store: struct{ service.Store }{}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := httpapi.NewAdmin(httpapi.AdminDeps{Store: store, Service: svc, Token: root, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}

	unauthorized := answer{Status: 401, Code: string(topupd.EUnauthorized), Error: topupd.EUnauthorized.Message()}
	tests := []struct {
		name         string
		method, path string
		auth         string // the Authorization header
		want         answer
		wantSeen     []string
	}{
		{name: "no token", method: "GET", path: "/admin/audit", want: unauthorized},
		{name: "a wrong root token", method: "GET", path: "/admin/audit", auth: "Bearer " + root + "x", want: unauthorized},
		{name: "the root token in the wrong scheme", method: "GET", path: "/admin/audit", auth: "Basic " + root, want: unauthorized},
		{name: "an unknown operator token", method: "GET", path: "/admin/audit", auth: "Bearer " + unknown, want: unauthorized},
		{name: "a disabled operator's token", method: "GET", path: "/admin/audit", auth: "Bearer " + disabled, want: unauthorized},
		{name: "the root token", method: "GET", path: "/admin/audit", auth: "Bearer " + root, want: answer{Status: 200}},
		{name: "an operator's token", method: "GET", path: "/admin/audit", auth: "bearer " + viewer, want: answer{Status: 200},
			wantSeen: []string{"vic"}},
		{name: "a role without the permission", method: "POST", path: "/admin/accounts", auth: "Bearer " + viewer,
			want: answer{Status: 403, Code: string(topupd.ERoleForbidden), Error: topupd.ERoleForbidden.Message()}, wantSeen: []string{"vic"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store.seen = nil
			r := httptest.NewRequest(tt.method, tt.path, strings.NewReader("{}"))
			if tt.auth != "" {
				r.Header.Set("Authorization", tt.auth)
			}
			if diff := cmp.Diff(tt.want, do(t, h, r)); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s", tt.method, tt.path, diff)
			}
			if diff := cmp.Diff(tt.wantSeen, store.seen); diff != "" {
				t.Errorf("operators seen (-want +got):\n%s", diff)
			}
		})
	}

	// A store that cannot answer is our failure, not the caller's: 500.
	store.down = true
	r := httptest.NewRequest("GET", "/admin/audit", nil)
	r.Header.Set("Authorization", "Bearer "+viewer)
	if got := do(t, h, r); got.Status != 500 || got.Code != string(topupd.EInternal) {
		t.Errorf("with the store down: %+v, want 500 INTERNAL", got)
	}
}
