package fuzz

import (
	"encoding/binary"
	"math"
)

// input reads a fuzz input from the front. Past its end it reads zeros, so every input decodes
// into something; done tells when it is used up.
type input struct{ data []byte }

// done reports whether every byte has been read.
func (in *input) done() bool { return len(in.data) == 0 }

// byte returns the next byte, or zero past the end.
func (in *input) byte() byte {
	if len(in.data) == 0 {
		return 0
	}
	b := in.data[0]
	in.data = in.data[1:]
	return b
}

// pick returns a number from 0 to n-1 read from the next byte.
func (in *input) pick(n int) int { return int(in.byte()) % n }

// uint64 returns the next eight bytes as a number, big-endian, zero-padded past the end.
func (in *input) uint64() uint64 {
	var b [8]byte
	n := copy(b[:], in.data)
	in.data = in.data[n:]
	return binary.BigEndian.Uint64(b[:])
}

// int64 returns the next eight bytes as a signed number.
func (in *input) int64() int64 { return int64(in.uint64()) }

// float64 returns the next eight bytes as the bits of a float64: any value, NaN and the
// infinities included.
func (in *input) float64() float64 { return math.Float64frombits(in.uint64()) }

// choose returns one of options, picked by the next byte.
func choose[V any](in *input, options ...V) V { return options[in.pick(len(options))] }
