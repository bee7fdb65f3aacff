package scn

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/scn2d/scn/internal/node"
	"gonum.org/v1/gonum/mat"
)

// patchDiff returns x_a - x_b on the rectangle [r0, r1) x [c0, c1), row-major.
func patchDiff(x Images, a, b, r0, r1, c0, c1 int) []float64 {
	xa, xb := x.Image(a), x.Image(b)
	d := make([]float64, 0, (r1-r0)*(c1-c0))
	for i := r0; i < r1; i++ {
		for j := c0; j < c1; j++ {
			d = append(d, float64(xa[i*x.Cols+j])-float64(xb[i*x.Cols+j]))
		}
	}
	return d
}

// support returns the smallest rectangle holding the non-zero entries of
// the rows x cols weight image w.
func support(w []float64, rows, cols int) (r0, r1, c0, c1 int) {
	r0, c0 = rows, cols
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if w[i*cols+j] != 0 {
				r0, r1 = min(r0, i), max(r1, i+1)
				c0, c1 = min(c0, j), max(c1, j+1)
			}
		}
	}
	return r0, r1, c0, c1
}

// TestDifferenceNodes: with Differences, a vector node's weights are
// exactly x_a - x_b on its rectangle for two images of different classes,
// and a matrix node's u v^T is the best rank-1 approximation of such a
// difference (compared with gonum's SVD, 1e-5), with v's largest entry
// positive; both are zero off the rectangle.
func TestDifferenceNodes(t *testing.T) {
	x, y, names := blobs(30, 10, 8, 3, 9)
	p, err := Classification(x, y, names)
	if err != nil {
		t.Fatal(err)
	}
	rows, cols := x.Rows, x.Cols
	for _, k := range []Kind{RVFL, RVFL2D} {
		c := Fast(k)
		c.Differences, c.MaxNodes = true, 100
		c.FieldMin, c.FieldMax = 3, 6
		bb := newBlockBuilder(c, p, runOpts{})
		params := make([]float32, bb.NP)
		for node := 0; node < 40; node++ {
			drawNode(bb.Rng, bb.NM, c, 1, params, bb.Diffs)
			w := make([]float64, rows*cols)
			if k.Input == Matrix {
				u, v := params[:rows], params[rows:]
				big := 0
				for j := range v {
					if math.Abs(float64(v[j])) > math.Abs(float64(v[big])) {
						big = j
					}
				}
				if v[big] <= 0 {
					t.Fatalf("%v node %d: v's largest entry %v is not positive", k, node, v[big])
				}
				for a := range u {
					for b := range v {
						w[a*cols+b] = float64(u[a]) * float64(v[b])
					}
				}
			} else {
				for i, v := range params {
					w[i] = float64(v)
				}
			}
			r0, r1, c0, c1 := support(w, rows, cols)
			if r1-r0 > 6 || c1-c0 > 6 {
				t.Fatalf("%v node %d: weights on %d x %d, want within a 6 x 6 field", k, node, r1-r0, c1-c0)
			}
			found := false
			for a := 0; a < x.Len() && !found; a++ {
				for b := 0; b < x.Len() && !found; b++ {
					if y[a] == y[b] {
						continue
					}
					// The node's field may be larger than the support of w
					// when the difference is zero at its edges; compare on
					// the support, where every matching pair must agree.
					d := patchDiff(x, a, b, r0, r1, c0, c1)
					h, wd := r1-r0, c1-c0
					var want []float64
					if k.Input == Matrix {
						want = rankOneRef(t, d, h, wd)
					} else {
						want = d
					}
					ok := true
					for i := 0; i < h && ok; i++ {
						for j := 0; j < wd && ok; j++ {
							got, exp := w[(r0+i)*cols+c0+j], want[i*wd+j]
							tol := 0.0 // w is x_a - x_b rounded to float32
							exp = float64(float32(exp))
							if k.Input == Matrix {
								tol = 1e-5 * max(1, math.Abs(exp))
							}
							ok = math.Abs(got-exp) <= tol
						}
					}
					found = ok
				}
			}
			if !found {
				t.Fatalf("%v node %d: weights are not the (rank-1) difference of two images of different classes", k, node)
			}
		}
	}
}

// rankOneRef is sigma_1 u_1 v_1^T of the h x w matrix d, by gonum's SVD.
func rankOneRef(t *testing.T, d []float64, h, w int) []float64 {
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(h, w, d), mat.SVDThin) {
		t.Fatal("SVD failed")
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	s := svd.Values(nil)[0]
	out := make([]float64, h*w)
	for i := 0; i < h; i++ {
		for j := 0; j < w; j++ {
			out[i*w+j] = s * u.At(i, 0) * v.At(j, 0)
		}
	}
	return out
}

