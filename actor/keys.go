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

// mustHash panics in the caller's goroutine, naming the method, if item cannot be a map key:
// the same check client-go's Add fails on, made before the item reaches the owner.
func mustHash[T comparable](method string, item T) {
	defer func() {
		if r := recover(); r != nil {
			err, ok := r.(error)
			if !ok {
				err = fmt.Errorf("%v", r)
			}
			panic(fmt.Errorf("workqueue: %s: an item of type %T cannot be a queue key: %w", method, item, err))
		}
	}()
	var keys map[T]struct{}
	_ = keys[item] // a lookup, even in a nil map, hashes the key
}
