package localnet

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/scn2d/scn/internal/fixtures"
	"github.com/scn2d/scn/internal/local"
	"gonum.org/v1/gonum/mat"
)

// imgs is n images of rows x cols x ch, one after another.
type imgs struct {
	pix               []float32
	n, rows, cols, ch int
}

// noise returns n images of i.i.d. uniform pixels on [0, 2) (plane c
// shifted by c).
func noise(n, rows, cols, ch int, seed uint64) imgs {
	rng := rand.New(rand.NewPCG(seed, 3))
	x := imgs{pix: make([]float32, n*ch*rows*cols), n: n, rows: rows, cols: cols, ch: ch}
	for i := range x.pix {
		c := (i / (rows * cols)) % ch
		x.pix[i] = float32(2*rng.Float64() + float64(c))
	}
	return x
}

// patchesOf returns every patch the filters of spec see in x
// (fixtures.Patches).
func patchesOf(x imgs, spec local.Spec) [][]float64 {
	return fixtures.Patches(x.pix, x.n, x.ch, x.rows, x.cols, spec.Size, spec.Stride, spec.Pad)
}

// TestLocalWhitenCovariance: the whitened patches M^T p - C of every
// patch have mean 0 and covariance V D (D + eps)^-1 V^T, from an
// independent eigendecomposition of the patches' covariance; with a tiny
// eps, the identity.
func TestLocalWhitenCovariance(t *testing.T) {
	for _, ch := range []int{1, 3} {
		x := noise(40, 10, 10, ch, 8)
		for _, eps := range []float64{0.1, 1e-9} {
			geo := Geometry{Sizes: []int{3}, Filters: 1, Stride: 1, Pad: PadSame, Pool: 1, Whiten: true, WhitenEps: eps}
			cmean, csd := PlaneMoments(x.pix, x.n, x.ch, x.rows*x.cols)
			pw, err := WhitenPatches(x.pix, x.n, x.rows, x.cols, x.ch, &geo, 3, cmean, csd, 1)
			if err != nil {
				t.Fatal(err)
			}
			patches := patchesOf(x, SpecOf(&geo, 3))
			if pw.Samples != len(patches) {
				t.Fatalf("whitening of %d patches, want every one of %d", pw.Samples, len(patches))
			}
			kk := 9 * ch
			n := float64(len(patches))
			// The patches' standardised covariance, independently.
			mean := make([]float64, kk)
			std := make([][]float64, len(patches))
			for i, p := range patches {
				std[i] = make([]float64, kk)
				for u := range p {
					c := u / 9
					std[i][u] = (p[u] - cmean[c]) / csd[c]
					mean[u] += std[i][u] / n
				}
			}
			cov := mat.NewSymDense(kk, nil)
			for a := 0; a < kk; a++ {
				for b := a; b < kk; b++ {
					var s float64
					for _, p := range std {
						s += (p[a] - mean[a]) * (p[b] - mean[b])
					}
					cov.SetSym(a, b, s/n)
				}
			}
			var es mat.EigenSym
			if !es.Factorize(cov, true) {
				t.Fatal("eigendecomposition failed")
			}
			d := es.Values(nil)
			var v mat.Dense
			es.VectorsTo(&v)
			// The whitened patches and their moments.
			wm := make([]float64, kk)
			wc := make([]float64, kk*kk)
			q := make([]float64, kk)
			for _, p := range patches {
				for a := 0; a < kk; a++ {
					s := -pw.C[a]
					for u := 0; u < kk; u++ {
						s += pw.M[u*kk+a] * p[u]
					}
					q[a] = s
					wm[a] += s / n
				}
				for a := 0; a < kk; a++ {
					for b := 0; b < kk; b++ {
						wc[a*kk+b] += q[a] * q[b] / n
					}
				}
			}
			for a := 0; a < kk; a++ {
				if math.Abs(wm[a]) > 1e-9 {
					t.Fatalf("whitened patches' mean %v at %d, want 0", wm[a], a)
				}
				for b := 0; b < kk; b++ {
					var want float64
					for j := 0; j < kk; j++ {
						want += v.At(a, j) * d[j] / (d[j] + eps) * v.At(b, j)
					}
					got := wc[a*kk+b] - wm[a]*wm[b]
					if math.Abs(got-want) > 1e-8 {
						t.Fatalf("%d planes, eps %g: whitened covariance (%d, %d) = %v, want %v", ch, eps, a, b, got, want)
					}
					id := 0.0
					if a == b {
						id = 1
					}
					if eps < 1e-6 && math.Abs(got-id) > 1e-6 {
						t.Fatalf("%d planes, eps %g: whitened covariance (%d, %d) = %v, not the identity", ch, eps, a, b, got)
					}
				}
			}
		}
	}
}

// TestLocalWhitenSampled: with more patches than WhitenSamples, the
// whitening is estimated from a sample drawn with the seed: the same bits
// at GOMAXPROCS 1 and 2, another sample for another seed, and applied to
// every patch it gives them the whitened variance 1 / (1 + eps).
func TestLocalWhitenSampled(t *testing.T) {
	x := noise(40, 40, 40, 3, 4) // 64000 patches of 3 x 3 x 3
	geo := Geometry{Sizes: []int{3}, Filters: 1, Stride: 1, Pad: PadSame, Pool: 1, Whiten: true, WhitenEps: 0.1}
	cmean, csd := PlaneMoments(x.pix, x.n, x.ch, x.rows*x.cols)
	var ms [][]float64
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		pw, err := WhitenPatches(x.pix, x.n, x.rows, x.cols, x.ch, &geo, 3, cmean, csd, 9)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		if pw.Samples != WhitenSamples {
			t.Fatalf("%d patches sampled, want %d", pw.Samples, WhitenSamples)
		}
		ms = append(ms, pw.M)
	}
	if !slices.Equal(ms[0], ms[1]) {
		t.Fatal("the sampled whitening differs between GOMAXPROCS 1 and 2")
	}
	other, _ := WhitenPatches(x.pix, x.n, x.rows, x.cols, x.ch, &geo, 3, cmean, csd, 10)
	if slices.Equal(other.M, ms[0]) {
		t.Fatal("seeds 9 and 10 sampled the same patches")
	}
	// Applied to every patch, the sampled whitening whitens them.
	all := patchesOf(x, SpecOf(&geo, 3))
	kk := 27
	var worst float64
	for _, pwM := range [][]float64{ms[0], other.M} {
		// The covariance of M^T p over every patch (the means cancel).
		mean := make([]float64, kk)
		q := make([][]float64, len(all))
		for i, p := range all {
			q[i] = make([]float64, kk)
			for a := 0; a < kk; a++ {
				for u := 0; u < kk; u++ {
					q[i][a] += pwM[u*kk+a] * p[u]
				}
				mean[a] += q[i][a] / float64(len(all))
			}
		}
		for a := 0; a < kk; a++ {
			var s float64
			for _, r := range q {
				s += (r[a] - mean[a]) * (r[a] - mean[a])
			}
			// Noise patches: the covariance's eigenvalues are about 1, so
			// the whitened variance is about 1 / (1 + eps).
			worst = max(worst, math.Abs(s/float64(len(all))-1/1.1))
		}
	}
	if worst > 0.05 {
		t.Errorf("the sampled whitening leaves a variance off 1/(1+eps) by %.3f over every patch", worst)
	}
}
