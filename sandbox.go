package topupd

import (
	"crypto/sha256"
	"encoding/base32"
	"strconv"
	"strings"
)

// The sandbox (integration.md): a sandbox key runs the real order
// lifecycle on books of its own. An account's sandbox is an account of its
// own in the store, named SandboxID(account): its balance, orders, trxids
// and events are that account's, so every rule that keeps one account's
// books apart from another's keeps the sandbox apart from the live books.

// SandboxSuffix ends the id of every account's sandbox, and no live
// account's id (the store refuses one).
const SandboxSuffix = "~sandbox"

// SandboxKeyPrefix starts the plaintext of every sandbox key.
const SandboxKeyPrefix = APIKeyPrefix + "test_"

// SandboxOpeningBalance is a sandbox's balance when it opens.
var SandboxOpeningBalance = USD(1000)

// SandboxOpeningReference is the reference of the credit that opens a
// sandbox with SandboxOpeningBalance.
const SandboxOpeningReference = "sandbox opening balance"

// ProviderSandbox fulfils every sandbox order by the sim rules, whatever
// its pack's supplier and whether or not sim is on; no pack names it.
const ProviderSandbox = "sandbox"

// TestCodePrefix starts every code a sandbox order delivers.
const TestCodePrefix = "TEST-"

// SandboxID returns the id of the account's sandbox.
func SandboxID(accountID string) string { return accountID + SandboxSuffix }

// LiveID returns the live account whose sandbox id is, and whether id is a
// sandbox's; for a live account's id, the id itself and false.
func LiveID(id string) (string, bool) {
	live, ok := strings.CutSuffix(id, SandboxSuffix)
	if !ok {
		return id, false
	}
	return live, true
}

// Books returns the id of the account whose books the caller's key uses:
// the account's sandbox for a sandbox key, else the account itself.
func (a *Account) Books() string {
	if a.Sandbox {
		return SandboxID(a.ID)
	}
	return a.ID
}

// NewSandboxAPIKey returns a fresh random sandbox key (SandboxKeyPrefix and
// the random part of a live key) and its hash.
func NewSandboxAPIKey() (string, KeyHash) {
	key, _ := NewAPIKey()
	key = SandboxKeyPrefix + strings.TrimPrefix(key, APIKeyPrefix)
	return key, sha256.Sum256([]byte(key))
}

// TestCodes returns the codes a sandbox order of n codes delivers: each
// TestCodePrefix and 16 characters derived from the order's id and its
// place, so that every lookup shows the same codes and none is ever a
// code of the stock.
func TestCodes(orderID string, n int) []string {
	out := make([]string, n)
	for i := range out {
		sum := sha256.Sum256([]byte(orderID + "#" + strconv.Itoa(i)))
		out[i] = TestCodePrefix + base32.StdEncoding.EncodeToString(sum[:10])
	}
	return out
}

// SandboxCodesRefused is the error of codes an operator gives to complete
// a sandbox order: INVALID_BODY, for its codes are TestCodes, drawn from no
// stock, never an operator's.
func SandboxCodesRefused(orderID string) error {
	return Errorf(EInvalidBody, "codes: order %s is a sandbox order, which delivers TEST- codes of its own, never an operator's", orderID)
}
