package service

import (
	"context"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// The operations on accounts, their keys, credits, prices, tiers and chats.
const (
	OpCreateAccount      Op = "account.create"
	OpUpdateAccount      Op = "account.update"
	OpCreateKey          Op = "key.create"
	OpRevokeKey          Op = "key.revoke"
	OpRotateKey          Op = "key.rotate"
	OpChatLink           Op = "chat.link-code"
	OpUnlinkChat         Op = "chat.unlink"
	OpCredit             Op = "account.credit"
	OpSetAccountPrice    Op = "price.set"
	OpDeleteAccountPrice Op = "price.delete"
	OpPutTier            Op = "tier.put"
)

// accountOps are the permissions of the operations on accounts, their keys, credits, prices, tiers and chats.
var accountOps = map[Op]rule{
	OpCreateAccount: {topupd.PermAccounts, topupd.AccountChanged},
	// The patch decides: PermAccounts for flags, PermPrices for the tier
	// and limits (see UpdateAccount).
	OpUpdateAccount:      {topupd.PermRead, topupd.AccountChanged},
	OpCreateKey:          {topupd.PermAccounts, topupd.AccountChanged},
	OpRevokeKey:          {topupd.PermAccounts, topupd.AccountChanged},
	OpRotateKey:          {topupd.PermAccounts, topupd.AccountChanged},
	OpChatLink:           {topupd.PermAccounts, topupd.AccountChanged},
	OpUnlinkChat:         {topupd.PermAccounts, topupd.AccountChanged},
	OpCredit:             {perm: topupd.PermCredit},
	OpSetAccountPrice:    {topupd.PermPrices, topupd.AccountChanged},
	OpDeleteAccountPrice: {topupd.PermPrices, topupd.AccountChanged},
	OpPutTier:            {topupd.PermPrices, topupd.CatalogChanged},
}

// accountStore is what the operations on accounts, their keys, credits, prices, tiers and chats need of the database.
type accountStore interface {
	CreateAccount(ctx context.Context, ch *topupd.Change, a topupd.Account) (topupd.Account, error)
	Account(ctx context.Context, id string) (topupd.Account, error)
	Accounts(ctx context.Context, q topupd.AccountsQuery) ([]topupd.Account, error)
	UpdateAccount(ctx context.Context, ch *topupd.Change, id string, p topupd.AccountPatch) (topupd.Account, error)
	Balance(ctx context.Context, accountID string) (topupd.Money, error)

	AddKey(ctx context.Context, ch *topupd.Change, k topupd.APIKey, h topupd.KeyHash) error
	Keys(ctx context.Context, accountID string) ([]topupd.APIKey, error)
	RevokeKey(ctx context.Context, ch *topupd.Change, keyID string, now time.Time) error
	RotateKey(ctx context.Context, ch *topupd.Change, oldKeyID string, k topupd.APIKey, h topupd.KeyHash, revokeAt time.Time) error

	Credit(ctx context.Context, ch *topupd.Change, accountID string, amount topupd.Money, reference string, now time.Time) (topupd.LedgerEntry, bool, error)
	Ledger(ctx context.Context, accountID string, limit int) ([]topupd.LedgerEntry, error)
	LedgerBefore(ctx context.Context, accountID string, beforeID int64, limit int) ([]topupd.LedgerEntry, error)

	Packs(ctx context.Context) ([]topupd.Pack, error)
	PriceBook(ctx context.Context, accountID string) (topupd.PriceBook, error)
	SetAccountPrice(ctx context.Context, ch *topupd.Change, accountID, pid string, price topupd.Money) error
	DeleteAccountPrice(ctx context.Context, ch *topupd.Change, accountID, pid string) error
	PutTier(ctx context.Context, ch *topupd.Change, t topupd.Tier) (topupd.Tier, error)
	Tiers(ctx context.Context) ([]topupd.Tier, error)

	CreateChatLink(ctx context.Context, ch *topupd.Change, l topupd.ChatLink) error
	Chats(ctx context.Context, accountID, operator string) ([]topupd.Chat, error)
	UnlinkChat(ctx context.Context, ch *topupd.Change, accountID string, chatID int64) error
}

// Account is an account with its balance.
type Account struct {
	topupd.Account
	// Balance is the sum of the account's ledger entries.
	Balance topupd.Money
	// ClaimRatio30d is the account's live disputes opened in the last 30
	// days over its live orders completed in them (nil when none).
	ClaimRatio30d *topupd.Ratio
}

// AccountsQuery selects a page of accounts, newest first.
type AccountsQuery struct {
	// Search, when not empty, matches the id exactly or a part of the name
	// (spaces around it do not count).
	Search string
	// Cursor, when not empty, is the NextCursor of the page before.
	Cursor string
	// Limit is the page's length: 1 to MaxAccountsPage.
	Limit int
}

// AccountsPage is one page of accounts.
type AccountsPage struct {
	Accounts []Account
	// NextCursor asks for the next page; empty on the last.
	NextCursor string
}

// MaxAccountsPage is the longest page of accounts.
const MaxAccountsPage = 500

// accountsCursor starts the cursor of the account list, so that another
// list's cursor is refused by it.
const accountsCursor = "a:"

// CreateAccount makes an account from a patch that names it (INVALID_BODY
// without a name), with the API enabled unless the patch says otherwise.
// A tier or a limit in the patch needs PermPrices besides.
func (s *Service) CreateAccount(ctx context.Context, a Actor, p topupd.AccountPatch) (Account, error) {
	if err := Allowed(a, OpCreateAccount); err != nil {
		return Account{}, err
	}
	if err := a.Own(""); err != nil {
		return Account{}, err
	}
	if err := accountPatchAllowed(a, p); err != nil {
		return Account{}, err
	}
	if p.Name == nil {
		return Account{}, topupd.Errorf(topupd.EInvalidBody, "name is required")
	}
	acct, err := p.Apply(topupd.Account{ID: topupd.NewID("acc_"), APIEnabled: true, IPAllowlist: []string{}, CreatedAt: s.d.Now()})
	if err != nil {
		return Account{}, err
	}
	if acct, err = s.d.Store.CreateAccount(ctx, change(a, OpCreateAccount, ""), acct); err != nil {
		return Account{}, err
	}
	s.changed(ctx)
	return s.withBalance(ctx, acct)
}

// UpdateAccount applies a patch to an account: its tier and limits need
// PermPrices, anything else (or nothing) PermAccounts. A reseller's chat
// may change only its own account's API access and allow-list.
func (s *Service) UpdateAccount(ctx context.Context, a Actor, accountID string, p topupd.AccountPatch) (Account, error) {
	if err := Allowed(a, OpUpdateAccount); err != nil {
		return Account{}, err
	}
	if err := a.Own(accountID); err != nil {
		return Account{}, err
	}
	if err := chatAccountPatch(a, p); err != nil {
		return Account{}, err
	}
	if err := accountPatchAllowed(a, p); err != nil {
		return Account{}, err
	}
	acct, err := s.d.Store.UpdateAccount(ctx, update(a, OpUpdateAccount, accountID), accountID, p)
	if err != nil {
		return Account{}, err
	}
	s.changed(ctx)
	return s.withBalance(ctx, acct)
}

// accountPatchAllowed refuses a patch the actor's role may not make: a
// tier and spending limits decide what the account pays (finance's and
// the owner's); the rest of the account is support's.
func accountPatchAllowed(a Actor, p topupd.AccountPatch) error {
	forbidden := topupd.Errorf(topupd.ERoleForbidden, "the %s role may not do this", a.Role)
	if p.Priced() && !a.Role.May(topupd.PermPrices) {
		return forbidden
	}
	if p.Flagged() && !a.Role.May(topupd.PermAccounts) {
		return forbidden
	}
	return nil
}

// chatAccountPatch refuses, for a reseller's chat, a patch of any field
// but apiEnabled, ipAllowlist and ipAllowlistRequired (the admin API's
// names): never adminDisabled, banned or restrictedUntil, which are the
// operator's.
func chatAccountPatch(a Actor, p topupd.AccountPatch) error {
	if a.Role != topupd.RoleResellerChat {
		return nil
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"name", p.Name != nil}, {"adminDisabled", p.AdminDisabled != nil}, {"banned", p.Banned != nil},
		{"restrictedUntil", p.RestrictedUntil != nil}, {"tier", p.Tier != nil}} {
		if f.set {
			return topupd.Errorf(topupd.ERoleForbidden, "a reseller's chat may not change %s", f.name)
		}
	}
	if len(p.Limits) > 0 {
		return topupd.Errorf(topupd.ERoleForbidden, "a reseller's chat may not change spending limits")
	}
	return nil
}

