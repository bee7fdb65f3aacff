package scn

import (
	"encoding/binary"
	"math"
)

// payloadReader reads the little-endian arrays of a model file's payload
// in order; the payload's length has been checked before (payloadSize),
// so it does not check again.
type payloadReader struct{ b []byte }

// f32 returns the next n float32 values.
func (r *payloadReader) f32(n int) []float32 {
	le := binary.LittleEndian
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(le.Uint32(r.b))
		r.b = r.b[4:]
	}
	return out
}

// f64 fills dst with the next len(dst) float64 values.
func (r *payloadReader) f64(dst []float64) {
	le := binary.LittleEndian
	for i := range dst {
		dst[i] = math.Float64frombits(le.Uint64(r.b))
		r.b = r.b[8:]
	}
}
