package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/pquerna/otp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/logctx"
)

// signInForm is the sign-in page's data.
type signInForm struct {
	CSRF, Name, Next string
}

// loginForm shows the sign-in form, with a fresh form token in a cookie
// when there is none: a form posted from another site carries no cookie.
func (c *Console) loginForm(w http.ResponseWriter, r *http.Request) {
	if _, ok := c.session(r); ok {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	c.renderSignIn(w, r, http.StatusOK, signInForm{Next: safeNext(r.URL.Query().Get("next"))}, "")
}

// formToken is the token of the sign-in and setup forms: the browser's
// login cookie, or a new one set on it.
func (c *Console) formToken(w http.ResponseWriter, r *http.Request) string {
	if ck, err := r.Cookie(loginCookie); err == nil && len(ck.Value) == 43 {
		return ck.Value
	}
	token, _ := topupd.NewSecret()
	c.setCookie(w, loginCookie, token, 0)
	return token
}

// renderSignIn answers the sign-in page with a form token.
func (c *Console) renderSignIn(w http.ResponseWriter, r *http.Request, status int, f signInForm, problem string) {
	f.CSRF = c.formToken(w, r)
	v := view{Title: "Sign in", Error: problem, Data: f}
	if ck, err := r.Cookie(flashCookie); err == nil {
		v.Flash = unflash(ck.Value)
		c.setCookie(w, flashCookie, "", -1)
	}
	c.renderView(w, r, status, "login", v)
}

// formTokenOK checks a sign-in or setup form's token against its cookie.
func formTokenOK(r *http.Request) bool {
	ck, err := r.Cookie(loginCookie)
	return err == nil && ck.Value != "" && subtle.ConstantTimeCompare([]byte(ck.Value), []byte(r.PostFormValue("csrf"))) == 1
}

// login signs an operator in with name, password and a TOTP code (or a
// recovery code). Whatever is wrong, the answer is the same, so that it
// tells nothing of which names exist; the login log keeps the reason.
//
// The limits are reserved before anything is checked, each in one atomic
// step: a failure from the client's address (in memory, ipFailures), then
// a failure of the name (in the database, Store.ReserveLogin). An attempt
// that cannot reserve both is refused unchecked; a success gives both
// back. So simultaneous attempts check no more guesses than the limits
// allow, however many arrive at once.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	if !formTokenOK(r) {
		c.fail(w, r, nil, http.StatusForbidden, "This sign-in form did not come from this console. Reload the page and try again.")
		return
	}
	ctx, now, ip := r.Context(), c.Now(), c.clientIP(r)
	f := signInForm{Name: strings.TrimSpace(r.PostFormValue("name")), Next: safeNext(r.PostFormValue("next"))}
	if len(f.Name) > 64 {
		f.Name = f.Name[:64]
	}
	attempt := topupd.LoginAttempt{Name: f.Name, IP: ip, At: now}
	var lockedUntil time.Time // set once the name is locked, by this attempt or before
	refuse := func(status int, reason, msg string) {
		attempt.Reason = reason
		if err := c.Store.RecordLogin(ctx, attempt); err != nil {
			c.Logger.ErrorContext(ctx, "console: recording a sign-in", "err", err)
		}
		if !lockedUntil.IsZero() {
			msg = fmt.Sprintf("After %d failed sign-ins this name is locked until %s UTC.", topupd.MaxLoginFailures, lockedUntil.UTC().Format("15:04"))
		}
		c.Logger.WarnContext(ctx, "console sign-in refused", "name", f.Name, "reason", reason, "clientIp", ip)
		c.renderSignIn(w, r, status, f, msg)
	}
	const wrong = "The name, password or code is wrong."
	if !c.failures.reserve(ip) {
		refuse(http.StatusTooManyRequests, "address blocked", "Too many failed sign-ins from your address. Try again in a quarter of an hour.")
		return
	}
	until, ok, err := c.Store.ReserveLogin(ctx, f.Name, now)
	if err != nil {
		c.failErr(w, r, nil, err)
		return
	}
	lockedUntil = until
	if !ok {
		refuse(http.StatusTooManyRequests, "locked", "")
		return
	}
	creds, credErr := c.Store.ConsoleCredentials(ctx, f.Name)
	hash := creds.PasswordHash
	if credErr != nil {
		hash = dummyHash
	}
	passwordOK := checkPassword(hash, r.PostFormValue("password")) && credErr == nil
	switch {
	case credErr != nil && topupd.CodeOf(credErr) != topupd.ENotFound:
		c.failErr(w, r, nil, credErr)
		return
	case credErr != nil:
		refuse(http.StatusUnauthorized, "no console password", wrong)
		return
	case !passwordOK:
		refuse(http.StatusUnauthorized, "bad password", wrong)
		return
	}
	code := strings.TrimSpace(r.PostFormValue("code"))
	if code == "" {
		code = strings.TrimSpace(r.PostFormValue("recovery"))
	}
	if reason := c.checkCode(r, f.Name, creds, code, now); reason != "" {
		msg := wrong
		if reason == reasonCodeUsed { // the password was right: telling this helps the operator only
			msg = "That code was just used. Wait for the next code in your app, then sign in with it."
		}
		refuse(http.StatusUnauthorized, reason, msg)
		return
	}
	op, err := c.Store.Operator(ctx, f.Name)
	if err != nil {
		c.failErr(w, r, nil, err)
		return
	}
	if op.Disabled {
		refuse(http.StatusUnauthorized, "disabled", wrong)
		return
	}
	attempt.OK, attempt.Reason = true, "signed in"
	if err := c.Store.RecordLogin(ctx, attempt); err != nil { // clears the name's count
		c.failErr(w, r, nil, err)
		return
	}
	c.failures.release(ip)
	if err := c.startSession(w, r, f.Name); err != nil {
		c.failErr(w, r, nil, err)
		return
	}
	c.setCookie(w, loginCookie, "", -1)
	c.Seen(ctx, f.Name)
	http.Redirect(w, r, f.Next, http.StatusSeeOther)
}

