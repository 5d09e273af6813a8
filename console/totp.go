package console

import (
	"bytes"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"html/template"
	"image/png"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// totpPeriod is the TOTP time step: 30 s, as authenticator apps use.
const totpPeriod = 30

// newTOTP makes a TOTP secret for an operator and the QR code (a PNG data
// URL) an authenticator app scans.
func newTOTP(name string) (secret string, qr template.URL, err error) {
	key, err := totp.Generate(totp.GenerateOpts{Issuer: "topupd", AccountName: name})
	if err != nil {
		return "", "", err
	}
	return key.Secret(), qrOf(key), nil
}

// qrOf draws a key's otpauth:// URL as a QR code, as a PNG data URL. It
// is a template.URL: html/template refuses a data: URL given as a string
// (it writes #ZgotmplZ), and this one is safe, made here from a PNG the
// console drew itself.
func qrOf(key *otp.Key) template.URL {
	img, err := key.Image(220, 220)
	if err != nil {
		return ""
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return ""
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes()))
}

// totpStep finds the time step whose code is code, one step either side of
// now allowed for clocks apart; ok is false when none is.
func totpStep(secret, code string, now time.Time) (step int64, ok bool) {
	if len(code) != 6 {
		return 0, false
	}
	current := now.Unix() / totpPeriod
	for _, s := range []int64{current, current - 1, current + 1} {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(s*totpPeriod, 0), totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix})
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return s, true
		}
	}
	return 0, false
}

// TOTPCode is the code of secret at t: what an authenticator app shows.
// Tests sign in with it.
func TOTPCode(secret string, t time.Time) string {
	code, err := totp.GenerateCodeCustom(secret, t, totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix})
	if err != nil {
		panic(fmt.Sprintf("console.TOTPCode: %v", err))
	}
	return code
}
