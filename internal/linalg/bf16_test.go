package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

func TestRoundBF16(t *testing.T) {
	for _, c := range []struct {
		in   uint32
		want uint16
	}{
		{0x3f800000, 0x3f80}, // 1
		{0x3f808000, 0x3f80}, // 1 + 2^-8: a tie, to even (down)
		{0x3f818000, 0x3f82}, // a tie, to even (up)
		{0x3f808001, 0x3f81}, // above the tie
		{0x3f807fff, 0x3f80}, // below it
		{0xbf818000, 0xbf82}, // negative tie
		{0x00000000, 0x0000},
		{0x80000000, 0x8000},
		{0x007fffff, 0x0000}, // denormal: zero
		{0x807fffff, 0x8000},
		{0x7f800000, 0x7f80},        // +Inf
		{0x7f7fffff, 0x7f80},        // the largest float32 rounds to +Inf
		{0x00800000, 0x0080},        // the smallest normal
		{0x7fc00000, 0x7fc0},        // NaN stays NaN
		{0x7f800001, 0x7f80 | 0x40}, // a NaN whose payload rounding would lose
	} {
		if got := RoundBF16(math.Float32frombits(c.in)); got != c.want {
			t.Errorf("RoundBF16(%#08x) = %#04x, want %#04x", c.in, got, c.want)
		}
	}
	// Against the nearest of the two neighbours, on random values.
	rng := rand.New(rand.NewPCG(3, 4))
	for range 10000 {
		v := float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10)))
		r := RoundBF16(v)
		lo := BF16Float(uint16(math.Float32bits(v) >> 16))
		hi := BF16Float(uint16(math.Float32bits(v)>>16) + 1)
		got := BF16Float(r)
		if got != lo && got != hi {
			t.Fatalf("RoundBF16(%g) = %g, not a neighbour (%g, %g)", v, got, lo, hi)
		}
		if d, o := math.Abs(float64(got-v)), math.Min(math.Abs(float64(lo-v)), math.Abs(float64(hi-v))); d > o {
			t.Fatalf("RoundBF16(%g) = %g, not the nearest", v, got)
		}
	}
}

// randomRows returns an n x k matrix (rows ldx apart) of values of the
// hidden outputs' kind, with some zeros and negatives.
func randomRows(rng *rand.Rand, n, k, ldx int) []float32 {
	x := make([]float32, n*ldx)
	for i := range x {
		switch rng.IntN(10) {
		case 0:
			x[i] = 0
		case 1:
			x[i] = -float32(rng.Float64())
		default:
			x[i] = float32(rng.Float64())
		}
	}
	return x
}

// TestGramBF16MatchesFloat64 checks each value against the float64 sum of
// the bfloat16-rounded products: float32 sums of k terms of magnitude at
// most 1 are within k * 2^-24 * sum |products| of it (the products are
// exact), and nothing is lost in the packing, odd k and partial groups
// included.
func TestGramBF16MatchesFloat64(t *testing.T) { bothBF16(t, testGramBF16MatchesFloat64) }

func testGramBF16MatchesFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range []struct{ n, k, r0, r1, cols int }{
		{1, 1, 0, 1, 1}, {8, 2, 0, 8, 8}, {70, 37, 3, 61, 70}, {40, 2048, 13, 40, 33}, {100, 608, 0, 100, 97}, {33, 5, 32, 33, 1},
	} {
		ldx := sz.k + 3
		x := randomRows(rng, sz.n, sz.k, ldx)
		var pk PackedBF16
		pk.Pack(sz.n, sz.k, x, ldx)
		ldc := sz.cols + 2
		c := make([]float32, (sz.r1-sz.r0)*ldc)
		for i := range c {
			c[i] = float32(math.NaN()) // written or kept: see below
		}
		GramBF16(&pk, sz.r0, sz.r1, sz.cols, c, ldc)
		for i := sz.r0; i < sz.r1; i++ {
			for j := 0; j < sz.cols; j++ {
				var want, abs float64
				for q := 0; q < sz.k; q++ {
					p := float64(BF16Float(RoundBF16(x[i*ldx+q]))) * float64(BF16Float(RoundBF16(x[j*ldx+q])))
					want += p
					abs += math.Abs(p)
				}
				got := float64(c[(i-sz.r0)*ldc+j])
				if tol := float64(sz.k) * 0x1p-24 * abs; math.Abs(got-want) > tol || math.IsNaN(got) {
					t.Fatalf("%v: c[%d][%d] = %g, want %g within %g", sz, i, j, got, want, tol)
				}
			}
			for j := sz.cols; j < ldc; j++ {
				if v := c[(i-sz.r0)*ldc+j]; !math.IsNaN(float64(v)) {
					t.Fatalf("%v: c[%d][%d] past the columns written: %g", sz, i, j, v)
				}
			}
		}
	}
}

