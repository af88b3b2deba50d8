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
