package lsq

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomProblem returns H (n x l) and T (n x m) of standard normal values.
func randomProblem(n, l, m int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 9))
	h := mat.NewDense(n, l, nil)
	for i := range n {
		for j := range l {
			h.Set(i, j, rng.NormFloat64())
		}
	}
	t := make([]float64, n*m)
	for i := range t {
		t[i] = rng.NormFloat64()
	}
	return h, t
}

// normal returns G = H^T H and H^T T.
func normal(h *mat.Dense, t []float64, m int) (*mat.SymDense, *mat.Dense) {
	n, _ := h.Dims()
	var g mat.SymDense
	g.SymOuterK(1, h.T())
	var ht mat.Dense
	ht.Mul(h.T(), mat.NewDense(n, m, t))
	return &g, &ht
}

func TestTransposed(t *testing.T) {
	a := []float32{1, 2, 3, 4, 5, 6} // 2 x 3
	if got := Transposed(a, 2, 3); !slices.Equal(got, []float32{1, 4, 2, 5, 3, 6}) {
		t.Fatalf("transpose of 2 x 3: %v", got)
	}
	b := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	if got := Transposed(Transposed(b, 3, 4), 4, 3); !slices.Equal(got, b) {
		t.Fatalf("transposing twice: %v", got)
	}
	if got := Transposed([]float64(nil), 0, 5); len(got) != 0 {
		t.Fatalf("empty: %v", got)
	}
}

// TestSolvesAgree: the package's solves of one least-squares problem give
// the same output weights: without a ridge, the QR engine, the SVD
// pseudo-inverse (MinNorm) and the eigen pseudo-inverse of the normal
// equations (EigenPinv); with one, gonum's Cholesky (RidgeSolve), the
// blocked one (CholeskySolve), MinNorm and the shared-prefix solves.
func TestSolvesAgree(t *testing.T) {
	const n, l, m = 60, 14, 3
	h, tt := randomProblem(n, l, m, 1)
	qr := NewQR(slices.Clone(tt), n, m)
	for j := range l {
		if !qr.Add(mat.Col(nil, j, h)) {
			t.Fatalf("column %d refused", j)
		}
	}
	want, err := qr.Solve(l, 0)
	if err != nil {
		t.Fatal(err)
	}
	mn, err := MinNorm(h, tt, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, ht := normal(h, tt, m)
	ep, ok := EigenPinv(slices.Clone(g.RawSymmetric().Data), ht.RawMatrix().Data, l, m)
	if !ok {
		t.Fatal("eigendecomposition failed")
	}
	for name, got := range map[string][]float64{"MinNorm": mn, "EigenPinv": ep} {
		if d := rel(got, want); d > 1e-9 {
			t.Errorf("%s differs from the QR solve by %g", name, d)
		}
	}

	const ridge = 0.7
	g, ht = normal(h, tt, m)
	rs, err := RidgeSolve(g, ht, ridge)
	if err != nil {
		t.Fatal(err)
	}
	g, ht = normal(h, tt, m)
	cs, err := CholeskySolve(g, ht, ridge)
	if err != nil {
		t.Fatal(err)
	}
	mr, err := MinNorm(h, tt, m, ridge)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := qr.Solve(l, ridge)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]float64{"CholeskySolve": cs, "MinNorm": mr, "QR": qs} {
		if d := rel(got, rs); d > 1e-10 {
			t.Errorf("%s with a ridge differs from RidgeSolve by %g", name, d)
		}
	}
	// Every prefix of the shared factor is the ridge solve of its block.
	g, ht = normal(h, tt, m)
	grid := []int{1, 5, l}
	out := make([][]float64, len(grid))
	PrefixRidgeBetas(g, ht, l, grid, ridge, m, out)
	for i, k := range grid {
		gk, hk := normal(h.Slice(0, n, 0, k).(*mat.Dense), tt, m)
		w, err := RidgeSolve(gk, hk, ridge)
		if err != nil {
			t.Fatal(err)
		}
		if d := rel(out[i], w); d > 1e-10 {
			t.Errorf("prefix %d differs from its own solve by %g", k, d)
		}
	}
}

// TestNearIsTheRidgeSolve: the preconditioned conjugate gradients of an
// update, on G_old + ridge I + H^T H with the fresh factor of
// G_old + ridge I and with a stale one, solve what RidgeSolve solves on
// the merged normal equations.
func TestNearIsTheRidgeSolve(t *testing.T) {
	const nOld, nNew, l, m, ridge = 80, 10, 12, 2, 0.5
	h, tt := randomProblem(nOld+nNew, l, m, 2)
	g, ht := normal(h, tt, m)
	want, err := RidgeSolve(g, ht, ridge)
	if err != nil {
		t.Fatal(err)
	}
	old := h.Slice(0, nOld, 0, l).(*mat.Dense)
	gOld, _ := normal(old, tt[:nOld*m], m)
	g0 := make([]float64, l*l)
	for i := range l {
		for j := range l {
			g0[i*l+j] = gOld.At(i, j)
		}
	}
	// The new images' outputs as one node-major chunk.
	chunk := Chunk{H: make([]float64, l*nNew), LD: nNew, Rows: nNew}
	for j := range l {
		for i := range nNew {
			chunk.H[j*nNew+i] = h.At(nOld+i, j)
		}
	}
	for _, stale := range []bool{false, true} {
		f := slices.Clone(g0)
		shift := ridge
		if stale {
			shift = 3 * ridge // the factor of another ridge: a preconditioner only
		}
		for i := range l {
			f[i*l+i] += shift
		}
		if err := Cholesky(f, l, l, shift); err != nil {
			t.Fatal(err)
		}
		var gStale []float64
		if stale {
			gStale = g0
		}
		got, ok := NewNear(FullTri(f, l), gStale, ridge, []Chunk{chunk}, l, m).PCG(ht.RawMatrix().Data, 1e-11, 1e-10, 100)
		if !ok {
			t.Fatalf("stale %v: no convergence", stale)
		}
		if d := rel(got, want); d > 1e-9 {
			t.Errorf("stale %v: differs from RidgeSolve by %g", stale, d)
		}
	}
}

func rel(a, b []float64) float64 {
	var d, n float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
		n += b[i] * b[i]
	}
	return math.Sqrt(d / n)
}
