package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/racer"
	"github.com/topupd/topupd/internal/testing/storetest"
)

// TestBatchGuards shows that the schema refuses what would undo a batch's
// void or falsify its counts (see storetest.BatchGuards).
func TestBatchGuards(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := openStore(t, f.url, storetest.NewVault(t))
	storetest.BatchGuards(t, s, rawDB(t, f.url), pidKey, pidTopup, f.processing)
}

// TestTwoNodesLowStockOnce: orders racing over two nodes bring a pack's
// stock to its lowStockAt and past it: one of them, on one node, raises
// the alert; two uploads racing over both nodes lift it above: one of
// them clears it.
func TestTwoNodesLowStockOnce(t *testing.T) {
	t.Parallel()
	nodes, _ := twoNodes(t)
	ctx := t.Context()
	catalog(t, nodes[0])
	level := 5
	_, err := nodes[0].UpdatePack(ctx, nil, pidKey, func(p *topupd.Pack) error { p.LowStockAt = &level; return nil })
	must(t, err)
	codes := make([]string, 30)
	for i := range codes {
		codes[i] = fmt.Sprintf("LOW-%02d", i)
	}
	_, err = nodes[1].AddStock(ctx, pidKey, codes, t0)
	must(t, err)
	a := account(t, nodes[0], "acc_low", topupd.USD(1000))
	flips := func(n int, call func(ctx context.Context, i int)) []topupd.LowStockAlert {
		notes := racer.Run(n, func(i int) []topupd.LowStockAlert {
			n := &topupd.LowStockNotes{}
			call(topupd.WithLowStockNotes(ctx, n), i)
			return n.Take()
		})
		var all []topupd.LowStockAlert
		for _, n := range notes {
			all = append(all, n...)
		}
		return all
	}
	raised := flips(40, func(ctx context.Context, i int) {
		_, _, err := place(nodes[i%2], ctx, a, topupd.OrderRequest{PID: pidKey, TrxID: fmt.Sprintf("T-LOW-%02d", i), Quantity: 1})
		if err != nil && topupd.CodeOf(err) != topupd.EInsufficientStock {
			t.Errorf("order %d: %v", i, err)
		}
	})
	if want := []topupd.LowStockAlert{{PID: pidKey, Raised: true, Available: 5, LowStockAt: 5}}; !cmp.Equal(want, raised) {
		t.Errorf("flips of 40 orders over two nodes: %+v, want %+v", raised, want)
	}
	cleared := flips(2, func(ctx context.Context, i int) {
		_, err := nodes[i].AddStock(ctx, pidKey, []string{fmt.Sprintf("UP-%d-1", i), fmt.Sprintf("UP-%d-2", i), fmt.Sprintf("UP-%d-3", i)}, t0)
		if err != nil {
			t.Errorf("upload on node %d: %v", i, err)
		}
	})
	if want := []topupd.LowStockAlert{{PID: pidKey, Raised: false, Available: 6, LowStockAt: 5}}; !cmp.Equal(want, cleared) {
		t.Errorf("flips of two uploads over two nodes: %+v, want %+v", cleared, want)
	}
	if low, err := nodes[1].LowStock(ctx); err != nil || !cmp.Equal(low, map[string]bool{pidKey: false}) {
		t.Errorf("LowStock: %v, %v", low, err)
	}
}
