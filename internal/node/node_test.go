package node

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/scn2d/scn/internal/lsq"
)

// TestMapsWeights: every map's weight over the image is what its
// definition says (w itself; vec(u v^T) times w_c), WeightNorm is the
// weight's norm, and Size counts the parameters Draw fills.
func TestMapsWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, m := range []Map{Vector{D: 12}, Matrix{Rows: 3, Cols: 4, Ch: 1}, Matrix{Rows: 3, Cols: 4, Ch: 2}, Field{Vector: Vector{D: 12}, Rows: 3, Cols: 4, Ch: 1}} {
		p := make([]float32, m.Size())
		m.Draw(rng, 2, p)
		for _, v := range p {
			if v < -2 || v > 2 || v == 0 {
				t.Fatalf("%T: draw %v outside (-2, 2) or zero", m, v)
			}
		}
		d := 12
		if mm, ok := m.(Matrix); ok {
			d = mm.Rows * mm.Cols * mm.Ch
		}
		w := make([]float32, d)
		m.Weight(p, w)
		for i := range w {
			var want float32
			switch mm := m.(type) {
			case Matrix:
				c, a, b := i/(mm.Rows*mm.Cols), i/mm.Cols%mm.Rows, i%mm.Cols
				want = p[a] * p[mm.Rows+b]
				if mm.ChanWeights() {
					want *= p[mm.Rows+mm.Cols+c]
				}
			default:
				want = p[i]
			}
			if w[i] != want {
				t.Fatalf("%T: weight %d = %v, want %v", m, i, w[i], want)
			}
		}
		if got, want := m.WeightNorm(p), Norm32(w); math.Abs(got-want) > 1e-6*want {
			t.Errorf("%T: WeightNorm %v, ||w|| %v", m, got, want)
		}
	}
	if (Matrix{Rows: 3, Cols: 4, Ch: 1}).Size() != 7 || (Matrix{Rows: 3, Cols: 4, Ch: 3}).Size() != 10 {
		t.Error("Matrix.Size counts channel weights only with several planes")
	}
}

// TestRankOne: exact on a rank-one matrix and tensor (up to sign, fixed by
// the largest entries), zero for zero, and FieldInterval's sides within
// their bounds.
func TestRankOne(t *testing.T) {
	a, b := []float64{1, -2, 3}, []float64{0.5, 4, -1, 2}
	d := make([]float64, 12)
	for i := range a {
		for j := range b {
			d[i*4+j] = a[i] * b[j]
		}
	}
	u, v := RankOne(d, 3, 4)
	for i := range a {
		for j := range b {
			if got := u[i] * v[j]; math.Abs(got-d[i*4+j]) > 1e-12 {
				t.Fatalf("u v^T [%d][%d] = %v, want %v", i, j, got, d[i*4+j])
			}
		}
	}
	if v[1] <= 0 {
		t.Errorf("v's largest entry %v is not positive", v[1])
	}
	c := []float64{2, -0.5}
	d3 := make([]float64, 2*12)
	for k := range c {
		for i := range 12 {
			d3[k*12+i] = c[k] * d[i]
		}
	}
	u3, v3, c3 := RankOne3(d3, 2, 3, 4)
	for k := range c {
		for i := range a {
			for j := range b {
				want := d3[k*12+i*4+j]
				if got := u3[i] * v3[j] * c3[k]; math.Abs(got-want) > 1e-9 {
					t.Fatalf("rank-one tensor [%d][%d][%d] = %v, want %v", k, i, j, got, want)
				}
			}
		}
	}
	u0, v0 := RankOne(make([]float64, 12), 3, 4)
	if norm64(u0) != 0 || norm64(v0) != 1 {
		t.Errorf("zero matrix: u %v v %v", u0, v0)
	}
	if Normalise(make([]float64, 3)) || Normalise([]float64{math.Inf(1), 0}) {
		t.Error("Normalise accepted a zero or infinite vector")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		lo, hi := FieldInterval(rng, 10, 3, 6)
		if lo < 0 || hi > 10 || hi-lo < 3 || hi-lo > 6 {
			t.Fatalf("FieldInterval(10, 3, 6) = [%d, %d)", lo, hi)
		}
		if lo, hi := FieldInterval(rng, 4, 9, 2); lo < 0 || hi > 4 || hi-lo < 2 || hi-lo > 4 {
			t.Fatalf("FieldInterval(4, 9, 2) = [%d, %d)", lo, hi)
		}
	}
}

