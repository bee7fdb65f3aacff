//go:build !purego

package kernel

import "golang.org/x/sys/cpu"

// Available reports whether Dot2x4 can run here (AVX2 and FMA).
var Available = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// Dot2x4 sets out[2*j+r] to the dot product of x_r (r = 0, 1) and w_j
// (j = 0..3) over their first n elements; n must be a multiple of 8.
//
//go:noescape
func Dot2x4(x0, x1, w0, w1, w2, w3 *float32, n int, out *float32)

// SigmoidBias8 sets z[i] = 1/(1+exp(-(z[i]+b))) for i < n, with the Cephes
// single-precision exp (about 2 ulp); n must be a multiple of 8.
//
//go:noescape
func SigmoidBias8(z *float32, n int, b float32)

// DotN4 sets out[r] = sum_{i<n} a[r*lda+i] * x[i] for r = 0..3 (float64);
// n must be a multiple of 8.
//
//go:noescape
func DotN4(a *float64, lda int, x *float64, n int, out *float64)

// AxpyN4 sets y[i] += sum_r c[r] * a[r*lda+i] for i < n (float64); n must
// be a multiple of 8.
//
//go:noescape
func AxpyN4(a *float64, lda int, c *float64, y *float64, n int)

// Dot2x5 is Dot2x4 for five candidates: out[2*j+r] for j = 0..4, each sum
// formed exactly as Dot2x4 forms it.
//
//go:noescape
func Dot2x5(x0, x1, w0, w1, w2, w3, w4 *float32, n int, out *float32)

// Dot3x4 is Dot2x4 for three images: out[3*j+r] for r = 0..2, j = 0..3,
// each sum formed exactly as Dot2x4 forms it.
//
//go:noescape
func Dot3x4(x0, x1, x2, w0, w1, w2, w3 *float32, n int, out *float32)
