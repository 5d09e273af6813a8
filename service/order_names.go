package service

import (
	"context"
	"strings"

	"github.com/topupd/topupd"
)

// AccountNames reads the names of the accounts ids names, each once, by
// live account id, without their balances; an account not found has no
// name in the answer. An order list shows names only where a person reads
// it (the console), so Orders leaves them to this call.
func (s *Service) AccountNames(ctx context.Context, a Actor, ids []string) (map[string]string, error) {
	if err := s.accountReadable(a, ""); err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, id := range ids {
		if _, ok := names[id]; ok {
			continue
		}
		acct, err := s.d.Store.Account(ctx, id)
		if topupd.CodeOf(err) == topupd.ENotFound {
			continue
		} else if err != nil {
			return nil, err
		}
		names[id] = acct.Name
	}
	return names, nil
}

// OrderAccounts are the live account ids of orders (a sandbox order's is
// its account's), for AccountNames.
func OrderAccounts(orders []topupd.Order) []string {
	ids := make([]string, len(orders))
	for i, o := range orders {
		ids[i], _ = topupd.LiveID(o.AccountID)
	}
	return ids
}

// AccountsNamed finds the accounts a name the operator typed means: those
// named so, whatever the case; else those whose name holds it (the
// account list's search), the first 20.
func (s *Service) AccountsNamed(ctx context.Context, a Actor, name string) ([]Account, error) {
	page, err := s.Accounts(ctx, a, AccountsQuery{Search: name, Limit: 20})
	if err != nil {
		return nil, err
	}
	var exact []Account
	for _, acc := range page.Accounts {
		if strings.EqualFold(acc.Name, name) {
			exact = append(exact, acc)
		}
	}
	if len(exact) > 0 {
		return exact, nil
	}
	return page.Accounts, nil
}