// TestGramBF16Error: on one shard of 2048 sigmoid-like outputs (sums near
// 500), the float32 sums in chunks of bf16Chunk pairs stay within 2e-6 of
// the largest value (measured: about 4e-7, below sgemm's 7e-7 on the same
// values). One float32 sum over all 2048 values, without the chunks, is
// off by about 1e-5 of it: enough to make G + I lose its positive
// definiteness on MNIST at L = 5000, so this test fails without them.
func TestGramBF16Error(t *testing.T) { bothBF16(t, testGramBF16Error) }

func testGramBF16Error(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, k = 96, 2048
	h := make([]float32, n*k)
	for i := range h {
		h[i] = BF16Float(RoundBF16(float32(1 / (1 + math.Exp(-4*rng.NormFloat64())))))
	}
	var pk PackedBF16
	pk.Pack(n, k, h, k)
	c := make([]float32, n*n)
	GramBF16(&pk, 0, n, n, c, n)
	var maxErr, maxVal float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for q := 0; q < k; q++ {
				s += float64(h[i*k+q]) * float64(h[j*k+q])
			}
			maxErr = math.Max(maxErr, math.Abs(float64(c[i*n+j])-s))
			maxVal = math.Max(maxVal, s)
		}
	}
	if maxErr > 2e-6*maxVal {
		t.Errorf("largest error %.3g of values up to %.4g: %.3g relative, want at most 2e-6", maxErr, maxVal, maxErr/maxVal)
	}
}

// bothBF16 runs f with the Go loop and, where the CPU has AVX512-BF16,
// with the kernel.
func bothBF16(t *testing.T, f func(t *testing.T)) {
	defer func(k bool) { useBF16Kernel = k }(useBF16Kernel)
	useBF16Kernel = false
	t.Run("go", f)
	if BF16Available {
		useBF16Kernel = true
		t.Run("kernel", f)
	}
}

// TestGramBF16KernelMatchesGo checks that the kernel and the Go loop give
// the same bits (the Go loop follows VDPBF16PS's definition), and that a
// value's bits do not depend on the rows and columns asked for with it or
// on the number of goroutines.
func TestGramBF16KernelMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, k := 75, 1001
	x := randomRows(rng, n, k, k)
	// Values of very different sizes, so that the order of the sums shows.
	for i := range x {
		if rng.IntN(7) == 0 {
			x[i] *= 1e4
		}
	}
	var pk PackedBF16
	pk.Pack(n, k, x, k)
	gram := func(r0, r1, cols int) []float32 {
		c := make([]float32, (r1-r0)*cols)
		GramBF16(&pk, r0, r1, cols, c, cols)
		return c
	}
	defer func(k bool) { useBF16Kernel = k }(useBF16Kernel)
	useBF16Kernel = false
	want := gram(0, n, n)
	check := func(name string, r0, r1, cols int) {
		got := gram(r0, r1, cols)
		for i := r0; i < r1; i++ {
			if !slices.Equal(got[(i-r0)*cols:(i-r0+1)*cols], want[i*n:i*n+cols]) {
				t.Fatalf("%s: rows [%d, %d) x %d columns: row %d differs", name, r0, r1, cols, i)
			}
		}
	}
	check("go, part", 9, 40, 41)
	if !BF16Available {
		t.Skip("no AVX512-BF16 here: only the Go loop checked")
	}
	useBF16Kernel = true
	check("kernel", 0, n, n)
	check("kernel, part", 9, 40, 41)
	check("kernel, one row", 74, 75, 3)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	check("kernel, GOMAXPROCS 1", 0, n, n)
}

func TestGramBF16BadRange(t *testing.T) {
	var pk PackedBF16
	pk.Pack(4, 3, make([]float32, 12), 3)
	for _, c := range []struct{ r0, r1, n int }{{-1, 2, 2}, {0, 5, 2}, {0, 2, 5}, {3, 2, 2}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("GramBF16(%v) did not panic", c)
				}
			}()
			GramBF16(&pk, c.r0, c.r1, c.n, make([]float32, 64), 4)
		}()
	}
}

// BenchmarkGramBF16 times a one-pass fit's Gram product of one block
// (b = 500 rows against l1 columns, one shard of 2048 images) in
// bfloat16 against Sgemm in float32 on the same shape, one goroutine each
// (the fit runs blocks side by side).
func BenchmarkGramBF16(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	rng := rand.New(rand.NewPCG(1, 1))
	const r = 2048
	for _, l1 := range []int{1000, 10000} {
		h := randomRows(rng, l1, r, r)
		c := make([]float32, 500*l1)
		var pk PackedBF16
		pk.Pack(l1, r, h, r)
		flops := 2 * 500 * float64(l1) * r
		b.Run(fmt.Sprintf("bf16/l1=%d", l1), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				GramBF16(&pk, l1-500, l1, l1, c, l1)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("pack/l1=%d", l1), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				pk.Pack(l1, r, h, r)
			}
			b.ReportMetric(float64(l1*r)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gvalues/s")
		})
		b.Run(fmt.Sprintf("sgemm/l1=%d", l1), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				GramNT32(500, l1, r, h[(l1-500)*r:], h, c, l1)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
