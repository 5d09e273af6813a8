package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestGroupCommitAlone: under group commit, a transaction marked withAlone
// runs in a transaction of its own, outside any savepoint (SQLite would
// keep every page it changes in memory for the savepoint), while the
// others share groups; and a caller that fails is still rolled back alone.
// The callers queue behind one that holds the writer, so that the groups
// after it have many callers to share.
func TestGroupCommitAlone(t *testing.T) {
	s := openTestStore(t, `CREATE TABLE runs (n INTEGER NOT NULL)`, testDialect(true))
	ctx := t.Context()
	hold, held := make(chan struct{}), make(chan struct{})
	go s.inTx(ctx, func(context.Context, *sql.Tx) error { close(held); <-hold; return nil })
	<-held
	const callers = 40
	alone := func(i int) bool { return i%10 == 0 }
	fails := func(i int) bool { return i%7 == 3 }
	var wg sync.WaitGroup
	errs := make([]error, callers)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx := ctx
			if alone(i) {
				cctx = withAlone(ctx)
			}
			errs[i] = s.inTx(cctx, func(ctx context.Context, tx *sql.Tx) error {
				if _, err := tx.ExecContext(ctx, `INSERT INTO runs (n) VALUES ($1)`, i); err != nil {
					return err
				}
				if alone(i) { // inside a group's savepoint this would end it; alone there is none
					if _, err := tx.ExecContext(ctx, `RELEASE caller`); err == nil {
						return fmt.Errorf("caller %d ran inside a shared group's savepoint", i)
					}
				}
				if fails(i) {
					return errors.New("refused")
				}
				return nil
			})
		}()
	}
	time.Sleep(50 * time.Millisecond) // let them queue behind the holder
	close(hold)
	wg.Wait()
	want := 0
	for i, err := range errs {
		switch {
		case fails(i) && err == nil:
			t.Errorf("caller %d: no error, want its refusal", i)
		case !fails(i) && err != nil:
			t.Errorf("caller %d: %v", i, err)
		case !fails(i):
			want++
		}
	}
	var rows int
	if err := s.write.QueryRow(`SELECT count(*) FROM runs WHERE n % 7 <> 3`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	var refused int
	if err := s.write.QueryRow(`SELECT count(*) FROM runs WHERE n % 7 = 3`).Scan(&refused); err != nil {
		t.Fatal(err)
	}
	if rows != want || refused != 0 {
		t.Errorf("%d rows of callers that succeeded (want %d) and %d of callers refused (want 0)", rows, want, refused)
	}
}
