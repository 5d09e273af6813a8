package service_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/benchdata"
	"github.com/topupd/topupd/internal/testing/storetest"
	"github.com/topupd/topupd/internal/testing/topupdtest"
	"github.com/topupd/topupd/postgres"
	"github.com/topupd/topupd/service"
	"github.com/topupd/topupd/sqlite"
)

// monthOrders is how many orders BenchmarkReconcileMonth reconciles.
const monthOrders = 1_000_000

// BenchmarkReconcileMonth reconciles, by pull, a month (30 days) of
// 1,000,000 orders at one upstream, on SQLite and (with
// TOPUPD_TEST_POSTGRES) PostgreSQL: the orders are written straight into
// the database (benchdata.SeedUpstream), and the supplier's books are a
// stand-in that lists each order as a topupd upstream's statement and
// history would (a charge for each, a refund for each cancelled one, a
// status line for each), but every 1,000th charged another price and
// every 10,000th missing. Each run is one ReconcilePull, as an operator's
// or the nightly run makes it: our orders read, matched, the
// reconciliation and its mismatches stored. It reports the peak of the
// process's resident memory (peak-rss-MB), how far it rose above what the
// process held before the runs (rss-growth-MB: the seeding's leftovers
// returned first), and the peak of the Go heap (peak-heap-MB), garbage
// not yet collected included.
func BenchmarkReconcileMonth(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "recon.db")
		s, err := sqlite.Open(context.Background(), path, storetest.NewVault(b))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		benchReconcile(b, s, "sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	})
	b.Run("postgres", func(b *testing.B) {
		dsn, ok := topupdtest.PostgresSchema(b)
		if !ok {
			b.Skip("TOPUPD_TEST_POSTGRES not set")
		}
		s, err := postgres.Open(context.Background(), dsn, storetest.NewVault(b))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		benchReconcile(b, s, "pgx", dsn)
	})
}

// reconStore is what the benchmark needs of a store.
type reconStore interface {
	service.Store
	PutUpstream(ctx context.Context, ch *topupd.Change, u topupd.Upstream) error
}

// benchReconcile seeds the month through driver and dsn, then reconciles it.
func benchReconcile(b *testing.B, s service.Store, driver, dsn string) {
	ctx := context.Background()
	to := time.Date(2030, 3, 31, 0, 0, 0, 0, time.UTC)
	from := to.AddDate(0, 0, -30)
	st := s.(reconStore)
	if err := st.PutUpstream(ctx, nil, topupd.Upstream{Name: "b", BaseURL: "http://127.0.0.1:1", APIKey: "k"}); err != nil {
		b.Fatal(err)
	}
	if _, err := s.CreateAccount(ctx, nil, topupd.Account{ID: "acc_shop", Name: "shop", APIEnabled: true, CreatedAt: from}); err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		b.Fatal(err)
	}
	if err := benchdata.SeedUpstream(ctx, db, benchdata.UpstreamOrders{N: monthOrders, From: from, To: to, Upstream: "b",
		Account: "acc_shop", Cost: 12_500}); err != nil {
		b.Fatal(err)
	}
	db.Close()
	svc, err := service.New(service.Deps{Store: s, Books: monthBooks{}, Now: func() time.Time { return to.Add(time.Hour) }})
	if err != nil {
		b.Fatal(err)
	}
	owner := service.Actor{Operator: "bench", Role: topupd.RoleOwner}
	period := topupd.ReconPeriod{From: from, To: to.AddDate(0, 0, -1)}
	runtime.GC()
	debug.FreeOSMemory()
	base := residentBytes()
	peak := watchMemory()
	b.ResetTimer()
	for b.Loop() {
		r, err := svc.ReconcilePull(ctx, owner, "b", period)
		if err != nil {
			b.Fatal(err)
		}
		if want := monthOrders/1000 + monthOrders/10_000; len(r.Mismatches) < want || r.Matched < monthOrders*9/10 {
			b.Fatalf("%d mismatches, %d matched", len(r.Mismatches), r.Matched)
		}
	}
	b.StopTimer()
	rss, heap := peak()
	b.ReportMetric(float64(rss)/1e6, "peak-rss-MB")
	b.ReportMetric(float64(rss-min(base, rss))/1e6, "rss-growth-MB")
	b.ReportMetric(float64(heap)/1e6, "peak-heap-MB")
}

// monthBooks is the supplier's books of the benchmark's month
// (topupd.SupplierBooks): every order listed, every 1,000th charged
// another price and every 10,000th (offset by 5) missing.
type monthBooks struct{}

// Books lists the month's orders as their upstream would.
func (monthBooks) Books(ctx context.Context, u topupd.Upstream, p topupd.ReconPeriod, into *topupd.TheirBooks) (*topupd.Money, *topupd.Money, error) {
	opening, closing := topupd.Money(1_000_000_000), topupd.Money(0)
	step := p.End().Sub(p.Start()) / monthOrders
	for i := range monthOrders {
		if i%10_000 == 5 {
			continue
		}
		ref, order, at := "topupd-"+benchdata.UpstreamOrderID(i), benchdata.UpstreamRef(i), p.Start().Add(time.Duration(i)*step)
		charge := topupd.Money(12_500)
		if i%1000 == 7 {
			charge = 13_000
		}
		status := topupd.OrderStatus(benchdata.UpstreamStatus(i))
		into.Add(topupd.TheirRow{Reference: ref, Amount: charge, Order: order, At: at})
		into.Add(topupd.TheirRow{Reference: ref, Status: status, Order: order, At: at})
		if status == topupd.StatusCancelled {
			into.Add(topupd.TheirRow{Reference: ref, Amount: -charge, Order: order, At: at.Add(time.Minute)})
		}
	}
	return &opening, &closing, nil
}

// Lookup finds nothing: what the month's books do not list, the supplier
// does not know.
func (monthBooks) Lookup(ctx context.Context, u topupd.Upstream, refs []string, into *topupd.TheirBooks) error {
	return nil
}

// watchMemory samples the process's resident memory and the Go heap
// every 5 ms until the returned function stops it and gives their peaks.
func watchMemory() func() (rss, heap uint64) {
	var stop atomic.Bool
	var peakRSS, peakHeap uint64
	done := make(chan struct{})
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(done)
		for !stop.Load() {
			metrics.Read(sample)
			peakHeap = max(peakHeap, sample[0].Value.Uint64())
			peakRSS = max(peakRSS, residentBytes())
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return func() (uint64, uint64) {
		stop.Store(true)
		<-done
		return peakRSS, peakHeap
	}
}

// residentBytes is the process's resident memory (VmRSS), 0 where
// /proc cannot tell it.
func residentBytes() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb uint64
		if n, _ := fmt.Sscanf(sc.Text(), "VmRSS: %d kB", &kb); n == 1 {
			return kb * 1024
		}
	}
	return 0
}
