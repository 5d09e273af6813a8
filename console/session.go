package console

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/logctx"
	"github.com/topupd/topupd/service"
)

// The console's cookies, all scoped to /console/.
const (
	sessionCookie = "topupd_session"
	loginCookie   = "topupd_login" // the login form's CSRF token, before a session exists
	flashCookie   = "topupd_flash"
)

// session is a signed-in request: who, the token its forms carry, and the
// actor its operations are asked for as.
type session struct {
	op    topupd.Operator
	csrf  string
	actor service.Actor
}

// may reports whether the operator's role allows p.
func (s *session) may(p topupd.Permission) bool { return s.op.Role.May(p) }

// handler is a console page's work; an error it returns is shown as a page.
type handler func(w http.ResponseWriter, r *http.Request, s *session) error

// signedIn runs h for a signed-in operator whose role allows perm: without
// a live session it sends them to sign in; a POST must carry the session's
// CSRF token.
func (c *Console) signedIn(perm topupd.Permission, h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, ok := c.session(r)
		if !ok {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/console/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			} else {
				c.fail(w, r, nil, http.StatusUnauthorized, "Your session has ended. Sign in again.")
			}
			return
		}
		c.Seen(r.Context(), s.op.Name)
		if r.Method != http.MethodGet && !csrfOK(r, s.csrf) {
			c.fail(w, r, s, http.StatusForbidden, "This form did not come from your console session. Reload the page and try again.")
			return
		}
		if !s.may(perm) {
			c.fail(w, r, s, http.StatusForbidden, "Your role ("+string(s.op.Role)+") may not do this.")
			return
		}
		if err := h(w, r, s); err != nil {
			c.failErr(w, r, s, err)
		}
	})
}

// session finds the request's live session.
func (c *Console) session(r *http.Request) (*session, bool) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || ck.Value == "" || len(ck.Value) > 100 {
		return nil, false
	}
	cs, op, err := c.Store.Session(r.Context(), topupd.HashSecret(ck.Value), c.Now())
	if err != nil {
		if topupd.CodeOf(err) != topupd.ENotFound {
			c.Logger.ErrorContext(r.Context(), "console: reading a session", "err", err)
		}
		return nil, false
	}
	if err := c.Store.SeeOperator(r.Context(), op.Name, c.Now()); err != nil {
		c.Logger.WarnContext(r.Context(), "console: recording an operator's call", "operator", op.Name, "err", err)
	}
	ip, id := c.clientIP(r), logctx.RequestID(r.Context())
	return &session{op: op, csrf: cs.CSRF, actor: service.Actor{Operator: op.Name, Role: op.Role, IP: ip, RequestID: id}}, true
}

// startSession signs an operator in: a new session and its cookie.
func (c *Console) startSession(w http.ResponseWriter, r *http.Request, name string) error {
	id, hash := topupd.NewSecret()
	csrf, _ := topupd.NewSecret()
	err := c.Store.CreateSession(r.Context(), topupd.ConsoleSession{ID: hash, Operator: name, CSRF: csrf, IP: c.clientIP(r), CreatedAt: c.Now()})
	if err != nil {
		return err
	}
	c.setCookie(w, sessionCookie, id, 0)
	return nil
}

// setCookie sets one of the console's cookies; maxAge 0 makes it last
// the browser's session, below 0 deletes it.
func (c *Console) setCookie(w http.ResponseWriter, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/console/", MaxAge: maxAge, HttpOnly: true,
		Secure: c.SecureCookies, SameSite: http.SameSiteStrictMode})
}

// csrfOK reports whether a POST carries the token: in the form's csrf
// field, or in the X-CSRF-Token header of a script's request.
func csrfOK(r *http.Request, want string) bool {
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		got = r.PostFormValue("csrf")
	}
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// clientIP is the address a console request came from: Deps.ClientIP's
// answer, or the peer's address.
func (c *Console) clientIP(r *http.Request) string {
	if c.ClientIP != nil {
		return c.ClientIP(r)
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// ipFailures counts failed sign-ins per client address in a sliding
// window, in memory: an address with too many is refused for a while,
// whatever name it tries.
type ipFailures struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string][]time.Time
}

// Failed sign-ins allowed from one address in ipWindow.
const (
	ipMaxFailures = 20
	ipWindow      = 15 * time.Minute
	ipTracked     = 100_000 // addresses remembered at most; past it, the oldest are forgotten
)

func newIPFailures(now func() time.Time) *ipFailures {
	return &ipFailures{now: now, m: map[string][]time.Time{}}
}

// reserve counts a failure from ip in advance, unless ip already has
// ipMaxFailures in the window: then it counts nothing and answers false.
// The check and the count are one step under the lock, so simultaneous
// attempts from one address never all pass the check.
func (f *ipFailures) reserve(ip string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	recent := f.recent(ip)
	if len(recent) >= ipMaxFailures {
		return false
	}
	if len(f.m) >= ipTracked {
		for k := range f.m { // map order is random: forget about a tenth
			delete(f.m, k)
			if len(f.m) < ipTracked*9/10 {
				break
			}
		}
	}
	f.m[ip] = append(recent, f.now())
	return true
}

// release gives back the newest failure reserve counted for ip: the
// attempt succeeded.
func (f *ipFailures) release(ip string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if times := f.m[ip]; len(times) > 0 {
		f.m[ip] = times[:len(times)-1]
	}
}

// recent is ip's failures still in the window; f.mu is held.
func (f *ipFailures) recent(ip string) []time.Time {
	since := f.now().Add(-ipWindow)
	times := f.m[ip]
	i := 0
	for i < len(times) && !times[i].After(since) {
		i++
	}
	times = times[i:]
	if len(times) == 0 {
		delete(f.m, ip)
		return nil
	}
	f.m[ip] = times
	return times
}

// safeNext is where to go after signing in: a console path, never
// another site.
func safeNext(next string) string {
	if strings.HasPrefix(next, "/console/") && !strings.HasPrefix(next, "//") && !strings.Contains(next, "\\") {
		return next
	}
	return "/console/"
}