// TestDifferenceNodesOnBlankImages: where every pair of images is equal on
// a node's field (here: blank images), the node falls back to normal
// entries instead of being blind to the data.
func TestDifferenceNodesOnBlankImages(t *testing.T) {
	x := Images{Rows: 6, Cols: 5, Pix: make([]float32, 20*30)}
	labels := make([]int, 20)
	for i := range labels {
		labels[i] = i % 2
	}
	p, err := Classification(x, labels, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []Kind{RVFL, RVFL2D} {
		c := Fast(k)
		c.Differences, c.MaxNodes = true, 100
		bb := newBlockBuilder(c, p, runOpts{})
		params := make([]float32, bb.NP)
		drawNode(bb.Rng, bb.NM, c, 1, params, bb.Diffs)
		nz := 0
		for _, v := range params {
			if v != 0 {
				nz++
			}
		}
		if nz == 0 {
			t.Errorf("%v: a node on blank images has all-zero weights", k)
		}
	}
}

// TestDifferencesFit: difference nodes fit the four learners, for
// classification and regression, give the same file at GOMAXPROCS 1 and 2,
// record the setting in the file, and need Standardize.
func TestDifferencesFit(t *testing.T) {
	p := blobProblem(t, 3000)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, k := range Kinds() {
		c := Fast(k)
		c.Differences = true
		c.MaxNodes, c.BlockSize, c.FieldMin, c.FieldMax = 60, 20, 3, 6
		var files [][]byte
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			m := fitT(t, c, p)
			file, back := roundTrip(t, m)
			files = append(files, file)
			if !back.Config.Differences {
				t.Errorf("%v: Differences not recorded in the file", k)
			}
			if acc, _ := m.Accuracy(p.X, labelsOf(p)); acc < 0.9 {
				t.Errorf("%v: training accuracy %.3f with difference nodes, want >= 0.9", k, acc)
			}
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("%v: files differ between GOMAXPROCS 1 and 2", k)
		}
	}
	// Regression: any two images.
	reg, err := Regression(p.X, p.T, p.M)
	if err != nil {
		t.Fatal(err)
	}
	c := Fast(RVFL2D)
	c.Differences, c.MaxNodes = true, 40
	fitT(t, c, reg)
	// Differences without Standardize is refused.
	c.Standardize = false
	if _, err := c.Fit(t.Context(), p, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("Differences without Standardize: err = %v, want ErrConfig", err)
	}
}

// TestRankOneIsTheLeadingSingularPair: the power iteration's u v^T is the
// SVD's sigma_1 u_1 v_1^T (to 1e-6 of sigma_1) on random and on
// image-difference matrices, small and photo-sized, and v's largest entry
// in magnitude is positive.
func TestRankOneIsTheLeadingSingularPair(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, sh := range [][2]int{{1, 1}, {1, 7}, {6, 1}, {5, 5}, {28, 28}, {112, 92}, {243, 320}} {
		h, w := sh[0], sh[1]
		d := make([]float64, h*w)
		for i := range d {
			// A smooth structure (as an image difference has) plus noise.
			d[i] = math.Sin(float64(i%w)/7)*math.Cos(float64(i/w)/5) + 0.1*r.NormFloat64()
		}
		u, v := node.RankOne(d, h, w)
		want := rankOneRef(t, d, h, w)
		var scale float64
		for _, x := range want {
			scale = max(scale, math.Abs(x))
		}
		for i := 0; i < h; i++ {
			for j := 0; j < w; j++ {
				if got := u[i] * v[j]; math.Abs(got-want[i*w+j]) > 1e-6*scale {
					t.Fatalf("%d x %d: (u v^T)[%d,%d] = %v, the SVD's %v", h, w, i, j, got, want[i*w+j])
				}
			}
		}
		big := 0
		for j := range v {
			if math.Abs(v[j]) > math.Abs(v[big]) {
				big = j
			}
		}
		if v[big] <= 0 {
			t.Fatalf("%d x %d: v's largest entry %v is not positive", h, w, v[big])
		}
	}
	// A zero matrix: u = 0, any unit v.
	u, v := node.RankOne(make([]float64, 12), 3, 4)
	if u[0] != 0 || u[1] != 0 || u[2] != 0 || v[0] != 1 {
		t.Fatalf("zero matrix: u %v, v %v", u, v)
	}
}
