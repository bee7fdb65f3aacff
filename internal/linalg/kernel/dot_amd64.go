//go:build !purego

package kernel

import "golang.org/x/sys/cpu"

// Available reports whether the AVX2 kernels can run here (AVX2 and FMA).
var Available = cpu.X86.HasAVX2 && cpu.X86.HasFMA

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

// Dot2x5 sets out[2*j+r] to the dot product of x_r (r = 0, 1) and w_j
// (j = 0..4) over their first n elements, n a multiple of 8, each sum
// formed exactly as Dot3x4 forms it (one accumulator of eight lanes, the
// same reduction).
//
//go:noescape
func Dot2x5(x0, x1, w0, w1, w2, w3, w4 *float32, n int, out *float32)

// Dot3x4 sets out[3*j+r] to the dot product of x_r (r = 0..2) and w_j
// (j = 0..3) over their first n elements; n must be a multiple of 8.
//
//go:noescape
func Dot3x4(x0, x1, x2, w0, w1, w2, w3 *float32, n int, out *float32)

// Available512 reports whether the AVX-512 kernels can run here. Where they
// can, ScoreNT uses them for every candidate group, so that the outputs
// still do not depend on the grouping.
var Available512 = Available && cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL

// Dot3x4AVX512 is Dot3x4 with sixteen lanes; n must be a multiple of 16.
//
//go:noescape
func Dot3x4AVX512(x0, x1, x2, w0, w1, w2, w3 *float32, n int, out *float32)

// Dot2x5AVX512 is Dot2x5 with sixteen lanes; n must be a multiple of 16.
//
//go:noescape
func Dot2x5AVX512(x0, x1, w0, w1, w2, w3, w4 *float32, n int, out *float32)

// Dot3x4PDAVX512 sets out[3*j+r] to the float64 dot product of x_r
// (r = 0..2) and w_j (j = 0..3) over their first n elements; n must be a
// multiple of 8. It needs Available512.
//
//go:noescape
func Dot3x4PDAVX512(x0, x1, x2, w0, w1, w2, w3 *float64, n int, out *float64)

// AxpyT5x32AVX512 sets out[q*32+i] = sum_{j<l} beta[j*5+q] * h[j*ldh+i]
// for q < 5 and i < 32 (float32): five outputs of a product beta^T H on 32
// consecutive columns of H, whose rows are ldh apart, each sum formed in
// order of j. It needs Available512.
//
//go:noescape
func AxpyT5x32AVX512(h *float32, ldh int, l int, beta *float32, out *float32)

// Mat2D32AVX512 adds to out[j] (j < 32) the 2D node output
// sum_i u[i*32+j] * sum_k x[i*ldx+k] * v[k*32+j] of an image x (d1 rows of
// d2 values, rows ldx apart) for 32 nodes whose v (d2 x 32) and u (d1 x 32)
// are packed lane by lane. Each row sum is one chain of FMAs over k from
// zero, added to out in order of i; d2 must be at least 1. It needs
// Available512.
//
//go:noescape
func Mat2D32AVX512(x *float32, ldx int, d1 int, d2 int, v *float32, u *float32, out *float32)

// Mat2D16 is Mat2D32AVX512 for lanes 0..15 with AVX2 (v and u rows still
// 32 lanes apart), with the same bits: call it at v, u, out and again 16
// lanes on for all 32. It needs Available.
//
//go:noescape
func Mat2D16(x *float32, ldx int, d1 int, d2 int, v *float32, u *float32, out *float32)

// Pack32AVX512 sets dst[t*32+lane] = src[lane*np+t] for t < n and lane <
// 32: the first n values of 32 rows np apart, transposed (np at most
// 2^26). It needs Available512.
//
//go:noescape
func Pack32AVX512(src *float32, np int, n int, dst *float32)

// AvailableBF16 reports whether DotBF16x8x32 can run here (AVX512-BF16).
var AvailableBF16 = Available512 && cpu.X86.HasAVX512BF16

// DotBF16x8x32 adds to the 8 x 32 float32 tile c (row-major, rows 32
// apart) the products of 8 rows and 32 columns over kp steps of bfloat16
// pairs, with VDPBF16PS. Row i's pair at step s is the uint32 at a +
// off[i] bytes + 128 s (the pair's first value in its low half), column
// j's is b[32 s + j]. The steps go in chunks of kc (the last may be
// shorter); each chunk's products are summed in float32 from zero, step by
// step, each step adding the second values' product and then the first
// values' (Intel's definition; bfloat16 inputs that are denormal count as
// zero, and denormal sums are flushed to zero), and the chunk's sum is
// then added to c. Chunks keep the float32 sums short: one sum over 2048
// values near 1 would carry about 20 times sgemm's rounding error. It
// needs AvailableBF16.
//
//go:noescape
func DotBF16x8x32(kp int, a *uint32, off *[8]int, b *uint32, c *float32, kc int)