// Account reads one account, with its balance.
func (s *Service) Account(ctx context.Context, a Actor, accountID string) (Account, error) {
	if err := s.accountReadable(a, accountID); err != nil {
		return Account{}, err
	}
	acct, err := s.d.Store.Account(ctx, accountID)
	if err != nil {
		return Account{}, err
	}
	return s.withBalance(ctx, acct)
}

// Accounts reads a page of accounts, newest first, each with its balance.
func (s *Service) Accounts(ctx context.Context, a Actor, q AccountsQuery) (AccountsPage, error) {
	if err := s.accountReadable(a, ""); err != nil {
		return AccountsPage{}, err
	}
	if q.Limit < 1 || q.Limit > MaxAccountsPage {
		return AccountsPage{}, topupd.Errorf(topupd.EInvalidRequest, "limit: a whole number from 1 to %d", MaxAccountsPage)
	}
	sq := topupd.AccountsQuery{Search: strings.TrimSpace(q.Search), Limit: q.Limit + 1}
	if q.Cursor != "" {
		bad := topupd.Errorf(topupd.EInvalidRequest, "cursor: not one this list gave")
		id, ok := strings.CutPrefix(q.Cursor, accountsCursor)
		if !ok || id == "" {
			return AccountsPage{}, bad
		}
		after, err := s.d.Store.Account(ctx, id)
		if err != nil {
			return AccountsPage{}, bad
		}
		sq.After = &after
	}
	accts, err := s.d.Store.Accounts(ctx, sq)
	if err != nil {
		return AccountsPage{}, err
	}
	var page AccountsPage
	if len(accts) > q.Limit {
		accts = accts[:q.Limit]
		page.NextCursor = accountsCursor + accts[len(accts)-1].ID
	}
	page.Accounts = make([]Account, len(accts))
	for i := range accts {
		if page.Accounts[i], err = s.withBalance(ctx, accts[i]); err != nil {
			return AccountsPage{}, err
		}
	}
	return page, nil
}

// withBalance adds an account's balance and claim ratio to it.
func (s *Service) withBalance(ctx context.Context, acct topupd.Account) (Account, error) {
	bal, err := s.d.Store.Balance(ctx, acct.ID)
	if err != nil {
		return Account{}, err
	}
	disputes, completed, err := s.d.Store.ClaimCounts(ctx, acct.ID, s.d.Now().Add(-topupd.ClaimWindow))
	if err != nil {
		return Account{}, err
	}
	return Account{Account: acct, Balance: bal, ClaimRatio30d: topupd.ClaimRatio(disputes, completed)}, nil
}

// accountReadable refuses a read the actor may not make: any operator may
// read anything, a reseller's chat only its own account (accountID "" is
// a read about no one account, which a chat may not make).
func (s *Service) accountReadable(a Actor, accountID string) error {
	if err := Allowed(a, OpRead); err != nil {
		return err
	}
	return a.Own(accountID)
}

// accountExists refuses, as NOT_FOUND, an account that does not exist.
func (s *Service) accountExists(ctx context.Context, accountID string) error {
	_, err := s.d.Store.Account(ctx, accountID)
	return err
}
