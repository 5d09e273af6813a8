package topupd

import "context"

// ctxKey is the context key of the one value of type T a context carries.
type ctxKey[T any] struct{}

// withValue returns ctx carrying v, the value of its type.
func withValue[T any](ctx context.Context, v T) context.Context {
	return context.WithValue(ctx, ctxKey[T]{}, v)
}

// valueOf returns the value of type T ctx carries, or T's zero value.
func valueOf[T any](ctx context.Context) T {
	v, _ := ctx.Value(ctxKey[T]{}).(T)
	return v
}
