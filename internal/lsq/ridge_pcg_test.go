package lsq

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ridgeSystem returns G = H^T H (l x l, whole) and H^T T (l x m) of n
// random rows.
func ridgeSystem(rng *rand.Rand, n, l, m int) (g, ht []float64) {
	h, tt := make([]float64, n*l), make([]float64, n*m)
	for i := range h {
		h[i] = rng.NormFloat64()
	}
	for i := range tt {
		tt[i] = rng.NormFloat64()
	}
	g, ht = make([]float64, l*l), make([]float64, l*m)
	for r := 0; r < n; r++ {
		for i := 0; i < l; i++ {
			for j := 0; j < l; j++ {
				g[i*l+j] += h[r*l+i] * h[r*l+j]
			}
			for q := 0; q < m; q++ {
				ht[i*m+q] += h[r*l+i] * tt[r*m+q]
			}
		}
	}
	return g, ht
}

// factorOf returns the Cholesky factor of g + ridge I.
func factorOf(t *testing.T, g []float64, l int, ridge float64) LowerTri {
	f := slices.Clone(g)
	for i := 0; i < l; i++ {
		f[i*l+i] += ridge
	}
	if err := Cholesky(f, l, l, ridge); err != nil {
		t.Fatal(err)
	}
	return FullTri(f, l)
}

// TestRidgeCG checks the online solve against gonum's Cholesky solve of
// the same system (an independent reference): with the exact factor it
// converges at once, with a stale one (of G before more rows came) in a
// few steps, from zero or from a warm start; and with no step allowed it
// reports that it did not converge.
func TestRidgeCG(t *testing.T) {
	const ridge = 0.5
	for _, l := range []int{1, 7, 300} { // 300: two panels of the triangular solves
		rng := rand.New(rand.NewPCG(uint64(l), 1))
		m := 3
		g0, _ := ridgeSystem(rng, 2*l, l, m)
		g1, ht1 := ridgeSystem(rng, l, l, m)
		g := make([]float64, l*l)
		for i := range g {
			g[i] = g0[i] + g1[i]
		}
		gs := mat.NewSymDense(l, slices.Clone(g))
		want, err := RidgeSolve(gs, mat.NewDense(l, m, slices.Clone(ht1)), ridge)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name  string
			f     LowerTri
			start []float64
			most  int
		}{
			{"exact factor", factorOf(t, g, l, ridge), make([]float64, l*m), 2},
			{"stale factor", factorOf(t, g0, l, ridge), make([]float64, l*m), 40},
			{"warm start", factorOf(t, g0, l, ridge), slices.Clone(want), 2},
		} {
			// The sums keep the lower triangle only: Solve symmetrizes.
			lower := slices.Clone(g)
			for i := 0; i < l; i++ {
				for j := i + 1; j < l; j++ {
					lower[i*l+j] = math.NaN()
				}
			}
			a := RidgeCG{G: lower, L: l, M: m, Ridge: ridge, F: tc.f}
			x, steps, ok := a.Solve(ht1, tc.start, 1e-11, 1e-10, 40)
			if !ok || steps > tc.most {
				t.Fatalf("L = %d, %s: converged %v in %d steps", l, tc.name, ok, steps)
			}
			for i := range x {
				if d := math.Abs(x[i] - want[i]); d > 1e-8*(1+math.Abs(want[i])) {
					t.Fatalf("L = %d, %s: x[%d] = %v, want %v", l, tc.name, i, x[i], want[i])
				}
			}
		}
		if l > 1 {
			a := RidgeCG{G: slices.Clone(g), L: l, M: m, Ridge: ridge, F: factorOf(t, g0, l, ridge)}
			if _, _, ok := a.Solve(ht1, make([]float64, l*m), 1e-11, 1e-10, 0); ok {
				t.Errorf("L = %d: converged without a step", l)
			}
		}
	}
}

// TestPrecondition checks that Precondition inverts F F^T: F F^T z = r.
func TestPrecondition(t *testing.T) {
	const l, m = 300, 2
	rng := rand.New(rand.NewPCG(3, 4))
	g, _ := ridgeSystem(rng, 400, l, m)
	f := factorOf(t, g, l, 1)
	a := RidgeCG{G: g, L: l, M: m, Ridge: 1, F: f}
	rT := make([]float64, m*l)
	for i := range rT {
		rT[i] = rng.NormFloat64()
	}
	zT := make([]float64, m*l)
	a.Precondition(rT, zT, make([]float64, TrsmBlock*m))
	for q := 0; q < m; q++ {
		for i := 0; i < l; i++ {
			s := 0.0 // (G + I) z = F F^T z
			for j := 0; j < l; j++ {
				s += g[i*l+j] * zT[q*l+j]
			}
			s += zT[q*l+i]
			if math.Abs(s-rT[q*l+i]) > 1e-8*(1+math.Abs(rT[q*l+i])) {
				t.Fatalf("output %d, row %d: %v, want %v", q, i, s, rT[q*l+i])
			}
		}
	}
}

