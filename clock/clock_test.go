package clock

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestSame(t *testing.T) {
	fake := &stopped{}
	assert.True(t, Same(nil, nil))
	assert.False(t, Same(nil, fake))
	assert.False(t, Same(fake, nil))
	assert.True(t, Same(fake, fake))
	assert.False(t, Same(fake, &stopped{}), "another value of the same type")
	assert.False(t, Same(uncomparable{}, uncomparable{}), "clocks that cannot be compared are not the same")
}

type stopped struct{ _ int }

func (*stopped) Now() time.Time                       { return time.Time{} }
func (*stopped) Since(time.Time) time.Duration        { return 0 }
func (*stopped) After(time.Duration) <-chan time.Time { return nil }

type uncomparable struct{ _ []int }

func (uncomparable) Now() time.Time                       { return time.Time{} }
func (uncomparable) Since(time.Time) time.Duration        { return 0 }
func (uncomparable) After(time.Duration) <-chan time.Time { return nil }
