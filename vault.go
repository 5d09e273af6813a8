package topupd

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
)

// SecretKeySize is the length of the key that encrypts codes at rest.
const SecretKeySize = 32

// Vault encrypts stock codes and other secrets at rest with AES-256-GCM, the
// owning pack (or other context) bound in as additional data, and gives each
// code a keyed fingerprint so duplicates are found without decrypting.
type Vault struct {
	aead   cipher.AEAD
	macKey []byte
}

// NewVault derives the encryption and fingerprint keys from a 32-byte secret.
func NewVault(secret []byte) (*Vault, error) {
	if len(secret) != SecretKeySize {
		return nil, fmt.Errorf("vault: secret key must be %d bytes, got %d", SecretKeySize, len(secret))
	}
	block, err := aes.NewCipher(derive(secret, "topupd seal v1"))
	if err != nil {
		return nil, fmt.Errorf("vault: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("vault: %w", err)
	}
	return &Vault{aead: aead, macKey: derive(secret, "topupd fingerprint v1")}, nil
}

func derive(secret []byte, label string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// Seal encrypts plain, bound to context; the nonce is prepended.
func (v *Vault) Seal(context, plain string) []byte {
	nonce := make([]byte, v.aead.NonceSize(), v.aead.NonceSize()+len(plain)+v.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return v.aead.Seal(nonce, nonce, []byte(plain), []byte(context))
}

// ErrSealBroken reports a sealed value that fails authentication: tampered,
// moved to another context, or sealed under another key.
var ErrSealBroken = errors.New("vault: sealed value fails authentication")

// Open decrypts a value sealed under the same context.
func (v *Vault) Open(context string, sealed []byte) (string, error) {
	n := v.aead.NonceSize()
	if len(sealed) < n+v.aead.Overhead() {
		return "", ErrSealBroken
	}
	plain, err := v.aead.Open(nil, sealed[:n], sealed[n:], []byte(context))
	if err != nil {
		return "", ErrSealBroken
	}
	return string(plain), nil
}

// Fingerprint is a keyed digest of a value within a context: equal values in
// one context have equal fingerprints; nothing else can be learned from it.
func (v *Vault) Fingerprint(context, plain string) []byte {
	m := hmac.New(sha256.New, v.macKey)
	m.Write([]byte(context))
	m.Write([]byte{0})
	m.Write([]byte(plain))
	return m.Sum(nil)
}

// codeContext is the context of CodeFingerprint: no pack's PID can be it,
// since PIDs hold no NUL byte.
const codeContext = "\x00code"

// CodeFingerprint is a keyed digest of a stock code alone, whatever its pack:
// equal codes have equal fingerprints, so one unique index over them keeps a
// code from being held or delivered twice anywhere.
func (v *Vault) CodeFingerprint(code string) []byte {
	return v.Fingerprint(codeContext, code)
}

// TOTPSealContext is the context an operator's TOTP secret is sealed in.
func TOTPSealContext(name string) string { return "console-totp:" + name }
