// Package keys checks that an item can be a queue's key before it reaches a queue's goroutine:
// a value of an interface type holding a slice, a map or a func cannot be hashed, and a map
// lookup of it panics. Every method of a queue that takes an item checks it in the caller.
package keys

import (
	"fmt"
	"reflect"
)

// MayPanic reports whether hashing a value of type t can panic: whether t is an interface,
// or holds one in a field or an element, whose dynamic value may be a slice, a map or a func.
func MayPanic(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Array:
		return MayPanic(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if MayPanic(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// keyError is what Check panics with when given an item that cannot be a map key. It
// satisfies runtime.Error, as the runtime's own panic in client-go's map does, so code that
// recovers with r.(runtime.Error) works with either queue. Its message names the method and
// the item's type; it unwraps to the runtime's error.
type keyError struct {
	msg   string
	cause error // what hashing the item panicked with
}

// Error returns the message naming the method, the item's type and the runtime's error.
func (e keyError) Error() string { return e.msg }

// RuntimeError marks keyError as a runtime.Error.
func (keyError) RuntimeError() {}

// Unwrap returns the runtime's error.
func (e keyError) Unwrap() error { return e.cause }

// Check panics in the caller's goroutine with a keyError naming method if item cannot be a
// map key: the same check client-go's Add fails on, made before the item reaches a queue's
// goroutine.
func Check[T comparable](method string, item T) {
	defer func() {
		if r := recover(); r != nil {
			cause, ok := r.(error)
			if !ok {
				cause = fmt.Errorf("%v", r)
			}
			panic(keyError{
				msg:   fmt.Sprintf("workqueue: %s: an item of type %T cannot be a queue key: %v", method, item, cause),
				cause: cause,
			})
		}
	}()
	var keys map[T]struct{}
	_ = keys[item] // a lookup, even in a nil map, hashes the key
}
