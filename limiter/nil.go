package limiter

import "reflect"

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

// IsNil reports whether l is nil or a typed nil, which no queue can use.
func IsNil[T comparable](l RateLimiter[T]) bool { return isNil(l) }
