package holdout

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestScorer: two shards read in batches of uneven sizes give the squared
// errors, hits and normal equations of direct sums over all images.
func TestScorer(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, L, m = 23, 5, 3
	h := make([]float64, n*L) // image-major
	y := make([]float64, n*m) // targets, image-major
	for i := range h {
		h[i] = float64(float32(rng.NormFloat64()))
	}
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	type pre struct {
		l    int
		beta []float64 // l x m
	}
	pres := []pre{{2, nil}, {5, nil}}
	s := NewScorer(L, m, true)
	for k := range pres {
		l := pres[k].l
		pres[k].beta = make([]float64, l*m)
		bt := make([]float64, m*l)
		for j := 0; j < l; j++ {
			for q := 0; q < m; q++ {
				v := rng.NormFloat64()
				pres[k].beta[j*m+q], bt[q*l+j] = v, v
			}
		}
		s.AddPrefix(l, bt)
	}
	for _, sh := range [][2]int{{0, 14}, {14, 23}} {
		r := sh[1] - sh[0]
		tc := make([]float64, m*r)
		for i := 0; i < r; i++ {
			for q := 0; q < m; q++ {
				tc[q*r+i] = y[(sh[0]+i)*m+q]
			}
		}
		s.Shard(tc, r)
		for lo := 0; lo < r; lo += 4 {
			rows := min(4, r-lo)
			hb := make([]float32, L*rows)
			for j := 0; j < L; j++ {
				for i := 0; i < rows; i++ {
					hb[j*rows+i] = float32(h[(sh[0]+lo+i)*L+j])
				}
			}
			s.Batch(lo, rows, hb, tc, r)
		}
	}
	for k, p := range pres {
		var sse float64
		hits := 0
		for i := 0; i < n; i++ {
			o := make([]float64, m)
			for q := range o {
				for j := 0; j < p.l; j++ {
					o[q] += h[i*L+j] * p.beta[j*m+q]
				}
				sse += (o[q] - y[i*m+q]) * (o[q] - y[i*m+q])
			}
			if argMax(o) == argMax(y[i*m:(i+1)*m]) {
				hits++
			}
		}
		if math.Abs(s.SSE[k]-sse) > 1e-9*sse || s.Hits[k] != hits {
			t.Errorf("prefix %d: SSE %v hits %d, want %v and %d", p.l, s.SSE[k], s.Hits[k], sse, hits)
		}
	}
	var tt float64
	for _, v := range y {
		tt += v * v
	}
	if math.Abs(s.TT-tt) > 1e-12*tt {
		t.Errorf("T^T T %v, want %v", s.TT, tt)
	}
	for a := 0; a < L; a++ {
		for b := 0; b < L; b++ {
			var g float64
			for i := 0; i < n; i++ {
				g += h[i*L+a] * h[i*L+b]
			}
			if math.Abs(s.G[a*L+b]-g) > 1e-9*(1+math.Abs(g)) {
				t.Fatalf("G[%d,%d] = %v, want %v", a, b, s.G[a*L+b], g)
			}
		}
		for q := 0; q < m; q++ {
			var v float64
			for i := 0; i < n; i++ {
				v += h[i*L+a] * y[i*m+q]
			}
			if math.Abs(s.HT[a*m+q]-v) > 1e-9*(1+math.Abs(v)) {
				t.Fatalf("H^T T[%d,%d] = %v, want %v", a, q, s.HT[a*m+q], v)
			}
		}
	}
	if got := s.Lengths(); len(got) != 2 || got[0] != 2 || got[1] != 5 {
		t.Errorf("Lengths %v", got)
	}
	pts := s.Points([]float64{0.5, 2}, n)
	for k, p := range pts {
		if p.Nodes != pres[k].l || p.Ridge != []float64{0.5, 2}[k] || p.RMSE != math.Sqrt(s.SSE[k]/float64(n*m)) || p.Accuracy != float64(s.Hits[k])/float64(n) || p.Direct {
			t.Errorf("Points[%d] = %+v", k, p)
		}
	}
	if len(pts) != 2 {
		t.Errorf("%d points", len(pts))
	}
}
