package local

import (
	"fmt"

	"github.com/scn2d/scn/internal/par"
)

// Separable is a bank of separable filters u v^T (x w over the planes): the
// direct kernels that BenchmarkApply measures against the matrix product
// over patches (Layer.Apply). Filter f's full weight at plane c, row a,
// column b is w_fc u_fa v_fb (w_fc = 1 for grey images).
type Separable struct {
	Spec    Spec
	In      Shape
	U, V, C []float32 // F x k, F x k, F x Chans (C nil for grey)
	Bias    []float32
	Act     Activation
}

// Full returns the layer of the same filters with full weights, the
// weight of plane c, row a, column b being (u_a v_b) w_c in float32.
func (s *Separable) Full() *Layer {
	k, ch := s.Spec.Size, s.In.Chans
	f := len(s.Bias)
	w := make([]float32, f*ch*k*k)
	for j := 0; j < f; j++ {
		FullWeights(s.U[j*k:(j+1)*k], s.V[j*k:(j+1)*k], s.chanWeights(j), w[j*ch*k*k:(j+1)*ch*k*k])
	}
	return &Layer{Spec: s.Spec, In: s.In, W: w, Bias: s.Bias, Act: s.Act}
}

func (s *Separable) chanWeights(j int) []float32 {
	if s.C == nil {
		return nil
	}
	ch := s.In.Chans
	return s.C[j*ch : (j+1)*ch]
}

// FullWeights writes vec(u v^T) (x w) into dst: dst[c*k*k + a*k + b] =
// (u_a v_b) w_c, or u_a v_b without channel weights (w nil).
func FullWeights(u, v, w, dst []float32) {
	k := len(u)
	for a, ua := range u {
		for b, vb := range v {
			dst[a*k+b] = ua * vb
		}
	}
	if w == nil {
		return
	}
	kk := k * k
	for c := len(w) - 1; c >= 0; c-- {
		for i := 0; i < kk; i++ {
			dst[c*kk+i] = dst[i] * w[c]
		}
	}
}

// Apply writes the pooled outputs as Layer.Apply does (to rounding: the
// sums run in another order), by direct kernels: per image and filter, the
// planes weighted by w and summed, the rows filtered by v, the columns by
// u: C + 2k multiply-adds per position and filter, against C k^2 for the
// product over patches.
func (s *Separable) Apply(x []float32, n int, out []float32, ldo, off int) error {
	l := &Layer{Spec: s.Spec, In: s.In, Bias: s.Bias, Act: s.Act}
	if err := s.Spec.Validate(s.In); err != nil {
		return err
	}
	k, ch, f := s.Spec.Size, s.In.Chans, len(s.Bias)
	if len(s.U) != f*k || len(s.V) != f*k || (s.C != nil && len(s.C) != f*ch) {
		return fmt.Errorf("%w: separable weights of the wrong length", ErrSpec)
	}
	d := ch * s.In.Rows * s.In.Cols
	h, w := s.Spec.MapSize(s.In)
	pos := h * w
	st, pad := s.Spec.Stride, s.Spec.Pad
	hp, wp := s.In.Rows+2*pad, s.In.Cols+2*pad
	par.Chunks(n, 8, func(_, lo, hi int) {
		y := make([]float32, hp*wp)
		t := make([]float32, hp*w)
		z := make([]float32, pos)
		neg := make([]float32, pos)
		for i := lo; i < hi; i++ {
			img := x[i*d : (i+1)*d]
			for j := 0; j < f; j++ {
				// y: the weighted sum of the planes, zero-padded.
				clear(y)
				for c := 0; c < ch; c++ {
					wc := float32(1)
					if s.C != nil {
						wc = s.C[j*ch+c]
					}
					src := img[c*s.In.Rows*s.In.Cols:]
					for r := 0; r < s.In.Rows; r++ {
						dst := y[(r+pad)*wp+pad : (r+pad)*wp+pad+s.In.Cols]
						for cc, v := range src[r*s.In.Cols : (r+1)*s.In.Cols] {
							dst[cc] += wc * v
						}
					}
				}
				v := s.V[j*k : (j+1)*k]
				for r := 0; r < hp; r++ {
					row := y[r*wp : (r+1)*wp]
					for pc := 0; pc < w; pc++ {
						var a float32
						for b, vb := range v {
							a += vb * row[pc*st+b]
						}
						t[r*w+pc] = a
					}
				}
				columnPass(z, t, s.U[j*k:(j+1)*k], h, w, st)
				l.pool(z, neg, j, out[i*ldo:], off)
			}
		}
	})
	return nil
}

// columnPass sets z (h x w) to the second pass of a separable filter: z's
// row pr is the sum over a of u[a] times row pr*st + a of t (rows of w),
// the rows the first pass (v along each row) left in t.
func columnPass(z, t, u []float32, h, w, st int) {
	for pr := 0; pr < h; pr++ {
		zr := z[pr*w : (pr+1)*w]
		clear(zr)
		for a, ua := range u {
			tr := t[(pr*st+a)*w : (pr*st+a+1)*w]
			for pc := range zr {
				zr[pc] += ua * tr[pc]
			}
		}
	}
}
