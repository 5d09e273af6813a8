package topupd

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Role is what an operator may do.
type Role string

// The four roles.
const (
	// RoleOwner may do everything, operators and settings included.
	RoleOwner Role = "owner"
	// RoleFinance reads everything, credits accounts, and reads statements and reports.
	RoleFinance Role = "finance"
	// RoleSupport reads everything, changes account flags and keys, and
	// completes, cancels and retries orders.
	RoleSupport Role = "support"
	// RoleViewer reads everything.
	RoleViewer Role = "viewer"
	// RoleResellerChat is a reseller's own chat in the messaging app: it
	// reads its own account and changes its flags, allow-list and keys,
	// and nothing else (the admin API holds it to its account). No
	// operator can be given it.
	RoleResellerChat Role = "reseller-chat"
)

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool {
	switch r {
	case RoleOwner, RoleFinance, RoleSupport, RoleViewer:
		return true
	}
	return false
}

// Permission is a kind of admin call, which some roles may make.
type Permission string

// The permissions the admin API's routes ask for.
const (
	// PermRead reads anything (no plaintext key, code or upstream key is ever shown again).
	PermRead Permission = "read"
	// PermCredit credits or corrects an account's balance.
	PermCredit Permission = "credit"
	// PermReports reads statements and reports.
	PermReports Permission = "reports"
	// PermAccounts creates accounts and changes their flags and keys.
	PermAccounts Permission = "accounts"
	// PermOrders completes, cancels and retries orders.
	PermOrders Permission = "orders"
	// PermCatalog changes lines, packs, stock and upstreams.
	PermCatalog Permission = "catalog"
	// PermSettings changes the settings.
	PermSettings Permission = "settings"
	// PermOperators manages operators.
	PermOperators Permission = "operators"
	// PermPrices sets price tiers, accounts' own prices and spending limits.
	PermPrices Permission = "prices"
	// PermDebug reads the runtime profiles (/admin/debug/pprof/): they
	// show the process's memory and stacks, so they are the owner's alone.
	PermDebug Permission = "debug"
	// PermOrderCodes reads an order's delivered codes in full (every other
	// view masks them, MaskCode): the owner's alone, each read recorded in
	// the action log as order.codes-viewed.
	PermOrderCodes Permission = "order-codes"
	// PermCheckSuppliers asks an upstream for our balance there (its
	// check): the owner's, finance's and support's.
	PermCheckSuppliers Permission = "check-suppliers"
	// PermReconcile runs reconciliations with suppliers, resolves their
	// mismatches and closes them (back-office.md, section 2).
	PermReconcile Permission = "reconcile"
	// PermDisputes resolves disputes and sets their supplier claims
	// (back-office.md, section 5): the owner's, finance's and support's.
	PermDisputes Permission = "disputes"
	// PermCodeSearch finds the order that delivered a code (GET
	// /admin/orders?code=), each search logged: the owner's and finance's.
	PermCodeSearch Permission = "code-search"
)

// Permissions returns every permission, in the order they are declared
// (PermExportCodes is declared with batches).
func Permissions() []Permission {
	return []Permission{PermRead, PermCredit, PermReports, PermAccounts, PermOrders, PermCatalog, PermSettings,
		PermOperators, PermPrices, PermDebug, PermOrderCodes, PermExportCodes, PermCheckSuppliers, PermReconcile, PermDisputes, PermCodeSearch}
}

// Valid reports whether p is one of the permissions.
func (p Permission) Valid() bool { return slices.Contains(Permissions(), p) }

// May reports whether the role allows p. Statements and reports, the
// business's takings, are finance's (and the owner's): the contract names
// them apart from reading everything. Prices and spending limits are
// finance's too: they decide what accounts pay.
func (r Role) May(p Permission) bool {
	switch {
	case r == RoleOwner:
		return true
	case r == RoleResellerChat:
		return p == PermRead || p == PermAccounts
	case p == PermRead:
		return r.Valid()
	case r == RoleFinance:
		return p == PermCredit || p == PermReports || p == PermPrices || p == PermCheckSuppliers || p == PermReconcile || p == PermDisputes || p == PermCodeSearch
	case r == RoleSupport:
		return p == PermAccounts || p == PermOrders || p == PermCheckSuppliers || p == PermDisputes
	}
	return false
}

// RootOperator is the built-in operator whose token is TOPUPD_ADMIN_TOKEN.
const RootOperator = "root"

