package client

import (
	"net/http"
	"testing"
	"time"
)

// TestVerifyWebhook: the Standard Webhooks specification's published
// example verifies (alone, or beside another signature, as during a
// rotation); a changed id, body or signature, another secret, or a
// timestamp out of tolerance does not.
func TestVerifyWebhook(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	const sig = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	body := []byte(`{"test": 2432232314}`)
	at := time.Unix(1614265330, 0)
	header := func(id, sig string) http.Header {
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", "1614265330")
		h.Set("webhook-signature", sig)
		return h
	}
	if _, err := VerifyWebhook(secret, header("msg_p5jXN8AQM9LWM0D4loKWxJek", sig), body, at.Add(time.Minute)); err != nil {
		t.Errorf("the published example: %v", err)
	}
	if _, err := VerifyWebhook(secret, header("msg_p5jXN8AQM9LWM0D4loKWxJek", "v1,b2xk "+sig), body, at); err != nil {
		t.Errorf("the example beside another signature: %v", err)
	}
	for name, c := range map[string]struct {
		secret, id, sig string
		body            []byte
		now             time.Time
	}{
		"another id":      {secret, "msg_x", sig, body, at},
		"another body":    {secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", sig, []byte(`{"test": 1}`), at},
		"another secret":  {"whsec_bm90IHRoZSBzZWNyZXQ=", "msg_p5jXN8AQM9LWM0D4loKWxJek", sig, body, at},
		"v2":              {secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", "v2," + sig[3:], body, at},
		"too old":         {secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", sig, body, at.Add(6 * time.Minute)},
		"from the future": {secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", sig, body, at.Add(-6 * time.Minute)},
	} {
		if _, err := VerifyWebhook(c.secret, header(c.id, c.sig), c.body, c.now); err != ErrWebhookSignature {
			t.Errorf("%s: %v, want ErrWebhookSignature", name, err)
		}
	}
}
