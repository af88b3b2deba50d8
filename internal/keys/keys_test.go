package keys

import (
	"errors"
	"reflect"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMayPanic(t *testing.T) {
	type plain struct {
		a int
		b string
	}
	type withInterface struct {
		a int
		b any
	}
	tests := []struct {
		v    any
		want bool
	}{
		{0, false}, {"", false}, {plain{}, false}, {[3]plain{}, false}, {&withInterface{}, false},
		{withInterface{}, true}, {[2]withInterface{}, true}, {struct {
			p plain
			e error
		}{}, true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, MayPanic(reflect.TypeOf(tt.v)), "%T", tt.v)
	}
	var item any = 1
	assert.Equal(t, true, MayPanic(reflect.TypeOf(&item).Elem()))
}

// TestCheckNamesTheMethodAndTheType: an item that cannot be hashed panics with a runtime.Error
// that names the method and the item's type, and unwraps to the runtime's own error; one that
// can be hashed passes.
func TestCheckNamesTheMethodAndTheType(t *testing.T) {
	assert.NotPanics(t, func() { Check[any]("Add", "a") })
	defer func() {
		p := recover()
		err, ok := p.(runtime.Error)
		if !assert.True(t, ok, "a runtime.Error, as client-go's map panics with") {
			return
		}
		assert.Contains(t, err.Error(), "workqueue: Done: an item of type []int cannot be a queue key")
		var inner runtime.Error
		assert.True(t, errors.As(errors.Unwrap(err), &inner), "it unwraps to the runtime's error")
	}()
	Check[any]("Done", []int{1})
}
