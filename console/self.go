package console

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"net/http"
	"strings"

	"github.com/pquerna/otp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/logctx"
)

// meData is the page of one's own sign-in: the password form, and a new
// TOTP secret with its QR code when renewing the app.
type meData struct {
	Name, Secret, Sealed string
	QR                   template.URL
	// Recovery are new recovery codes, shown this once.
	Recovery []string
}

// me shows the signed-in operator's own sign-in: change the password,
// move to a new authenticator app, get new recovery codes.
func (c *Console) me(w http.ResponseWriter, r *http.Request, s *session) error {
	c.render(w, r, s, http.StatusOK, "me", "Your sign-in", meData{Name: s.op.Name})
	return nil
}

// renewContext seals the new TOTP secret a renewal form carries, for the
// operator's session only.
func renewContext(s *session) string { return "console-renew:" + s.op.Name + ":" + s.csrf }

// totpPage shows a new TOTP secret, with its QR code, and the form that
// moves the operator to it.
func (c *Console) totpPage(w http.ResponseWriter, r *http.Request, s *session) error {
	secret, qr, err := newTOTP(s.op.Name)
	if err != nil {
		return err
	}
	d := meData{Name: s.op.Name, Secret: secret, QR: qr, Sealed: base64.RawURLEncoding.EncodeToString(c.Vault.Seal(renewContext(s), secret))}
	c.render(w, r, s, http.StatusOK, "me-totp", "A new authenticator app", d)
	return nil
}

// recheck asks again for what the operator signs in with, before they
// change it: the password, or a code from the app they have now. It is
// counted as a sign-in attempt of the name (ReserveLogin), so that a
// session left open cannot be used to guess the password; the login log
// has it. It answers why it failed, in words, or "".
func (c *Console) recheck(r *http.Request, s *session, passwordOnly bool) (string, error) {
	ctx, now, name := r.Context(), c.Now(), s.op.Name
	password, code := r.PostFormValue("current"), strings.TrimSpace(r.PostFormValue("currentCode"))
	if passwordOnly {
		code = ""
	}
	if password == "" && code == "" {
		if passwordOnly {
			return "Type your current password.", nil
		}
		return "Type your current password, or the code your app shows now.", nil
	}
	until, ok, err := c.Store.ReserveLogin(ctx, name, now)
	if err != nil {
		return "", err
	}
	attempt := topupd.LoginAttempt{Name: name, IP: c.clientIP(r), At: now}
	record := func(ok bool, reason string) {
		attempt.OK, attempt.Reason = ok, reason
		if err := c.Store.RecordLogin(ctx, attempt); err != nil {
			c.Logger.ErrorContext(ctx, "console: recording a re-check", "err", err)
		}
	}
	if !ok {
		record(false, "re-check: locked")
		return fmt.Sprintf("After %d failed tries your name is locked until %s UTC.", topupd.MaxLoginFailures, until.UTC().Format("15:04")), nil
	}
	creds, err := c.Store.ConsoleCredentials(ctx, name)
	if err != nil {
		return "", err
	}
	reason := ""
	switch {
	case password != "" && !checkPassword(creds.PasswordHash, password):
		reason = "re-check: bad password"
	case password == "" && len(code) != 6:
		reason = "re-check: not a TOTP code" // a recovery code is for signing in, and is not spent here
	case password == "":
		if reason = c.checkCode(r, name, creds, code, now); reason != "" {
			reason = "re-check: " + reason
		}
	}
	if reason != "" {
		record(false, reason)
		if reason == "re-check: "+reasonCodeUsed {
			return "That code was just used. Wait for the next code in your app.", nil
		}
		if !until.IsZero() {
			return fmt.Sprintf("That is not right, and after %d failed tries your name is locked until %s UTC.", topupd.MaxLoginFailures, until.UTC().Format("15:04")), nil
		}
		if password != "" {
			return "Your current password is not right.", nil
		}
		return "That code is not the one your app shows.", nil
	}
	record(true, "re-check")
	return "", nil
}

// selfChange is the action log's entry of a change to one's own sign-in.
func (c *Console) selfChange(r *http.Request, s *session, action string) *topupd.Change {
	return &topupd.Change{Actor: topupd.Actor{Operator: s.op.Name, IP: c.clientIP(r), RequestID: logctx.RequestID(r.Context())}, Action: action, Target: s.op.Name}
}

