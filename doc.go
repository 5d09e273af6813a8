// Package topupd is the domain of a game top-up, game key and gift card
// reselling service: accounts and their API keys, service lines and packs,
// orders, money and ledger entries, error codes, and the interfaces of the
// store and of a supplier (provider). It imports nothing else of the project;
// the adapters (sqlite, httpapi, fulfil, provider/…) import it.
package topupd