// checkCode checks the second factor: a TOTP code, taken once, or a
// recovery code, spent. It returns why it failed, or "".
func (c *Console) checkCode(r *http.Request, name string, creds topupd.ConsoleCredentials, code string, now time.Time) string {
	if len(code) != 6 {
		if code == "" {
			return "no code"
		}
		if err := c.Store.UseRecoveryCode(r.Context(), name, topupd.HashSecret(normalRecovery(code)), now); err != nil {
			return "bad recovery code"
		}
		return ""
	}
	secret, err := c.Vault.Open(totpContext(name), creds.TOTPSealed)
	if err != nil {
		return "unreadable TOTP secret"
	}
	step, ok := totpStep(secret, code, now)
	if !ok {
		return "bad code"
	}
	if err := c.Store.UseTOTPStep(r.Context(), name, step); err != nil {
		return reasonCodeUsed
	}
	return ""
}

// reasonCodeUsed is the login log's reason for a TOTP code whose step was
// used already: the same code again, or an older one.
const reasonCodeUsed = "code used before"

// totpContext is what an operator's TOTP secret is sealed under.
func totpContext(name string) string { return topupd.TOTPSealContext(name) }

// normalRecovery is a recovery code as typed, without spaces or dashes, in
// capitals.
func normalRecovery(code string) string {
	return strings.ToUpper(strings.NewReplacer(" ", "", "-", "").Replace(code))
}

// logout ends the session.
func (c *Console) logout(w http.ResponseWriter, r *http.Request, s *session) error {
	if ck, err := r.Cookie(sessionCookie); err == nil {
		if err := c.Store.EndSession(r.Context(), topupd.HashSecret(ck.Value)); err != nil {
			return err
		}
	}
	c.setCookie(w, sessionCookie, "", -1)
	c.flash(w, "You are signed out.")
	http.Redirect(w, r, "/console/login", http.StatusSeeOther)
	return nil
}

// setupForm is the setup page's data.
type setupForm struct {
	CSRF, Name, Role, Secret, Sealed string
	// QR is the key's QR code, a PNG data URL the console drew.
	QR       template.URL
	Recovery []string
}

// setupContext seals the secret a setup page offers, for its link only.
func setupContext(link topupd.KeyHash) string { return "console-setup:" + hex.EncodeToString(link[:]) }

// setupPage shows the setup form of a live link: a fresh TOTP secret
// with its QR code, and fields for the password and a first code.
func (c *Console) setupPage(w http.ResponseWriter, r *http.Request) {
	link := topupd.HashSecret(r.PathValue("token"))
	op, err := c.Store.SetupLinkOperator(r.Context(), link, c.Now())
	if err != nil {
		c.setupGone(w, r, err)
		return
	}
	secret, qr, err := newTOTP(op.Name)
	if err != nil {
		c.failErr(w, r, nil, err)
		return
	}
	f := setupForm{Name: op.Name, Role: string(op.Role), Secret: secret, QR: qr,
		Sealed: base64.RawURLEncoding.EncodeToString(c.Vault.Seal(setupContext(link), secret))}
	c.renderSetup(w, r, http.StatusOK, f, "")
}

