package actor

import (
	"fmt"
	"reflect"
)

// hashMayPanic reports whether hashing a value of type t can panic: whether t is an interface,
// or holds one in a field or an element, whose dynamic value may be a slice, a map or a func.
func hashMayPanic(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Array:
		return hashMayPanic(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hashMayPanic(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// keyError is what a method panics with when given an item that cannot be a map key. It
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

// mustHash panics in the caller's goroutine with a keyError naming method if item cannot be a
// map key: the same check client-go's Add fails on, made before the item reaches the owner.
func mustHash[T comparable](method string, item T) {
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

// checkAdd checks item before an add: it panics, in the caller's goroutine, if item cannot be a
// map key, or if the queue's group function panics for it (see Config.Group). Calling the group
// function here, where the caller is, lets a grouped queue run it again in the owner without
// making every caller wait for the outcome: a function that returned for an item here returns
// for it there too, unless it is not a function of the item alone (see ownGroup).
func (q *Queue[T]) checkAdd(method string, item T) {
	q.check(method, item)
	if q.group != nil {
		q.group(item)
	}
}

// ownGroup returns group as the owner calls it, and as the cores need it, never panicking: a
// panic, which the caller's check did not meet, is kept for the next caller that waits, and
// the item goes into the group named by the empty string rather than be lost.
func (q *Queue[T]) ownGroup(group func(T) string) func(T) string {
	return func(item T) (name string) {
		defer func() {
			if p := recover(); p != nil {
				q.keep(p)
				name = ""
			}
		}()
		return group(item)
	}
}
