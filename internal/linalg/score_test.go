package linalg

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/scn2d/scn/internal/linalg/kernel"
)

// bothWidths runs f with the AVX2 kernels and, where the processor has
// them, with the AVX-512 ones.
func bothWidths(t *testing.T, f func(t *testing.T)) {
	defer func(w bool) { useAVX512 = w }(useAVX512)
	useAVX512 = false
	t.Run("avx2", f)
	if kernel.Available512 {
		useAVX512 = true
		t.Run("avx512", f)
	}
}

func TestScoreNTMatchesNaive(t *testing.T) { bothWidths(t, testScoreNTMatchesNaive) }

func testScoreNTMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range []struct{ k, n, d int }{{1, 1, 8}, {5, 7, 784}, {4, 600, 31}, {9, 513, 10304}, {3, 2, 5}, {45, 33, 784}} {
		w := make([]float32, sz.k*sz.d)
		x := make([]float32, sz.n*sz.d)
		for i := range w {
			w[i] = float32(2*rng.Float64() - 1)
		}
		for i := range x {
			x[i] = float32(rng.Float64())
		}
		ldz := sz.n + 3
		z := make([]float32, sz.k*ldz)
		ScoreNT(sz.k, sz.n, sz.d, w, x, z, ldz)
		for j := 0; j < sz.k; j++ {
			for i := 0; i < sz.n; i++ {
				var want, mag float64
				for t := 0; t < sz.d; t++ {
					p := float64(w[j*sz.d+t]) * float64(x[i*sz.d+t])
					want += p
					mag += math.Abs(p)
				}
				if got := float64(z[j*ldz+i]); math.Abs(got-want) > 1e-5*mag {
					t.Fatalf("%+v: z[%d,%d] = %v, want %v", sz, j, i, got, want)
				}
			}
		}
	}
}

func TestScoreNTDeterministic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(3, 4))
	k, n, d := 5, 3000, 784
	w := make([]float32, k*d)
	x := make([]float32, n*d)
	for i := range w {
		w[i] = float32(rng.NormFloat64())
	}
	for i := range x {
		x[i] = float32(rng.Float64())
	}
	var zs [2][]float32
	for p := range zs {
		runtime.GOMAXPROCS(p + 1)
		zs[p] = make([]float32, k*n)
		ScoreNT(k, n, d, w, x, zs[p], n)
	}
	for i := range zs[0] {
		if zs[0][i] != zs[1][i] {
			t.Fatalf("element %d differs between GOMAXPROCS 1 and 2", i)
		}
	}
}

// A candidate's output must not depend on the batch it is scored in (four
// or five at a time, or alone): prediction recomputes the hidden outputs of
// the chosen nodes in other groupings than the fit scored them in.
func TestScoreNTIndependentOfGrouping(t *testing.T) { bothWidths(t, testScoreNTIndependentOfGrouping) }

func testScoreNTIndependentOfGrouping(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	k, n, d := 13, 257, 787
	w := make([]float32, k*d)
	x := make([]float32, n*d)
	for i := range w {
		w[i] = float32(rng.NormFloat64())
	}
	for i := range x {
		x[i] = float32(rng.Float64())
	}
	all := make([]float32, k*n)
	ScoreNT(k, n, d, w, x, all, n)
	for _, g := range []int{1, 4, 5} {
		for j0 := 0; j0 < k; j0 += g {
			j1 := min(k, j0+g)
			z := make([]float32, (j1-j0)*n)
			ScoreNT(j1-j0, n, d, w[j0*d:j1*d], x, z, n)
			for j := j0; j < j1; j++ {
				for i := 0; i < n; i++ {
					if z[(j-j0)*n+i] != all[j*n+i] {
						t.Fatalf("groups of %d: z[%d,%d] = %v, in one batch %v", g, j, i, z[(j-j0)*n+i], all[j*n+i])
					}
				}
			}
		}
	}
}

// TestScoreNTSpansKeepBits: nodes whose weights are zero outside a stretch
// (receptive fields: rectangles of an image) are summed over the union of
// their group's stretches only, in an order sorted by stretch, and that
// gives the bits of summing every node over all inputs in index order, at
// either width: rectangles of 28 x 28 and 112 x 92 images, rows of zeros,
// rows with weights only in the part the kernels leave to Go, and one
// whole row.
func TestScoreNTSpansKeepBits(t *testing.T) {
	if !kernel.Available {
		t.Skip("no scoring kernels here: ScoreNT is Sgemm, without stretches")
	}
	bothWidths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, sh := range []struct{ rows, cols, k, n int }{{28, 28, 37, 50}, {112, 92, 13, 9}, {5, 7, 9, 8}} {
			d := sh.rows * sh.cols
			w := make([]float32, sh.k*d)
			for j := 0; j < sh.k; j++ {
				row := w[j*d : (j+1)*d]
				switch j % 9 {
				case 0: // no weight at all
				case 1: // the whole image
					for i := range row {
						row[i] = float32(rng.NormFloat64())
					}
				case 2: // only the last input
					row[d-1] = 1.5
				default:
					h, wd := 1+rng.IntN(sh.rows), 1+rng.IntN(sh.cols)
					r0, c0 := rng.IntN(sh.rows-h+1), rng.IntN(sh.cols-wd+1)
					for r := r0; r < r0+h; r++ {
						for c := c0; c < c0+wd; c++ {
							row[r*sh.cols+c] = float32(rng.NormFloat64())
						}
					}
				}
			}
			x := make([]float32, sh.n*d)
			for i := range x {
				x[i] = float32(rng.NormFloat64()) // negative inputs too: -0 products
			}
			got := make([]float32, sh.k*sh.n)
			ScoreNT(sh.k, sh.n, d, w, x, got, sh.n)
			// Every node over every input the kernels take, in index order.
			d8 := d &^ 7
			if useAVX512 {
				d8 = d &^ 15
			}
			full := spans{order: make([]int, sh.k), lo: make([]int, sh.k), hi: make([]int, sh.k)}
			for j := range full.order {
				full.order[j], full.hi[j] = j, d8
			}
			want := make([]float32, sh.k*sh.n)
			scoreRows(sh.k, d, w, x, want, sh.n, 0, sh.n, full)
			// And without stretches at all (ScoreNT's way for few images).
			plain := make([]float32, sh.k*sh.n)
			scoreRows(sh.k, d, w, x, plain, sh.n, 0, sh.n, spans{})
			if !slices.Equal(plain, want) {
				t.Fatalf("%+v: scoring in index order over all inputs differs", sh)
			}
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%+v: output %d is %v by stretches, %v over all inputs", sh, i, got[i], want[i])
				}
			}
		}
	})
}
