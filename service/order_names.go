package service

import (
	"context"
	"strings"

	"github.com/topupd/topupd"
)

// accountNames reads the names of the orders' accounts, by live account id
// (a sandbox order's is its account's), each account once by its key.
func (s *Service) accountNames(ctx context.Context, orders []topupd.Order) (map[string]string, error) {
	ids := make([]string, len(orders))
	for i, o := range orders {
		ids[i], _ = topupd.LiveID(o.AccountID)
	}
	return s.namesOf(ctx, ids, false)
}

// AccountNames reads the names of the accounts ids names, each once, by
// live account id, without their balances; an account not found has no
// name in the answer.
func (s *Service) AccountNames(ctx context.Context, a Actor, ids []string) (map[string]string, error) {
	if err := s.accountReadable(a, ""); err != nil {
		return nil, err
	}
	return s.namesOf(ctx, ids, true)
}

// namesOf reads each account of ids once; with missingOK an account not
// found is left out, else it fails the read.
func (s *Service) namesOf(ctx context.Context, ids []string, missingOK bool) (map[string]string, error) {
	names := map[string]string{}
	for _, id := range ids {
		if _, ok := names[id]; ok {
			continue
		}
		a, err := s.d.Store.Account(ctx, id)
		if missingOK && topupd.CodeOf(err) == topupd.ENotFound {
			continue
		} else if err != nil {
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
