package holdout

import (
	"math"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
)

// Scorer scores prefixes of a fit on held-out images read batch by batch,
// and sums the held-out normal equations for a refit: for each (l, beta)
// added (AddPrefix), the squared error of the outputs H_l beta against
// the targets and, for classification, the images whose arg-max output is
// their class; and G = H^T H (full L x L), H^T T (L x M) and T^T T summed
// over the outputs. The sums run image by image in the order the batches
// come, as the in-memory scores sum them.
type Scorer struct {
	L, M     int
	Classify bool
	// SSE and Hits are each prefix's squared error and right answers, in
	// the order the prefixes were added.
	SSE  []float64
	Hits []int
	// G, HT and TT are the held-out normal equations' sums.
	G, HT []float64
	TT    float64

	bts          []prefix
	trow         []float64
	labels       []int
	hv, h64, out []float64
}

// prefix is one scored prefix: l nodes, beta^T (M x l).
type prefix struct {
	l  int
	bt []float64
}

// NewScorer returns a scorer of the prefixes of a fit of l nodes and m
// outputs.
func NewScorer(l, m int, classify bool) *Scorer {
	return &Scorer{L: l, M: m, Classify: classify, G: make([]float64, l*l), HT: make([]float64, l*m)}
}

// AddPrefix adds the prefix of l nodes with output weights transposed bt
// (M x l) to the prefixes scored.
func (s *Scorer) AddPrefix(l int, bt []float64) {
	s.bts = append(s.bts, prefix{l, bt})
	s.SSE = append(s.SSE, 0)
	s.Hits = append(s.Hits, 0)
}

// Prefixes returns the number of prefixes added.
func (s *Scorer) Prefixes() int { return len(s.bts) }

// Shard starts a shard of r held-out images with targets tc by output
// (tc[q*r+i], M x r): their sum of squares is added to TT.
func (s *Scorer) Shard(tc []float64, r int) {
	m := s.M
	s.trow = lsq.Grow(s.trow, r*m)
	for q := 0; q < m; q++ {
		for i, v := range tc[q*r : (q+1)*r] {
			s.trow[i*m+q] = v
			s.TT += v * v
		}
	}
	if s.Classify {
		s.labels = lsq.Grow(s.labels, r)
		for i := range s.labels {
			s.labels[i] = argMax(s.trow[i*m : (i+1)*m])
		}
	}
}

// Batch adds the images lo .. lo+rows-1 of the current shard (targets tc
// as given to Shard, r images) with hidden outputs hb node-major
// (hb[j*rows+i], L nodes).
func (s *Scorer) Batch(lo, rows int, hb []float32, tc []float64, r int) {
	L, m := s.L, s.M
	// The outputs by image (as the in-memory evaluator keeps them) and by
	// node for the normal equations.
	s.hv = lsq.Grow(s.hv, rows*L)
	s.h64 = lsq.Grow(s.h64, L*rows)
	hv, h64 := s.hv, s.h64
	for j := 0; j < L; j++ {
		for i, v := range hb[j*rows : (j+1)*rows] {
			hv[i*L+j] = float64(v)
			h64[j*rows+i] = float64(v)
		}
	}
	s.out = lsq.Grow(s.out, rows*m)
	out, trow := s.out, s.trow
	for k, p := range s.bts {
		linalg.GemmNT64(rows, m, p.l, 1, hv, L, p.bt, p.l, 0, out, m)
		for i := 0; i < rows; i++ {
			o := out[i*m : (i+1)*m]
			for q, v := range o {
				d := v - trow[(lo+i)*m+q]
				s.SSE[k] += d * d
			}
			if s.Classify && argMax(o) == s.labels[lo+i] {
				s.Hits[k]++
			}
		}
	}
	linalg.GemmNT64(L, L, rows, 1, h64, rows, h64, rows, 1, s.G, L)
	linalg.GemmNT64(L, m, rows, 1, h64, rows, tc[lo:], r, 1, s.HT, m)
}

// argMax returns the index of the largest value of row, the first of
// equal ones.
func argMax(row []float64) int {
	best := 0
	for q, v := range row {
		if v > row[best] {
			best = q
		}
	}
	return best
}

// Lengths returns the prefix lengths in the order they were added.
func (s *Scorer) Lengths() []int {
	out := make([]int, len(s.bts))
	for k, p := range s.bts {
		out[k] = p.l
	}
	return out
}

// Points returns each prefix's score over the nh held-out images, in the
// order the prefixes were added, the k-th at ridge term alphas[k].
func (s *Scorer) Points(alphas []float64, nh int) []Point {
	out := make([]Point, 0, len(s.bts))
	for k, l := range s.Lengths() {
		p := Point{Nodes: l, Ridge: alphas[k], RMSE: math.Sqrt(s.SSE[k] / float64(nh*s.M))}
		if s.Classify {
			p.Accuracy = float64(s.Hits[k]) / float64(nh)
		}
		out = append(out, p)
	}
	return out
}
