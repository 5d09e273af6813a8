package sqlite

import (
	"context"
	"fmt"
	"testing"

	"github.com/topupd/topupd"
)

// BenchmarkStreamRead reads the event stream as a notifier does, at 1,000
// and 100,000 events: a batch of the newest 100, and the idle read at the
// end that every notifier makes each poll. Neither should grow with the
// stream (a read once sought to tx alone and walked every event before its
// position: TestHotQueriesUseIndexes).
func BenchmarkStreamRead(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		s := openTest(b)
		end := seedEvents(b, s, n)
		for _, c := range []struct {
			name  string
			after int64
			want  int
		}{{"newest-100", end.Seq - 100, 100}, {"idle", end.Seq, 0}} {
			b.Run(fmt.Sprintf("events=%d/%s", n, c.name), func(b *testing.B) {
				for b.Loop() {
					got, err := s.Events(context.Background(), topupd.StreamPos{Tx: end.Tx, Seq: c.after}, 200)
					if err != nil || len(got) != c.want {
						b.Fatalf("%d events, want %d: %v", len(got), c.want, err)
					}
				}
			})
		}
	}
}

// seedEvents writes n events straight into the stream and returns the
// position of the newest; fast, for read benchmarks only.
func seedEvents(b *testing.B, s *Store, n int) topupd.StreamPos {
	b.Helper()
	ctx := context.Background()
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO events (id, at, type, data) VALUES ($1, 0, 'packs.changed', '{"pids":["p"]}')`)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		if _, err := stmt.ExecContext(ctx, fmt.Sprintf("evt_bench_%d", i)); err != nil {
			b.Fatal(err)
		}
	}
	stmt.Close()
	var end topupd.StreamPos
	if err := tx.QueryRowContext(ctx, `SELECT tx, seq FROM events ORDER BY seq DESC LIMIT 1`).Scan(&end.Tx, &end.Seq); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return end
}