// setupGone answers a setup link that does not work.
func (c *Console) setupGone(w http.ResponseWriter, r *http.Request, err error) {
	if topupd.CodeOf(err) == topupd.ENotFound {
		c.fail(w, r, nil, http.StatusNotFound, "This setup link is unknown, used or expired. Ask an owner for a new one.")
		return
	}
	c.failErr(w, r, nil, err)
}

// renderSetup answers the setup page with a form token.
func (c *Console) renderSetup(w http.ResponseWriter, r *http.Request, status int, f setupForm, problem string) {
	f.CSRF = c.formToken(w, r)
	c.renderView(w, r, status, "setup", view{Title: "Set up your console sign-in", Error: problem, Data: f})
}

// setup spends a link: it sets the password and the TOTP secret, once the
// operator has shown a code from their app, and shows the recovery codes
// once. It is in the action log as the operator's own change.
func (c *Console) setup(w http.ResponseWriter, r *http.Request) {
	if !formTokenOK(r) {
		c.fail(w, r, nil, http.StatusForbidden, "This setup form did not come from this console. Reload the page and try again.")
		return
	}
	ctx, now := r.Context(), c.Now()
	link := topupd.HashSecret(r.PathValue("token"))
	op, err := c.Store.SetupLinkOperator(ctx, link, now)
	if err != nil {
		c.setupGone(w, r, err)
		return
	}
	f := setupForm{Name: op.Name, Role: string(op.Role), Sealed: r.PostFormValue("sealed")}
	sealed, err := base64.RawURLEncoding.DecodeString(f.Sealed)
	if err == nil {
		f.Secret, err = c.Vault.Open(setupContext(link), sealed)
	}
	if err != nil {
		c.fail(w, r, nil, http.StatusBadRequest, "This setup form was changed. Open the link again.")
		return
	}
	if key, err := otp.NewKeyFromURL(fmt.Sprintf("otpauth://totp/topupd:%s?issuer=topupd&secret=%s", op.Name, f.Secret)); err == nil {
		f.QR = qrOf(key)
	}
	if err := checkNewPassword(op.Name, r.PostFormValue("password"), r.PostFormValue("again")); err != nil {
		c.renderSetup(w, r, http.StatusBadRequest, f, err.Error())
		return
	}
	step, ok := totpStep(f.Secret, strings.TrimSpace(r.PostFormValue("code")), now)
	if !ok {
		c.renderSetup(w, r, http.StatusBadRequest, f, "That code is not the one your app shows. Check the app's clock, and scan the code again if need be.")
		return
	}
	recovery := make([]string, 8)
	hashes := make([]topupd.KeyHash, len(recovery))
	for i := range recovery {
		recovery[i] = newRecoveryCode()
		hashes[i] = topupd.HashSecret(normalRecovery(recovery[i]))
	}
	change := &topupd.Change{Actor: topupd.Actor{Operator: op.Name, IP: c.clientIP(r), RequestID: logctx.RequestID(ctx)}, Action: "operator.setup", Target: op.Name}
	creds := topupd.ConsoleCredentials{PasswordHash: hashPassword(r.PostFormValue("password")),
		TOTPSealed: c.Vault.Seal(totpContext(op.Name), f.Secret), RecoveryCodes: hashes}
	if _, err := c.Store.CompleteSetup(ctx, change, link, creds, now); err != nil {
		c.setupGone(w, r, err)
		return
	}
	if err := c.Store.UseTOTPStep(ctx, op.Name, step); err != nil { // the code just shown signs nobody in
		c.Logger.WarnContext(ctx, "console: spending the setup code", "err", err)
	}
	c.Seen(ctx, op.Name)
	c.setCookie(w, loginCookie, "", -1)
	c.renderView(w, r, http.StatusOK, "setup-done", view{Title: "You are set up", Data: setupForm{Name: op.Name, Recovery: recovery}})
}

// newRecoveryCode is a one-time code of 10 letters and digits (50 random
// bits), shown in two halves: ABCDE-FGH23.
func newRecoveryCode() string {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789" // 32: each byte's low 5 bits pick one
	var raw [10]byte
	rand.Read(raw[:])
	var b strings.Builder
	for i, x := range raw {
		if i == 5 {
			b.WriteByte('-')
		}
		b.WriteByte(alphabet[x&31])
	}
	return b.String()
}
