package linalg

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/scn2d/scn/internal/linalg/kernel"
)

// score2DCase is random 2D nodes (np = d1 + d2 + extra, as a model's
// parameter rows may be wider than u and v) and images.
func score2DCase(seed uint64, c, n, d1, d2, extra int) (params, x []float32, np int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	np = d1 + d2 + extra
	params = make([]float32, c*np)
	for i := range params {
		params[i] = float32(2*rng.Float64() - 1)
	}
	x = make([]float32, n*d1*d2)
	for i := range x {
		x[i] = float32(rng.Float64())
	}
	return params, x, np
}

// TestScore2DMatchesNaive: u^T X v against a float64 loop, to float32
// rounding of the sum of magnitudes, for shapes with and without a row
// remainder (d1 mod 4) and node counts around the 32-node groups.
func TestScore2DMatchesNaive(t *testing.T) {
	bothWidths(t, func(t *testing.T) {
		for _, sz := range []struct{ c, n, d1, d2 int }{{1, 1, 1, 1}, {5, 3, 28, 28}, {33, 17, 7, 5}, {64, 40, 112, 92}, {31, 2, 3, 30}} {
			params, x, np := score2DCase(1, sz.c, sz.n, sz.d1, sz.d2, 1)
			ldz := sz.n + 2
			z := make([]float32, sz.c*ldz)
			Score2D(sz.c, sz.n, sz.d1, sz.d2, params, np, x, z, ldz)
			for j := 0; j < sz.c; j++ {
				u, v := params[j*np:j*np+sz.d1], params[j*np+sz.d1:j*np+sz.d1+sz.d2]
				for r := 0; r < sz.n; r++ {
					var want, mag float64
					for i := 0; i < sz.d1; i++ {
						for k := 0; k < sz.d2; k++ {
							p := float64(u[i]) * float64(x[r*sz.d1*sz.d2+i*sz.d2+k]) * float64(v[k])
							want += p
							mag += math.Abs(p)
						}
					}
					if got := float64(z[j*ldz+r]); math.Abs(got-want) > 1e-5*mag {
						t.Fatalf("%+v: z[%d,%d] = %v, want %v", sz, j, r, got, want)
					}
				}
			}
		}
	})
}

// TestScore2DIndependent: a node's output on an image is the same bits
// whatever nodes and images share the call, and at either kernel width.
func TestScore2DIndependent(t *testing.T) {
	c, n, d1, d2 := 70, 45, 28, 28
	params, x, np := score2DCase(2, c, n, d1, d2, 0)
	whole := make([]float32, c*n)
	Score2D(c, n, d1, d2, params, np, x, whole, n)
	check := func(name string, z []float32) {
		t.Helper()
		if !slices.Equal(z, whole) {
			t.Fatalf("%s: outputs differ from one call over everything", name)
		}
	}
	// One node and one image at a time.
	z := make([]float32, c*n)
	one := make([]float32, 1)
	for j := 0; j < c; j++ {
		for r := 0; r < n; r++ {
			Score2D(1, 1, d1, d2, params[j*np:], np, x[r*d1*d2:], one, 1)
			z[j*n+r] = one[0]
		}
	}
	check("one by one", z)
	if kernel.Available512 {
		defer func(w bool) { useAVX512 = w }(useAVX512)
		useAVX512 = false
		clear(z)
		Score2D(c, n, d1, d2, params, np, x, z, n)
		check("AVX2 against AVX-512", z)
	}
}

// BenchmarkScore2D against ScoreNT on the expanded weights (the same
// outputs' multiplications), for the passes a server makes: one image,
// eight, and 128, with L = 1000 nodes on 28 x 28. Both run on one
// goroutine at these sizes (ScoreNT splits images by 256).
func BenchmarkScore2D(b *testing.B) {
	const c, d1, d2 = 1000, 28, 28
	for _, n := range []int{1, 8, 128} {
		params, x, np := score2DCase(3, c, n, d1, d2, 0)
		w := make([]float32, c*d1*d2)
		for j := 0; j < c; j++ {
			for i := 0; i < d1; i++ {
				for k := 0; k < d2; k++ {
					w[j*d1*d2+i*d2+k] = params[j*np+i] * params[j*np+d1+k]
				}
			}
		}
		z := make([]float32, c*n)
		flops := 2 * float64(c) * float64(n) * float64(d1*d2)
		b.Run("uXv/n="+itoa(n), func(b *testing.B) {
			for b.Loop() {
				Score2D(c, n, d1, d2, params, np, x, z, n)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run("expanded/n="+itoa(n), func(b *testing.B) {
			for b.Loop() {
				ScoreNT(c, n, d1*d2, w, x, z, n)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// TestMat2DGoMatchesKernels: the Go form of the 2D-node kernels (for
// processors without AVX2) agrees with them to float32 rounding (it does
// not fuse the multiply-adds, so not bit for bit).
func TestMat2DGoMatchesKernels(t *testing.T) {
	if !kernel.Available {
		t.Skip("no AVX2 here: nothing to compare with")
	}
	const d1, d2 = 13, 11
	params, x, _ := score2DCase(4, 32, 1, d1, d2, 0)
	vt := make([]float32, 32*d2)
	ut := make([]float32, 32*d1)
	for lane := 0; lane < 32; lane++ {
		p := params[lane*(d1+d2):]
		for i := 0; i < d1; i++ {
			ut[i*32+lane] = p[i]
		}
		for k := 0; k < d2; k++ {
			vt[k*32+lane] = p[d1+k]
		}
	}
	var got, want [32]float32
	mat2DGo(x, d1, d2, vt, ut, &got)
	kernel.Mat2D16(&x[0], d2, d1, d2, &vt[0], &ut[0], &want[0])
	kernel.Mat2D16(&x[0], d2, d1, d2, &vt[16], &ut[16], &want[16])
	for lane := range got {
		if d := math.Abs(float64(got[lane] - want[lane])); d > 1e-5*(1+math.Abs(float64(want[lane]))) {
			t.Fatalf("lane %d: Go %v, kernel %v", lane, got[lane], want[lane])
		}
	}
}

// TestMat2DGoIsThePlainLoop: mat2DGo gives, bit for bit, the plain loop
// over rows (each row's 32 lane sums over k in order from +0, then added
// to out times u in order of rows), whatever its grouping of lanes and
// rows: row counts around its groups of three, out not starting at 0.
func TestMat2DGoIsThePlainLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sz := range [][2]int{{1, 1}, {2, 5}, {3, 7}, {13, 11}, {28, 28}, {29, 3}} {
		d1, d2 := sz[0], sz[1]
		x, vt, ut := make([]float32, d1*d2), make([]float32, 32*d2), make([]float32, 32*d1)
		for _, s := range [][]float32{x, vt, ut} {
			for i := range s {
				s[i] = float32(rng.NormFloat64())
			}
		}
		var got, want [32]float32
		for lane := range got {
			got[lane] = float32(lane) - 16
		}
		want = got
		for i := 0; i < d1; i++ {
			var row [32]float32
			for k, xv := range x[i*d2 : (i+1)*d2] {
				for lane := range row {
					row[lane] += xv * vt[k*32+lane]
				}
			}
			for lane := range row {
				want[lane] += ut[i*32+lane] * row[lane]
			}
		}
		mat2DGo(x, d1, d2, vt, ut, &got)
		for lane := range got {
			if math.Float32bits(got[lane]) != math.Float32bits(want[lane]) {
				t.Fatalf("%dx%d lane %d: %v, the plain loop %v", d1, d2, lane, got[lane], want[lane])
			}
		}
	}
}