// TestSymmetrizeAndScale: SymmetrizeTiled gives Symmetrize's bits for
// orders around its tiles; ScaleLowerPanels scales exactly the panels'
// part GramLower writes.
func TestSymmetrizeAndScale(t *testing.T) {
	for _, l := range []int{1, 63, 64, 65, 130, 300} {
		g := make([]float64, l*l)
		for i := range g {
			g[i] = float64(i%97) - 0.5
		}
		a, b := slices.Clone(g), slices.Clone(g)
		Symmetrize(a, l)
		SymmetrizeTiled(b, l)
		if !slices.Equal(a, b) {
			t.Errorf("L = %d: SymmetrizeTiled differs from Symmetrize", l)
		}
		s := slices.Clone(g)
		ScaleLowerPanels(s, l, 0.5)
		for i := 0; i < l; i++ {
			end := min(l, (i/StatsPanel+1)*StatsPanel)
			for j := 0; j < l; j++ {
				want := g[i*l+j]
				if j < end {
					want *= 0.5
				}
				if s[i*l+j] != want {
					t.Fatalf("L = %d: (%d, %d) is %v, want %v", l, i, j, s[i*l+j], want)
				}
			}
		}
	}
}

// TestPreconditionMirrored: with F^T mirrored above the diagonal (U,
// MirrorLower), Precondition's backward products by the NT kernel give
// the untransposed products' result to rounding (1e-12 relative), at
// orders of one, two and several panels, GOMAXPROCS 1 and 3 the same
// bits; MirrorLower leaves the lower triangle as it was.
func TestPreconditionMirrored(t *testing.T) {
	for _, l := range []int{5, 300, 700} {
		const m = 10
		rng := rand.New(rand.NewPCG(uint64(l), 9))
		g, _ := ridgeSystem(rng, l+50, l, m)
		f := factorOf(t, g, l, 1)
		full := make([]float64, l*l)
		for i := 0; i < l; i++ {
			copy(full[i*l:i*l+i+1], f.Row(i))
			for j := i + 1; j < l; j++ {
				full[i*l+j] = math.NaN() // MirrorLower must write every one
			}
		}
		lower := slices.Clone(full)
		MirrorLower(full, l)
		for i := 0; i < l; i++ {
			for j := 0; j < l; j++ {
				if want := lower[max(i, j)*l+min(i, j)]; full[i*l+j] != want {
					t.Fatalf("L = %d: mirrored (%d, %d) = %v, want %v", l, i, j, full[i*l+j], want)
				}
			}
		}
		rT := make([]float64, m*l)
		for i := range rT {
			rT[i] = rng.NormFloat64()
		}
		want := make([]float64, m*l)
		RidgeCG{G: g, L: l, M: m, Ridge: 1, F: f}.Precondition(rT, want, make([]float64, TrsmBlock*m))
		var first []float64
		for _, procs := range []int{1, 3} {
			old := runtime.GOMAXPROCS(procs)
			got := make([]float64, m*l)
			RidgeCG{G: g, L: l, M: m, Ridge: 1, F: FullTri(full, l), U: full}.Precondition(rT, got, make([]float64, TrsmBlock*m))
			runtime.GOMAXPROCS(old)
			if first == nil {
				first = got
			} else if !slices.Equal(first, got) {
				t.Fatalf("L = %d: other bits at GOMAXPROCS %d", l, procs)
			}
			var num, den float64
			for i := range got {
				num = max(num, math.Abs(got[i]-want[i]))
				den = max(den, math.Abs(want[i]))
			}
			if !(num <= 1e-12*den) {
				t.Fatalf("L = %d: mirrored backward products differ by %.3g relative", l, num/den)
			}
		}
	}
}

// BenchmarkPrecondition: the preconditioner's two sweeps at L = 2048, m =
// 10 (an online learner's), with the factor packed (the untransposed
// backward products) and held whole (U: the NT kernel).
func BenchmarkPrecondition(b *testing.B) {
	const l, m = 2048, 10
	rng := rand.New(rand.NewPCG(1, 2))
	g := make([]float64, l*l)
	for i := 0; i < l; i++ {
		for j := 0; j <= i; j++ {
			v := rng.NormFloat64() / l
			g[i*l+j], g[j*l+i] = v, v
		}
		g[i*l+i] += 4
	}
	f := slices.Clone(g)
	if err := Cholesky(f, l, l, 0); err != nil {
		b.Fatal(err)
	}
	packed := make([]float64, PackedLen(l))
	pt := PackedTri(packed, l)
	for i := 0; i < l; i++ {
		copy(pt.Row(i), f[i*l:i*l+i+1])
	}
	MirrorLower(f, l)
	rT := make([]float64, m*l)
	for i := range rT {
		rT[i] = rng.NormFloat64()
	}
	zT, w := make([]float64, m*l), make([]float64, TrsmBlock*m)
	for _, c := range []struct {
		name string
		a    RidgeCG
	}{
		{"packed", RidgeCG{G: g, L: l, M: m, Ridge: 1, F: pt}},
		{"whole", RidgeCG{G: g, L: l, M: m, Ridge: 1, F: FullTri(f, l), U: f}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.a.Precondition(rT, zT, w)
			}
		})
	}
}
