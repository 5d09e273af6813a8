package service

import (
	"context"
	"strings"

	"github.com/topupd/topupd"
)

// accountNames reads the names of the orders' accounts, by live account id
// (a sandbox order's is its account's), each account once by its key.
func (s *Service) accountNames(ctx context.Context, orders []topupd.Order) (map[string]string, error) {
	names := map[string]string{}
	for _, o := range orders {
		id, _ := topupd.LiveID(o.AccountID)
		if _, ok := names[id]; ok {
			continue
		}
		a, err := s.d.Store.Account(ctx, id)
		if err != nil {
			return nil, err
		}
		names[id] = a.Name
	}
	return names, nil
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
