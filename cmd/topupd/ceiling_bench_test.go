package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/sqlstore"
	"github.com/topupd/topupd/internal/testing/topupdtest"
	"github.com/topupd/topupd/postgres"
	"github.com/topupd/topupd/sqlite"
)

// The storage ceiling: the raw writes of an instant top-up (the account's
// lock and charge, the order's row, the ledger's row, then the order's
// completion; sqlstore.RawOrder) from 64 concurrent clients, through the
// real store's pool and group commit, on a schema the real store migrated,
// so every row passes the same indexes and triggers as an order's. Each
// benchmark reports its rate and, when its counterpart ran earlier in the
// same process, the ratio of the order path's rate to the ceiling's:
//
//	go test -run '^$' -bench 'PlaceOrder$|OrderCeiling' ./cmd/topupd
//	go test -run '^$' -bench 'PostgresOrders/nodes=1|PostgresOrderCeiling' ./cmd/topupd

// rates holds the last rate each benchmark reported, by name, so that one
// run prints each ratio.
var rates sync.Map

// noteRate records b's rate under name and reports, against each rate of
// others recorded earlier in the same process, the ratio of the order path
// to the ceiling: as "order/<other>" on an order benchmark, as "order/ceiling"
// on a ceiling one.
func noteRate(b *testing.B, name string, rate float64, ceiling bool, others ...string) {
	rates.Store(name, rate)
	for _, other := range others {
		v, ok := rates.Load(other)
		switch {
		case !ok:
		case ceiling:
			b.ReportMetric(v.(float64)/rate, "order/ceiling")
		default:
			b.ReportMetric(rate/v.(float64), "order/"+other[strings.LastIndex(other, "/")+1:])
		}
	}
}

// ceilingStore opens a store for a ceiling benchmark, with a sim top-up
// pack and accounts funded well beyond the run.
func ceilingStore(b *testing.B, open func(ctx context.Context, vault *topupd.Vault) (*sqlstore.Store, func(), error), accounts int) (*sqlstore.Store, []string) {
	b.Helper()
	ctx := context.Background()
	secret := make([]byte, topupd.SecretKeySize)
	rand.Read(secret)
	vault, err := topupd.NewVault(secret)
	if err != nil {
		b.Fatal(err)
	}
	st, closeStore, err := open(ctx, vault)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(closeStore)
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(st.PutLine(ctx, nil, topupd.Line{Slug: "pubg", ProductName: "PUBG UC", GameName: "PUBG Mobile", Game: "pubg", Kind: topupd.KindTopup,
		Status: "active", Required: []topupd.RequiredField{{Field: "userId", Label: "Player ID"}}}))
	must(st.PutPack(ctx, nil, topupd.Pack{PID: "uc60", Slug: "pubg", Name: "60 UC", Price: 8_900, Status: "active", Provider: topupd.ProviderSim}))
	ids := make([]string, accounts)
	for i := range ids {
		a, err := st.CreateAccount(ctx, nil, topupd.Account{ID: topupd.NewID("acc_"), Name: fmt.Sprintf("ceiling %d", i), APIEnabled: true, CreatedAt: time.Now()})
		must(err)
		_, _, err = st.Credit(ctx, nil, a.ID, 100_000_000_000, "ceiling", time.Now())
		must(err)
		ids[i] = a.ID
	}
	return st, ids
}

// ceiling runs RawOrder from benchClients concurrent clients, over the
// accounts in turn, and reports orders/s and the latency percentiles.
func ceiling(b *testing.B, st *sqlstore.Store, accounts []string, oneTx bool) float64 {
	var n atomic.Int64
	run := time.Now().UnixNano()
	var mu sync.Mutex
	var all []time.Duration
	b.SetParallelism(max(1, benchClients/runtimeProcs()))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			i := n.Add(1)
			start := time.Now()
			err := st.RawOrder(context.Background(), sqlstore.CeilingOrder{AccountID: accounts[int(i)%len(accounts)], PID: "uc60", Slug: "pubg", Game: "pubg",
				TrxID: fmt.Sprintf("ceiling-%d-%d", run, i), Amount: 8_900, Now: time.Now(), OneTx: oneTx})
			if err != nil {
				b.Error(err)
				return
			}
			mine = append(mine, time.Since(start))
		}
		mu.Lock()
		all = append(all, mine...)
		mu.Unlock()
	})
	return reportLatencies(b, all, "orders/s")
}

// BenchmarkOrderCeiling is the storage ceiling of BenchmarkPlaceOrder: one
// SQLite file, one account, durable group commits. settle=apart places and
// settles in two transactions, as an instant order does today; settle=same-tx
// in one.
func BenchmarkOrderCeiling(b *testing.B) {
	for _, oneTx := range []bool{false, true} {
		name := map[bool]string{false: "settle=apart", true: "settle=same-tx"}[oneTx]
		b.Run(name, func(b *testing.B) {
			st, accounts := ceilingStore(b, func(ctx context.Context, vault *topupd.Vault) (*sqlstore.Store, func(), error) {
				s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "ceiling.db"), vault)
				if err != nil {
					return nil, nil, err
				}
				return s.Store, func() { s.Close() }, nil
			}, 1)
			rate := ceiling(b, st, accounts, oneTx)
			noteRate(b, "sqlite/ceiling/"+name, rate, true, "sqlite/order")
		})
	}
}

// BenchmarkPostgresOrderCeiling is the storage ceiling of
// BenchmarkPostgresOrders: a fresh schema, 64 accounts, and one node's
// pool (postgres.DefaultMaxConns connections, as topupd serve opens).
func BenchmarkPostgresOrderCeiling(b *testing.B) {
	if os.Getenv("TOPUPD_TEST_POSTGRES") == "" {
		b.Skip("TOPUPD_TEST_POSTGRES not set: skipping the PostgreSQL ceiling")
	}
	for _, oneTx := range []bool{false, true} {
		name := map[bool]string{false: "settle=apart", true: "settle=same-tx"}[oneTx]
		b.Run(name, func(b *testing.B) {
			dsn, _ := topupdtest.PostgresSchema(b)
			st, accounts := ceilingStore(b, func(ctx context.Context, vault *topupd.Vault) (*sqlstore.Store, func(), error) {
				s, err := postgres.Open(ctx, dsn, vault)
				if err != nil {
					return nil, nil, err
				}
				return s.Store, func() { s.Close() }, nil
			}, benchClients)
			rate := ceiling(b, st, accounts, oneTx)
			noteRate(b, "postgres/ceiling/"+name, rate, true, "postgres/order/nodes=1")
		})
	}
}
