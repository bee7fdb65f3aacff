//go:build !amd64 || purego

package kernel

// Available reports whether the AVX2 kernels can run here: never on this
// platform.
const Available = false

// SigmoidBias8 is not available on this platform; see Available.
func SigmoidBias8(z *float32, n int, b float32) {
	panic("kernel: SigmoidBias8 without AVX2")
}

// DotN4 is not available on this platform; see Available.
func DotN4(a *float64, lda int, x *float64, n int, out *float64) {
	panic("kernel: DotN4 without AVX2")
}

// AxpyN4 is not available on this platform; see Available.
func AxpyN4(a *float64, lda int, c *float64, y *float64, n int) {
	panic("kernel: AxpyN4 without AVX2")
}

// Dot2x5 is not available on this platform; see Available.
func Dot2x5(x0, x1, w0, w1, w2, w3, w4 *float32, n int, out *float32) {
	panic("kernel: Dot2x5 without AVX2")
}

// Dot3x4 is not available on this platform; see Available.
func Dot3x4(x0, x1, x2, w0, w1, w2, w3 *float32, n int, out *float32) {
	panic("kernel: Dot3x4 without AVX2")
}

// Available512 reports whether the AVX-512 kernels can run here: never on
// this platform.
const Available512 = false

// Dot3x4AVX512 is not available on this platform; see Available512.
func Dot3x4AVX512(x0, x1, x2, w0, w1, w2, w3 *float32, n int, out *float32) {
	panic("kernel: Dot3x4AVX512 without AVX-512")
}

// Dot2x5AVX512 is not available on this platform; see Available512.
func Dot2x5AVX512(x0, x1, w0, w1, w2, w3, w4 *float32, n int, out *float32) {
	panic("kernel: Dot2x5AVX512 without AVX-512")
}

// Dot3x4PDAVX512 is not available on this platform; see Available512.
func Dot3x4PDAVX512(x0, x1, x2, w0, w1, w2, w3 *float64, n int, out *float64) {
	panic("kernel: Dot3x4PDAVX512 without AVX-512")
}

// AxpyT5x32AVX512 is not available on this platform; see Available512.
func AxpyT5x32AVX512(h *float32, ldh int, l int, beta *float32, out *float32) {
	panic("kernel: AxpyT5x32AVX512 without AVX-512")
}

// Mat2D32AVX512 is not available on this platform; see Available512.
func Mat2D32AVX512(x *float32, ldx int, d1 int, d2 int, v *float32, u *float32, out *float32) {
	panic("kernel: Mat2D32AVX512 without AVX-512")
}

// Mat2D16 is not available on this platform; see Available.
func Mat2D16(x *float32, ldx int, d1 int, d2 int, v *float32, u *float32, out *float32) {
	panic("kernel: Mat2D16 without AVX2")
}

// Pack32AVX512 is not available on this platform; see Available512.
func Pack32AVX512(src *float32, np int, n int, dst *float32) {
	panic("kernel: Pack32AVX512 without AVX-512")
}

// AvailableBF16 reports whether DotBF16x8x32 can run here: never on this
// platform.
const AvailableBF16 = false

// DotBF16x8x32 is not available on this platform; see AvailableBF16.
func DotBF16x8x32(kp int, a *uint32, off *[8]int, b *uint32, c *float32, kc int) {
	panic("kernel: DotBF16x8x32 without AVX512-BF16")
}
