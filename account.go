package topupd

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// Account is a reseller account: its flags decide whether its API keys are
// admitted; its balance lives in the ledger.
type Account struct {
	ID                  string
	Name                string
	APIEnabled          bool
	AdminDisabled       bool
	Banned              bool
	RestrictedUntil     *time.Time
	IPAllowlist         []string
	IPAllowlistRequired bool
	CreatedAt           time.Time
	// Tier names the account's price tier; empty for none.
	Tier string
	// Limits are the account's spending limits.
	Limits Limits
	// Sandbox is set on the account a sandbox key finds: the key's calls
	// use the account's sandbox (Books).
	Sandbox bool
}

// APIKey is what is kept of an API key besides its hash: never the key.
type APIKey struct {
	ID        string
	AccountID string
	// Label is the operator's or reseller's name for the key.
	Label string
	// Prefix is the key's first 8 characters, to tell keys apart.
	Prefix     string
	CreatedAt  time.Time
	LastUsedAt *time.Time // to the minute
	RevokedAt  *time.Time
	// Sandbox marks a sandbox key (sandbox.go).
	Sandbox bool
}

// KeyPrefixLen is how many of a key's first characters are kept to show.
const KeyPrefixLen = 8

// AccountsQuery selects accounts, newest first.
type AccountsQuery struct {
	// Search, when not empty, matches the id exactly or a part of the name.
	Search string
	// After, when set, selects the accounts after this one in the order:
	// the next page.
	After *Account
	Limit int
}

// AccountPatch changes the named account flags; nil fields stay as they are.
type AccountPatch struct {
	Name                *string
	APIEnabled          *bool
	AdminDisabled       *bool
	Banned              *bool
	RestrictedUntil     **time.Time
	IPAllowlist         *[]string
	IPAllowlistRequired *bool
	// Tier sets the price tier; a nil inner value clears it.
	Tier **string
	// Limits sets spending limits (LimitSettings).
	Limits LimitsPatch
}

// Flagged reports whether the patch changes anything but the tier and
// spending limits: what a role that may change accounts may change. An
// empty patch counts as one.
func (p AccountPatch) Flagged() bool {
	return p.Name != nil || p.APIEnabled != nil || p.AdminDisabled != nil || p.Banned != nil || p.RestrictedUntil != nil ||
		p.IPAllowlist != nil || p.IPAllowlistRequired != nil || !p.Priced()
}

// Priced reports whether the patch changes the tier or a spending limit:
// what only a role that may set prices may change.
func (p AccountPatch) Priced() bool { return p.Tier != nil || len(p.Limits) > 0 }

// Apply returns a copy of a with the patch applied, after checking the patch.
func (p AccountPatch) Apply(a Account) (Account, error) {
	if p.Name != nil {
		if strings.TrimSpace(*p.Name) == "" || len(*p.Name) > 200 {
			return a, Errorf(EInvalidBody, "name: 1 to 200 characters")
		}
		a.Name = *p.Name
	}
	if p.APIEnabled != nil {
		a.APIEnabled = *p.APIEnabled
	}
	if p.AdminDisabled != nil {
		a.AdminDisabled = *p.AdminDisabled
	}
	if p.Banned != nil {
		a.Banned = *p.Banned
	}
	if p.RestrictedUntil != nil {
		a.RestrictedUntil = *p.RestrictedUntil
	}
	if p.IPAllowlist != nil {
		if _, err := ParseAllowlist(*p.IPAllowlist); err != nil {
			return a, err
		}
		a.IPAllowlist = append([]string{}, (*p.IPAllowlist)...)
	}
	if p.IPAllowlistRequired != nil {
		a.IPAllowlistRequired = *p.IPAllowlistRequired
	}
	if p.Tier != nil {
		a.Tier = ""
		if *p.Tier != nil {
			if !tierNameRe.MatchString(**p.Tier) {
				return a, Errorf(EInvalidBody, "tier: not a tier's name")
			}
			a.Tier = **p.Tier
		}
	}
	var err error
	a.Limits, err = p.Limits.Apply(a.Limits)
	return a, err
}

// ParseAllowlist parses IPv4 addresses and IPv4 CIDRs.
func ParseAllowlist(entries []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(entries))
	for _, e := range entries {
		e = strings.TrimSpace(e)
		var p netip.Prefix
		var err error
		if strings.Contains(e, "/") {
			p, err = netip.ParsePrefix(e)
			p = p.Masked()
		} else {
			var a netip.Addr
			a, err = netip.ParseAddr(e)
			p = netip.PrefixFrom(a, 32)
		}
		if err != nil || !p.Addr().Is4() {
			return nil, Errorf(EInvalidBody, "ipAllowlist: %q is not an IPv4 address or IPv4 CIDR", e)
		}
		out = append(out, p)
	}
	return out, nil
}

// Admission is what the account flags are checked against for one call.
type Admission struct {
	Now      time.Time
	ClientIP netip.Addr
	// Eligible is false when the eligibility rule is on and the account does not meet it.
	Eligible bool
}

// Admit checks the account flags in the order the operator contract fixes
// and returns the first that refuses the call, or nil.
func (a *Account) Admit(in Admission) error {
	switch {
	case a.Banned:
		return Fail(EBanned)
	case a.AdminDisabled:
		return Fail(EAPIDisabledByAdmin)
	case !a.APIEnabled:
		return Fail(EAPIDisabled)
	case a.RestrictedUntil != nil && a.RestrictedUntil.After(in.Now):
		return Fail(ERestricted)
	case !in.Eligible:
		return Fail(ENotEligible)
	case a.IPAllowlistRequired && len(a.IPAllowlist) == 0:
		return Fail(EAllowlistRequired)
	}
	if len(a.IPAllowlist) == 0 {
		return nil
	}
	ip := in.ClientIP.Unmap()
	prefixes, err := ParseAllowlist(a.IPAllowlist)
	if err != nil {
		return Fail(EIPNotAllowed) // a stored list that no longer parses admits nobody
	}
	for _, p := range prefixes {
		if ip.Is4() && p.Contains(ip) {
			return nil
		}
	}
	return Fail(EIPNotAllowed)
}

// APIKeyPrefix starts every API key, so that keys are recognisable in logs and
// secret scanners.
const APIKeyPrefix = "tpd_"

// apiKeyBody is the length of the random part: 32 bytes in unpadded base64url.
const apiKeyBody = 43

// KeyHash is the SHA-256 of an API key: the only form in which keys are stored.
type KeyHash [sha256.Size]byte

// NewAPIKey returns a fresh random API key and its hash.
func NewAPIKey() (string, KeyHash) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	key := APIKeyPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	return key, sha256.Sum256([]byte(key))
}

// ParseAPIKey checks an API key's form and returns its hash; a malformed key
// is EKeyFormat.
func ParseAPIKey(key string) (KeyHash, error) {
	body, ok := strings.CutPrefix(key, APIKeyPrefix)
	if test, isTest := strings.CutPrefix(body, "test_"); isTest && len(body) != apiKeyBody {
		body = test // a sandbox key (SandboxKeyPrefix)
	}
	if !ok || len(body) != apiKeyBody {
		return KeyHash{}, Fail(EKeyFormat)
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return KeyHash{}, Fail(EKeyFormat)
		}
	}
	return sha256.Sum256([]byte(key)), nil
}

// NewID returns a random identifier with a prefix, such as "acc_…".
func NewID(prefix string) string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return prefix + strings.ToLower(base32NoPad.EncodeToString(b[:]))
}
