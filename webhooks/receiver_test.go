package webhooks_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// received is one request a receiver got.
type received struct {
	ID, Timestamp, Signature, ContentType string
	Body                                  []byte
	Parsed                                map[string]any
}

// receiver is a webhook receiver on loopback: it records every request,
// and answers as answer says (200 when nil).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []received
	answer func(n int, r received, w http.ResponseWriter) // n counts from 1
}

func newReceiver(t *testing.T, answer func(n int, r received, w http.ResponseWriter)) *receiver {
	rc := &receiver{answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got := received{ID: r.Header.Get("webhook-id"), Timestamp: r.Header.Get("webhook-timestamp"),
			Signature: r.Header.Get("webhook-signature"), ContentType: r.Header.Get("Content-Type"), Body: body}
		_ = json.Unmarshal(body, &got.Parsed)
		rc.mu.Lock()
		rc.got = append(rc.got, got)
		n := len(rc.got)
		rc.mu.Unlock()
		if rc.answer != nil {
			rc.answer(n, got, w)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// all is what the receiver got so far.
func (rc *receiver) all() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// wait polls until the receiver got n requests (at most 20 s) and answers them.
func (rc *receiver) wait(t *testing.T, n int) []received {
	t.Helper()
	waitFor(t, func() bool { return len(rc.all()) >= n }, "the receiver to get %d requests", n)
	return rc.all()
}

// waitFor polls cond until it holds, for at most 20 s.
func waitFor(t *testing.T, cond func() bool, what string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 20 s for "+what, args...)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// verify checks a Standard Webhooks signature header the way a receiver
// would, written apart from the server's signer: some "v1,<base64>" entry
// of the space-separated header is the HMAC-SHA256, keyed with the
// base64-decoded secret after whsec_, of "{id}.{timestamp}.{body}".
func verify(secret, id, timestamp string, body []byte, header string) bool {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(header) {
		version, b64, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

// TestVerifyMatchesTheSpecVector: the tests' verifier accepts the Standard
// Webhooks specification's published example, and nothing else.
func TestVerifyMatchesTheSpecVector(t *testing.T) {
	const secret, id, ts, body = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", `{"test": 2432232314}`
	const sig = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	if !verify(secret, id, ts, []byte(body), sig) {
		t.Error("the published example does not verify")
	}
	if !verify(secret, id, ts, []byte(body), "v1,bm90IHRoaXMgb25l "+sig) {
		t.Error("the example among two signatures does not verify")
	}
	for name, c := range map[string][4]string{
		"another id": {id + "x", ts, body, sig}, "another time": {id, "1614265331", body, sig},
		"another body": {id, ts, body + " ", sig}, "v2": {id, ts, body, "v2," + sig[3:]},
	} {
		if verify(secret, c[0], c[1], []byte(c[2]), c[3]) {
			t.Errorf("%s verifies", name)
		}
	}
}

// endpoint registers an endpoint for the account and answers its id and secret.
func endpoint(t *testing.T, h *topupdtest.T, accountID, url string, extra map[string]any) (string, string) {
	t.Helper()
	body := map[string]any{"url": url}
	for k, v := range extra {
		body[k] = v
	}
	r := h.AdminOK(http.StatusCreated, "POST", "/admin/accounts/"+accountID+"/webhooks", body)
	h.Logs.Secret(r.Str("secret"), "a webhook secret")
	return r.Str("id"), r.Str("secret")
}

// jsonNumber is an integer as the harness decodes JSON numbers.
func jsonNumber(n int) json.Number { return json.Number(strconv.Itoa(n)) }
