// Package racer runs a function in many goroutines let go at once: the
// races the tests start to prove that the database, not luck, keeps the
// books right.
package racer

import "sync"

// Run runs fn(i) for i in [0, n) in n goroutines released together, and
// returns their results in the order of i.
func Run[T any](n int, fn func(i int) T) []T {
	out := make([]T, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			out[i] = fn(i)
		})
	}
	close(start)
	wg.Wait()
	return out
}

// Run2 is Run for a function with two results.
func Run2[A, B any](n int, fn func(i int) (A, B)) ([]A, []B) {
	as, bs := make([]A, n), make([]B, n)
	Run(n, func(i int) struct{} {
		as[i], bs[i] = fn(i)
		return struct{}{}
	})
	return as, bs
}
