package drive

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/scn2d/scn/internal/lsq"
	"github.com/scn2d/scn/internal/node"
)

// randRows returns n x d values in [-1, 1).
func randRows(rng *rand.Rand, n, d int) []float32 {
	x := make([]float32, n*d)
	for i := range x {
		x[i] = float32(2*rng.Float64() - 1)
	}
	return x
}

// TestCutRows checks that a source's shards, whatever their sizes, come
// out as row shards of lsq.ShardRows images (the last shorter) holding
// the same images in order, with the targets by output, and that a count
// other than the first pass's is refused before the last row shard.
func TestCutRows(t *testing.T) {
	defer func(r int) { lsq.ShardRows = r }(lsq.ShardRows)
	lsq.ShardRows = 16
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d, m = 53, 3, 2
	pix := randRows(rng, n, d)
	tt := make([]float64, n*m)
	for i := range tt {
		tt[i] = rng.Float64()
	}
	sizes := []int{7, 1, 20, 0, 25}
	shards := func(each func(pix []float32, t []float64, k int) error) error {
		lo := 0
		for _, k := range sizes {
			if err := each(pix[lo*d:(lo+k)*d], tt[lo*m:(lo+k)*m], k); err != nil {
				return err
			}
			lo += k
		}
		return nil
	}
	var got []float32
	var gotT []float64 // image-major, as tt
	var rows []int
	err := CutRows(context.Background(), n, d, m, shards, func(int) error { t.Fatal("mismatch"); return nil },
		func(p []float32, r int, tc []float64) error {
			if len(p) != r*d || len(tc) != r*m {
				t.Fatalf("row shard of %d images: %d values, %d targets", r, len(p), len(tc))
			}
			got = append(got, p...)
			for i := 0; i < r; i++ {
				for q := 0; q < m; q++ {
					gotT = append(gotT, tc[q*r+i])
				}
			}
			rows = append(rows, r)
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rows, []int{16, 16, 16, 5}) {
		t.Errorf("row shards %v, want 16, 16, 16, 5", rows)
	}
	if !slices.Equal(got, pix) || !slices.Equal(gotT, tt) {
		t.Error("the row shards do not hold the source's images and targets in order")
	}
	bad := errors.New("count")
	calls := 0
	err = CutRows(context.Background(), n+1, d, m, shards, func(seen int) error {
		if seen != n {
			t.Errorf("seen %d, want %d", seen, n)
		}
		return bad
	}, func([]float32, int, []float64) error { calls++; return nil })
	if !errors.Is(err, bad) || calls != 3 {
		t.Errorf("a short stream: %v after %d row shards, want the mismatch after 3", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = CutRows(ctx, n, d, m, shards, func(int) error { return nil }, func([]float32, int, []float64) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if StreamStop(err) != Cancelled || StreamStop(bad) != ReachedMaxNodes {
		t.Error("StreamStop")
	}
}

// TestCorrelationsAgree checks the one-node path's chunked sums and the
// block path's shard sums against a direct float64 reference.
func TestCorrelationsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, k, m = 5000, 5, 3
	z := randRows(rng, k, n)
	tt := make([]float64, n*m)
	for i := range tt {
		tt[i] = rng.NormFloat64()
	}
	ls := lsq.NewQR(tt, n, m)
	chunks := (n + CorrChunk - 1) / CorrChunk
	hh1, eh1 := Correlations(ls, z, k, m, n, make([]float64, chunks*k*(m+1)), make([]float64, k*n))
	e := make([]float64, m*n)
	for q := 0; q < m; q++ {
		copy(e[q*n:(q+1)*n], ls.Residual(q))
	}
	shards := []lsq.Shard{{Lo: 0, Hi: 2048}, {Lo: 2048, Hi: 4096}, {Lo: 4096, Hi: n}}
	hh2, eh2 := BlockCorrelations(shards, z, e, n, m, k)
	for j := 0; j < k; j++ {
		var hh float64
		for i := 0; i < n; i++ {
			v := float64(z[j*n+i])
			hh += v * v
		}
		for _, got := range []float64{hh1[j], hh2[j]} {
			if math.Abs(got-hh) > 1e-9*hh {
				t.Errorf("h^T h of %d: %g, want %g", j, got, hh)
			}
		}
		for q := 0; q < m; q++ {
			var eh float64
			for i := 0; i < n; i++ {
				eh += float64(z[j*n+i]) * tt[i*m+q]
			}
			for _, got := range []float64{eh1[q*k+j], eh2[q*k+j]} {
				if math.Abs(got-eh) > 1e-9*(1+math.Abs(eh))*float64(n) {
					t.Errorf("e_%d^T h_%d: %g, want %g", q, j, got, eh)
				}
			}
		}
	}
	// The choice of a block: the best of the admissible candidates at the
	// first r that admits b of them, at most b.
	ee := make([]float64, m)
	for q := 0; q < m; q++ {
		for i := 0; i < n; i++ {
			ee[q] += tt[i*m+q] * tt[i*m+q]
		}
	}
	ratios := []float64{0.9, 0.99, 0.999, 0.9999, 0.99999, 1}
	order, r := ChooseBlock(hh1, eh1, ee, m, ratios, k, 2)
	want := node.Admissible(hh1, eh1, ee, m, r, make([]bool, k))
	if len(order) > 2 || !slices.Equal(order, want[:len(order)]) {
		t.Errorf("ChooseBlock: %v at r = %g; admissible there %v", order, r, want)
	}
}

// TestScan checks the first pass's sums: the count, T_q^T T_q, the mean
// image and the head of MomentSample images.
func TestScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const d, m = 4, 2
	s := NewScan(d, m, true)
	var all []float32
	var tall []float64
	for _, n := range []int{3, 9000, 2000} {
		x := randRows(rng, n, d)
		tt := make([]float64, n*m)
		for i := range tt {
			tt[i] = rng.Float64()
		}
		s.Add(x, tt, n, d, m)
		all, tall = append(all, x...), append(tall, tt...)
	}
	n := len(all) / d
	if s.N != n || len(s.HeadPix) != MomentSample*d || !slices.Equal(s.HeadPix, all[:MomentSample*d]) || !slices.Equal(s.HeadT, tall[:MomentSample*m]) {
		t.Fatalf("count %d (want %d), head of %d images", s.N, n, len(s.HeadPix)/d)
	}
	for q := 0; q < m; q++ {
		var want float64
		for i := 0; i < n; i++ {
			want += tall[i*m+q] * tall[i*m+q]
		}
		if s.TT[q] != want {
			t.Errorf("T_%d^T T_%d = %g, want %g (summed image by image)", q, q, s.TT[q], want)
		}
	}
	mean := s.Mean.Mean()
	for p := 0; p < d; p++ {
		var want float64
		for i := 0; i < n; i++ {
			want += float64(all[i*d+p])
		}
		want /= float64(n)
		if math.Abs(float64(mean[p])-want) > 1e-5 {
			t.Errorf("mean pixel %d: %g, want %g", p, mean[p], want)
		}
	}
}

// TestPairMoments checks a pair batch's moments, its standardisation (the
// standardised inputs have mean 0 and spread lambda) and that the exact
// columns of the standardised candidates are their pair outputs.
func TestPairMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, rows, cols = 50, 4, 5
	x := Images{Pix: randRows(rng, n, rows*cols), N: n, Rows: rows, Cols: cols, Ch: 1}
	mm := node.Matrix{Rows: rows, Cols: cols, Ch: 1}
	np := mm.Size()
	const tu, tv, lambda = 3, 2, 0.5
	k := tu * tv
	cp, cb := make([]float32, k*np), make([]float32, k)
	pd := DrawPairs(rand.New(rand.NewPCG(9, 10)), node.Spec{}, nil, x, tu, tv, lambda, np, cp, cb)
	z := make([]float32, k*n)
	var sc node.PairScratch
	pd.Shard(x, 0, n, z, n, &sc)
	sum := make([]float64, 2*k)
	pd.Moments(z, n, sum)
	pd.Standardize(sum, lambda, n, rows, np, cp, cb)
	hb := []float32(nil)
	idx := make([]int, k)
	for j := range idx {
		idx[j] = j
	}
	var prof Profile
	exact := ExactColumns(mm, node.Activation(0), x, rows*cols, np, cp, cb, idx, &hb, &prof)
	for j := 0; j < k; j++ {
		var s1, s2 float64
		zj := slices.Clone(z[j*n : (j+1)*n])
		for _, v := range zj {
			s1 += float64(v)
			s2 += float64(v) * float64(v)
		}
		if s1 != sum[j] || s2 != sum[k+j] {
			t.Errorf("moments of %d: %g, %g; want %g, %g", j, sum[j], sum[k+j], s1, s2)
		}
		pd.Activation(node.Activation(0), j, zj)
		for i := range zj {
			if d := math.Abs(float64(zj[i] - exact[j*n+i])); d > 1e-4 {
				t.Fatalf("candidate %d image %d: pair output %g, exact column %g", j, i, zj[i], exact[j*n+i])
			}
		}
		if pd.Scale[j] == 0 {
			continue
		}
		// The standardised input (before the bias) has mean 0, spread lambda.
		var m1, m2 float64
		for _, v := range z[j*n : (j+1)*n] {
			u := (float64(v) - pd.Mean[j]) * pd.Scale[j]
			m1 += u
			m2 += u * u
		}
		m1 /= n
		if math.Abs(m1) > 1e-6 || math.Abs(math.Sqrt(m2/n-m1*m1)-lambda) > 1e-6 {
			t.Errorf("candidate %d standardised: mean %g, spread %g", j, m1, math.Sqrt(m2/n-m1*m1))
		}
	}
}

// TestNames checks the stop reasons' and modes' names.
func TestNames(t *testing.T) {
	for s := ReachedMaxNodes; s <= BudgetSpent; s++ {
		if s.String() != StopNames[s] || s.String() == "" {
			t.Errorf("stop %d: %q", int(s), s.String())
		}
	}
	if StopReason(-1).String() != "stop(-1)" || StopReason(99).String() != "stop(99)" {
		t.Error("an unknown stop reason's name")
	}
	seen := map[string]bool{}
	for m := ModeOneNode; m <= ModeLocal; m++ {
		if seen[m.String()] || m.String() == "unknown" {
			t.Errorf("mode %d: %q", int(m), m.String())
		}
		seen[m.String()] = true
	}
	if Mode(99).String() != "unknown" {
		t.Error("an unknown mode's name")
	}
	if ok := AllTrue(3); !slices.Equal(ok, []bool{true, true, true}) {
		t.Errorf("AllTrue(3) = %v", ok)
	}
}
