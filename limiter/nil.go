package limiter

import (
	"reflect"
	"time"
)

// isNil reports whether v is nil or holds a nil pointer, map, slice, channel or function: a
// value whose methods would fail on first use.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// IsNil reports whether l is nil, or a nil pointer to one of this package's limiters: a
// limiter no queue can use. A nil value of another package's type is let through, as client-go
// lets it: its methods may well not read their receiver.
func IsNil[T comparable](l RateLimiter[T]) bool {
	if l == nil {
		return true
	}
	_, own := ours(l)
	return own && isNil(l)
}

// missing stands for the nil rate limiter a queue was built with by constructor (the name of
// the function given nil). client-go's queue calls the nil limiter in AddRateLimited, Forget
// and NumRequeues, and fails there, in the caller, with a nil-pointer dereference. missing's
// methods fail at the same calls, with a runtime.Error that says what is wrong. It is not one
// of this package's limiters: no queue adopts it, so it is called in the caller's goroutine,
// as any limiter of others is.
type missing[T comparable] struct{ constructor string }

func (m missing[T]) When(T) time.Duration { panic(m.error("AddRateLimited")) }
func (m missing[T]) Forget(T)             { panic(m.error("Forget")) }
func (m missing[T]) NumRequeues(T) int    { panic(m.error("NumRequeues")) }

func (m missing[T]) error(method string) noLimiter {
	return noLimiter("workqueue: " + method + ": the queue has no rate limiter: " +
		m.constructor + " was given nil")
}

// noLimiter is the panic of a call that needs the rate limiter of a queue built without one.
type noLimiter string

func (e noLimiter) Error() string { return string(e) }

// RuntimeError marks noLimiter as a runtime.Error, as client-go's nil-pointer dereference is.
func (noLimiter) RuntimeError() {}