// Operator is a person (or a tool) that uses the admin API.
type Operator struct {
	Name       string
	Role       Role
	Disabled   bool
	CreatedAt  time.Time
	LastSeenAt *time.Time
}

// ActiveOwner reports whether the operator is an owner who is not
// disabled: a change may not leave none (ELastOwner).
func (o Operator) ActiveOwner() bool { return o.Role == RoleOwner && !o.Disabled }

// operatorNameRe is what an operator's name may look like.
var operatorNameRe = regexp.MustCompile(`^[a-z][a-z0-9._-]{1,63}$`)

// Validate checks an operator about to be stored.
func (o *Operator) Validate() error {
	switch {
	case !operatorNameRe.MatchString(o.Name):
		return Errorf(EInvalidBody, "name: 2 to 64 of a-z 0-9 . _ -, starting with a letter")
	case o.Name == RootOperator:
		return Errorf(EInvalidBody, "name: %q is the built-in operator of TOPUPD_ADMIN_TOKEN", RootOperator)
	case !o.Role.Valid():
		return Errorf(EInvalidBody, "role: owner, finance, support or viewer")
	}
	return nil
}

// OperatorPatch changes an operator's role or disabled flag; nil fields stay.
type OperatorPatch struct {
	Role     *Role
	Disabled *bool
}

// OperatorTokenPrefix starts every operator token, so that one is never
// taken for an API key.
const OperatorTokenPrefix = "tpo_"

// NewOperatorToken returns a fresh random operator token and its hash.
func NewOperatorToken() (string, KeyHash) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	token := OperatorTokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	return token, sha256.Sum256([]byte(token))
}

// HashOperatorToken hashes a presented token; false when it cannot be one.
func HashOperatorToken(token string) (KeyHash, bool) {
	if !strings.HasPrefix(token, OperatorTokenPrefix) || len(token) > 128 {
		return KeyHash{}, false
	}
	return sha256.Sum256([]byte(token)), true
}

// Actor is who makes an admin change: the operator, their IP and the request.
type Actor struct {
	Operator  string
	IP        string
	RequestID string
}

// Change is one admin change on its way to the action log. The admin API
// puts it in the request's context; the store fills in what changed and
// writes it in the same transaction as the change.
type Change struct {
	Actor
	// Action names the call, such as "account.update".
	Action string
	// Target is what it changed: an account, key, pack, order… id.
	Target string
	// AccountID is the account the change is about, when there is one.
	AccountID string
	// Before and After hold the fields that changed, as the admin API names
	// them, never a secret.
	Before, After map[string]any
	// SkipUnchanged leaves the change out of the log when Before and After
	// are both empty: an update that changed nothing (the service layer
	// sets it for its updates, whoever asks: admin API, console or bot).
	SkipUnchanged bool
	// Tells is the stream event that tells of the change, as its operation
	// declares it: AccountChanged or CatalogChanged, written with the
	// change's entry when it changed something; "" for none (a credit and
	// an order's changes have events of their own).
	Tells EventType
	// Recorded is set once the change is in the log.
	Recorded bool
	// Update, when its UpdateID is not zero, is the Bot API update (and
	// the chat) that asked for the change: stored with it (and in the
	// bot's updates) in the change's transaction, so that an update
	// redelivered after a crash changes nothing again (the store answers
	// EConflict).
	Update BotUpdate
}

// Diff sets Before and After to the fields whose values differ between
// before and after (a field only one of them has counts as changed).
func (c *Change) Diff(before, after map[string]any) {
	c.Before, c.After = map[string]any{}, map[string]any{}
	for k, a := range after {
		if b, ok := before[k]; !ok || !reflect.DeepEqual(a, b) {
			c.After[k] = a
			if ok {
				c.Before[k] = b
			}
		}
	}
	for k, b := range before {
		if _, ok := after[k]; !ok {
			c.Before[k] = b
		}
	}
}

// Action is one entry of the action log.
type Action struct {
	ID        int64
	At        time.Time
	Actor     Actor
	Action    string
	Target    string
	AccountID string
	Before    map[string]any
	After     map[string]any
}

// ActionsQuery selects action log entries, newest first; every field set
// narrows the selection. An Action ending in "." is a prefix: "pack."
// selects pack.create, pack.update and every other pack.* action.
type ActionsQuery struct {
	Operator, AccountID, Action string
	// From and To bound At to [From, To); zero leaves a side open.
	From, To time.Time
	// Before, when set, selects the entries after this one in the list.
	Before *ListKey
	Limit  int
}
