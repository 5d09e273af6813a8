package storetest

import (
	"database/sql"
	"testing"

	"github.com/topupd/topupd"
)

// WholeCentsMigration checks migration 00041 (back-office.md 4 (a)) on a
// database taken back to 00040 by down, db being its raw connection: prices
// with more than 2 decimals, a pack's, a tier's and an account's own, are
// rounded up to the cent, a tier rounding to less than a cent rounds to
// it, and every pack is marked changed for every account (so no catalog a
// client kept shows a price the charge now differs from); whole prices
// are left alone.
func WholeCentsMigration(t *testing.T, open func(t *testing.T) topupd.Store, down func(t *testing.T), db *sql.DB) {
	e := newEnv(t, open)
	e.catalog()
	a := e.account("cents", topupd.USD(10))
	gold := topupd.Tier{Name: "gold", RoundTo: topupd.Cent, Prices: map[string]topupd.Money{pidTopup: topupd.USD(1)}}
	if _, err := e.s.PutTier(e.ctx, nil, gold); err != nil {
		t.Fatal(err)
	}
	if err := e.s.SetAccountPrice(e.ctx, nil, a.ID, pidTopup, topupd.USD(2)); err != nil {
		t.Fatal(err)
	}
	if err := e.s.Close(); err != nil {
		t.Fatal(err)
	}
	down(t)
	for _, q := range []string{
		`UPDATE packs SET price = 8901 WHERE pid = '` + pidTopup + `'`,
		`UPDATE packs SET price = 20000 WHERE pid = '` + pidKey + `'`,
		`UPDATE tier_prices SET price = 10001`,
		`UPDATE account_prices SET price = 19999`,
		`UPDATE tiers SET round_to = 0`,
		`DELETE FROM catalog_marks`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("at 00040, %s: %v", q, err)
		}
	}
	e = newEnv(t, open)
	t.Cleanup(func() { e.s.Close() })
	var topup, key, tier, own, round, marks, accounts int64
	err := db.QueryRow(`SELECT (SELECT price FROM packs WHERE pid = $1), (SELECT price FROM packs WHERE pid = $2),
		(SELECT price FROM tier_prices), (SELECT price FROM account_prices), (SELECT round_to FROM tiers),
		(SELECT COUNT(*) FROM catalog_marks WHERE account_id = '' AND pid <> ''), (SELECT COUNT(*) FROM catalog_marks WHERE account_id <> '' AND pid = '')`,
		pidTopup, pidKey).Scan(&topup, &key, &tier, &own, &round, &marks, &accounts)
	if err != nil {
		t.Fatal(err)
	}
	if topup != 9000 || key != 20000 || tier != 10100 || own != 20000 || round != 100 {
		t.Errorf("after 00041: packs %d and %d, tier price %d, own price %d, tier rounding %d; want 9000, 20000, 10100, 20000, 100",
			topup, key, tier, own, round)
	}
	if marks != int64(len(packs)) || accounts < 1 {
		t.Errorf("after 00041: %d packs marked for everyone (want %d), %d accounts marked", marks, len(packs), accounts)
	}
}