// norm64 is the Euclidean norm of x.
func norm64(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

// TestScorePairs: every pair's output is u_s^T X_i v_t (with channel
// weights: sum_c w_c u_s^T X_c v_t), against a plain sum, on more images
// than one shard holds (shards of 128 images here).
func TestScorePairs(t *testing.T) {
	old := lsq.ShardRows
	lsq.ShardRows = 128
	defer func() { lsq.ShardRows = old }()
	rng := rand.New(rand.NewPCG(5, 6))
	const rows, cols, tu, tv = 4, 3, 3, 2
	for _, ch := range []int{1, 2} {
		n := 300
		pix := make([]float32, n*ch*rows*cols)
		Uniform(rng, 1, pix)
		u := make([]float32, tu*rows)
		Uniform(rng, 1, u)
		per := cols
		if ch > 1 {
			per = cols + ch
		}
		v := make([]float32, tv*per)
		Uniform(rng, 1, v)
		z := make([]float32, tu*tv*n)
		ScorePairs(pix, n, rows, cols, ch, u, tu, ExpandChannels(v, tv, cols, ch), tv, z)
		for i := 0; i < n; i++ {
			for tt := 0; tt < tv; tt++ {
				for s := 0; s < tu; s++ {
					var want float64
					for c := 0; c < ch; c++ {
						wc := 1.0
						if ch > 1 {
							wc = float64(v[tt*per+cols+c])
						}
						for a := 0; a < rows; a++ {
							for b := 0; b < cols; b++ {
								want += wc * float64(u[s*rows+a]) * float64(pix[i*ch*rows*cols+c*rows*cols+a*cols+b]) * float64(v[tt*per+b])
							}
						}
					}
					if got := z[(tt*tu+s)*n+i]; math.Abs(float64(got)-want) > 1e-4 {
						t.Fatalf("ch %d image %d pair (%d, %d): %v, want %v", ch, i, s, tt, got, want)
					}
				}
			}
		}
	}
	if PairSide(1) != 1 || PairSide(9) != 3 || PairSide(10) != 4 || PairSide(0) != 1 {
		t.Error("PairSide is not ceil(sqrt(k)), at least 1")
	}
}

// TestDraw: receptive fields leave zeros outside one rectangle of sides
// within [FieldMin, FieldMax]; a vector difference node over the whole
// image is the difference of two images of different classes.
func TestDraw(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const rows, cols = 6, 5
	f := Field{Vector: Vector{D: rows * cols}, Rows: rows, Cols: cols, Ch: 1}
	sp := Spec{FieldMin: 2, FieldMax: 3}
	for range 50 {
		p := make([]float32, f.Size())
		Draw(rng, f, sp, 1, p, nil)
		r0, r1, c0, c1 := rows, -1, cols, -1
		for i, v := range p {
			if v != 0 {
				r0, r1, c0, c1 = min(r0, i/cols), max(r1, i/cols), min(c0, i%cols), max(c1, i%cols)
			}
		}
		if h, w := r1-r0+1, c1-c0+1; h < 2 || h > 3 || w < 2 || w > 3 {
			t.Fatalf("receptive field of %d x %d, want sides in [2, 3]", h, w)
		}
	}
	m := Matrix{Rows: rows, Cols: cols, Ch: 1}
	p := make([]float32, m.Size())
	Draw(rng, m, Spec{}, 0.5, p, nil)
	for _, v := range p {
		if v == 0 || v < -0.5 || v > 0.5 {
			t.Fatalf("uniform draw %v outside (-0.5, 0.5)", v)
		}
	}
	// Two images of two classes: the difference node is +-(x_0 - x_1).
	pix := make([]float32, 2*rows*cols)
	Uniform(rng, 1, pix)
	src := NewDiffSource(pix, 2, rows, cols, 1, []int{0, 1})
	if !src.Classified() {
		t.Fatal("a source with classes reports none")
	}
	v := Vector{D: rows * cols}
	p = make([]float32, v.Size())
	Draw(rng, v, Spec{}, 1, p, src)
	sign := float32(1)
	if p[0] != pix[0]-pix[rows*cols] {
		sign = -1
	}
	for i, got := range p {
		if want := sign * (pix[i] - pix[rows*cols+i]); got != want {
			t.Fatalf("difference node entry %d = %v, want %v", i, got, want)
		}
	}
}