// changePassword sets a new password, the current one given; the
// operator's other sessions end.
func (c *Console) changePassword(w http.ResponseWriter, r *http.Request, s *session) error {
	again := func(field, msg string) error {
		return c.formFailed(w, r, s, fieldError{Field: field, Msg: msg}, "me", func() (string, any, error) {
			return "Your sign-in", meData{Name: s.op.Name}, nil
		})
	}
	msg, err := c.recheck(r, s, true)
	if err != nil {
		return err
	}
	if msg != "" {
		return again("current", msg)
	}
	if err := checkNewPassword(s.op.Name, r.PostFormValue("password"), r.PostFormValue("again")); err != nil {
		return again("password", sentence(err.Error()))
	}
	if r.PostFormValue("password") == r.PostFormValue("current") {
		return again("password", "The new password is the one you have now.")
	}
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if err := c.Store.ChangeConsolePassword(ctx, c.selfChange(r, s, "operator.password"), s.op.Name, hashPassword(r.PostFormValue("password")), topupd.HashSecret(ck.Value)); err != nil {
		return err
	}
	return c.done(w, r, "/console/me", "Your password is changed. Your other sessions are signed out.")
}

// renewTOTP moves the operator to the new secret of the totp page, once
// they have shown the current password or code and a code of the new
// app; new recovery codes come with it, shown once.
func (c *Console) renewTOTP(w http.ResponseWriter, r *http.Request, s *session) error {
	d := meData{Name: s.op.Name, Sealed: r.PostFormValue("sealed")}
	sealed, err := base64.RawURLEncoding.DecodeString(d.Sealed)
	if err == nil {
		d.Secret, err = c.Vault.Open(renewContext(s), sealed)
	}
	if err != nil {
		return pageError{http.StatusBadRequest, "This form was changed or belongs to another session. Open the page again."}
	}
	if key, err := otp.NewKeyFromURL(fmt.Sprintf("otpauth://totp/topupd:%s?issuer=topupd&secret=%s", s.op.Name, d.Secret)); err == nil {
		d.QR = qrOf(key)
	}
	again := func(field, msg string) error {
		return c.formFailed(w, r, s, fieldError{Field: field, Msg: msg}, "me-totp", func() (string, any, error) { return "A new authenticator app", d, nil })
	}
	step, ok := totpStep(d.Secret, strings.TrimSpace(r.PostFormValue("code")), c.Now())
	if !ok {
		return again("code", "That code is not the one your new app shows. Check the app's clock, and scan the QR code again if need be.")
	}
	msg, err := c.recheck(r, s, false)
	if err != nil {
		return err
	}
	if msg != "" {
		return again("current", msg)
	}
	recovery, hashes := newRecoveryCodes()
	ctx := r.Context()
	if err := c.Store.RenewSecondFactor(ctx, c.selfChange(r, s, "operator.totp"), s.op.Name, c.Vault.Seal(totpContext(s.op.Name), d.Secret), step, hashes); err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "me-codes", "Your new recovery codes", meData{Name: s.op.Name, Recovery: recovery})
	return nil
}

// renewRecovery gives the operator new recovery codes in place of the
// old, the current password or code given.
func (c *Console) renewRecovery(w http.ResponseWriter, r *http.Request, s *session) error {
	msg, err := c.recheck(r, s, false)
	if err != nil {
		return err
	}
	if msg != "" {
		return c.formFailed(w, r, s, fieldError{Field: "recovery-current", Msg: msg}, "me", func() (string, any, error) {
			return "Your sign-in", meData{Name: s.op.Name}, nil
		})
	}
	recovery, hashes := newRecoveryCodes()
	ctx := r.Context()
	if err := c.Store.RenewSecondFactor(ctx, c.selfChange(r, s, "operator.recovery-codes"), s.op.Name, nil, 0, hashes); err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "me-codes", "Your new recovery codes", meData{Name: s.op.Name, Recovery: recovery})
	return nil
}

// newRecoveryCodes are eight new recovery codes and the hashes kept of them.
func newRecoveryCodes() ([]string, []topupd.KeyHash) {
	codes := make([]string, 8)
	hashes := make([]topupd.KeyHash, len(codes))
	for i := range codes {
		codes[i] = newRecoveryCode()
		hashes[i] = topupd.HashSecret(normalRecovery(codes[i]))
	}
	return codes, hashes
}
