// Command ridge is a benchmark, not part of the product: it compares scn
// train's default preset (2DSCN with model selection) with a plain linear
// ridge classifier on the same preprocessed pixels (one-hot targets, an
// intercept, the ridge term chosen on the same hold-out or folds from the
// decades 1e-4 ... 1e4), on one data set. The ridge solve is gonum's
// Cholesky (dual N x N form when the pixels outnumber the images),
// independent of the library's solvers.
//
//	go run ./bench/ridge -set orl -splits 50
//	go run ./bench/ridge -set cvl|natural|mnist
//	go run ./bench/ridge -set orl-light -splits 20   (see light.go)
//
// -old also fits the default as it was before direct links and growth
// (Selection without TryDirect and Grow), on the same data.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"path/filepath"
	"sort"
	"time"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
	"gonum.org/v1/gonum/mat"
)

func main() {
	set := flag.String("set", "orl", "data set: orl, orl-light, cvl, natural, mnist")
	data := flag.String("data", "/work/shared/data", "data folder")
	splits := flag.Int("splits", 10, "ORL: random splits (5 + 5 images per subject)")
	old := flag.Bool("old", false, "also fit the default without direct links and growth")
	skipNew := flag.Bool("ridge-only", false, "fit the ridge reference only")
	noRidge := flag.Bool("no-ridge", false, "do not fit the ridge reference")
	flag.IntVar(&lmax, "lmax", 500, "the default's L_max (scn train's default 500)")
	flag.BoolVar(&noGrow, "no-grow", false, "fit the default without growth past L_max")
	first := flag.Int("first", 1, "ORL: the first split (seed) to fit")
	flag.Float64Var(&holdout, "holdout", 0, "the default's selection on one hold-out of this share instead of the size rule's folds (the experiment E3's \"what a user gets\" row: 0.2)")
	flag.BoolVar(&noDirect, "no-direct", false, "fit the default without trying direct links")
	flag.BoolVar(&whiten, "whiten", false, "with -photos: whitened patches (Local.Whiten)")
	flag.BoolVar(&photos, "photos", false, "fit what scn train's default preset fits on photos (grey images larger than 40 x 40, or colour): local 2DRVFL (scn.Config.ForPhotos), no selection")
	flag.Parse()
	var sets []pair
	switch *set {
	case "orl":
		faces, err := dataset.ReadORL(filepath.Join(*data, "orl_faces"))
		check(err)
		for t := *first - 1; t < *first-1+*splits; t++ {
			d, err := dataset.BuildFaceSplit(faces, 5, 1+uint64(t))
			check(err)
			sets = append(sets, pair{d.Part("train"), d.Part("test")})
		}
	case "orl-light":
		faces, err := dataset.ReadORL(filepath.Join(*data, "orl_faces"))
		check(err)
		sets, err = lightSets(faces, *first, *splits)
		check(err)
	case "cvl":
		a := filepath.Join(*data, "cvl-digits.tar.gz")
		tr, err := dataset.ReadFolderTarGz(a, "cvl-digits/train", dataset.Preprocess{})
		check(err)
		te, err := dataset.ReadFolderTarGz(a, "cvl-digits/test", dataset.Preprocess{})
		check(err)
		sets = append(sets, pair{tr, te})
	case "natural":
		tr, err := dataset.ReadFolder(filepath.Join(*data, "natural-images", "train"), dataset.Preprocess{})
		check(err)
		te, err := dataset.ReadFolder(filepath.Join(*data, "natural-images", "test"), dataset.Preprocess{})
		check(err)
		sets = append(sets, pair{tr, te})
	case "mnist":
		d := filepath.Join(*data, "mnist")
		tr, err := dataset.ReadIDX(filepath.Join(d, "train-images-idx3-ubyte.gz"), filepath.Join(d, "train-labels-idx1-ubyte.gz"))
		check(err)
		te, err := dataset.ReadIDX(filepath.Join(d, "t10k-images-idx3-ubyte.gz"), filepath.Join(d, "t10k-labels-idx1-ubyte.gz"))
		check(err)
		sets = append(sets, pair{tr, te})
	default:
		log.Fatalf("unknown set %q", *set)
	}
	var accR, accN, accO []float64
	for i, s := range sets {
		p, err := s.tr.Problem()
		check(err)
		q, err := s.te.Problem()
		check(err)
		sel := defaultSelection(s.tr)
		line := fmt.Sprintf("%s %d/%d: N = %d, %d x %d x %d", *set, i+1, len(sets), p.X.Len(), p.X.Chans(), p.X.Rows, p.X.Cols)
		if !*noRidge {
			t0 := time.Now()
			ar, alpha := ridgeAccuracy(p, q, sel)
			accR = append(accR, ar)
			line += fmt.Sprintf("; ridge %.2f%% (alpha %g, %.1f s)", 100*ar, alpha, time.Since(t0).Seconds())
		}
		if !*skipNew {
			a, desc, took := fitDefault(p, q, sel, true)
			accN = append(accN, a)
			line += fmt.Sprintf("; default %.2f%% (%s, %.1f s)", 100*a, desc, took.Seconds())
		}
		if *old {
			a, desc, took := fitDefault(p, q, sel, false)
			accO = append(accO, a)
			line += fmt.Sprintf("; old default %.2f%% (%s, %.1f s)", 100*a, desc, took.Seconds())
		}
		fmt.Println(line)
	}
	fmt.Printf("%s, %d split(s):", *set, len(sets))
	if len(accR) > 0 {
		fmt.Printf(" ridge %s", stat(accR))
	}
	if len(accN) > 0 {
		fmt.Printf("; default %s", stat(accN))
	}
	if len(accO) > 0 {
		fmt.Printf("; old default %s", stat(accO))
	}
	fmt.Println()
}

// pair is a training set and its test set.
type pair struct{ tr, te *dataset.Set }

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func stat(v []float64) string {
	var m, s float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	if len(v) > 1 {
		s = math.Sqrt(s / float64(len(v)-1))
	}
	return fmt.Sprintf("%.2f +- %.2f", 100*m, 100*s)
}

// defaultSelection is scn train's default model selection for the set:
// a 10% hold-out, or k folds (k up to 5, the smallest class) for sets of
// at most 2000 images.
func defaultSelection(s *dataset.Set) scn.Selection {
	sel := scn.Selection{Validation: 0.1}
	if s.Len() <= 2000 {
		k := 5
		for _, c := range s.ClassCounts() {
			k = min(k, c)
		}
		if k >= 2 {
			sel.Folds = k
		}
	}
	return sel
}

// lmax, noGrow, holdout and noDirect vary the default for a comparison
// (-lmax, -no-grow, -holdout, -no-direct).
var (
	lmax     = 500
	noGrow   bool
	holdout  float64
	noDirect bool
	photos   bool
	whiten   bool
)

// fitDefault fits scn train's default (2DSCN, L_max 500, seed 1) and
// returns its test accuracy.
func fitDefault(p, q scn.Problem, sel scn.Selection, now bool) (float64, string, time.Duration) {
	c := scn.Default(scn.SCN2D)
	c.MaxNodes = lmax
	if photos {
		pc, ok := c.ForPhotos(p.X.Len(), p.X.Rows, p.X.Cols, p.X.Chans())
		if !ok {
			log.Fatalf("-photos: images of %d x %d x %d are not photos", p.X.Rows, p.X.Cols, p.X.Chans())
		}
		if whiten {
			pc.Local.Whiten, pc.Local.WhitenEps = true, 0.1
		}
		t0 := time.Now()
		m, err := pc.Fit(context.Background(), p, nil)
		check(err)
		took := time.Since(t0)
		acc, err := m.Accuracy(q.X, scn.ArgMax(q.T, q.M))
		check(err)
		return acc, fmt.Sprintf("local 2DRVFL, %d filters, L = %d, ridge %g", pc.Local.Filters, m.Nodes(), pc.Ridge), took
	}
	sel.TryDirect, sel.Grow = now && !noDirect, now && !noGrow
	if holdout > 0 {
		sel.Folds, sel.Validation = 0, holdout
	}
	sel.GrowLimit = 8 * c.MaxNodes // as scn train's default preset
	t0 := time.Now()
	m, err := c.Select(context.Background(), p, sel, nil)
	check(err)
	took := time.Since(t0)
	acc, err := m.Accuracy(q.X, scn.ArgMax(q.T, q.M))
	check(err)
	desc := fmt.Sprintf("L = %d, ridge %g", m.Nodes(), m.Config.Ridge)
	if m.Direct != nil {
		desc += ", direct links"
	}
	if g := m.Selection.Growth; g != "" {
		desc += "; " + g
	}
	return acc, desc, took
}

// features returns the pixels with a constant 1 appended, n x (d+1).
func features(x scn.Images) *mat.Dense {
	n, d := x.Len(), x.Dim()
	a := mat.NewDense(n, d+1, nil)
	for i := 0; i < n; i++ {
		row := a.RawRowView(i)
		for j, v := range x.Image(i) {
			row[j] = float64(v)
		}
		row[d] = 1
	}
	return a
}

// ridgeFit returns the ridge weights (k x m) of a (n x k) on t with alpha:
// primal (A^T A + alpha I) W = A^T T or dual W = A^T (A A^T + alpha I)^-1 T.
type ridgeSys struct {
	a    *mat.Dense
	t    *mat.Dense
	dual bool
	g    *mat.SymDense // A^T A or A A^T
	at   *mat.Dense    // A^T T (primal)
}

func newRidge(a, t *mat.Dense) *ridgeSys {
	n, k := a.Dims()
	r := &ridgeSys{a: a, t: t, dual: k > n}
	var g mat.SymDense
	if r.dual {
		g.SymOuterK(1, a)
	} else {
		g.SymOuterK(1, a.T())
		r.at = &mat.Dense{}
		r.at.Mul(a.T(), t)
	}
	r.g = &g
	return r
}

func (r *ridgeSys) solve(alpha float64) *mat.Dense {
	n := r.g.SymmetricDim()
	g := mat.NewSymDense(n, nil)
	g.CopySym(r.g)
	for i := 0; i < n; i++ {
		g.SetSym(i, i, g.At(i, i)+alpha)
	}
	var ch mat.Cholesky
	if !ch.Factorize(g) {
		return nil
	}
	var w mat.Dense
	if r.dual {
		var c mat.Dense
		check(ch.SolveTo(&c, r.t))
		w.Mul(r.a.T(), &c)
	} else {
		check(ch.SolveTo(&w, r.at))
	}
	return &w
}

func accuracy(a, w *mat.Dense, labels []int) float64 {
	var y mat.Dense
	y.Mul(a, w)
	r, c := y.Dims()
	hit := 0
	for i := 0; i < r; i++ {
		row := y.RawRowView(i)
		best := 0
		for j := 1; j < c; j++ {
			if row[j] > row[best] {
				best = j
			}
		}
		if best == labels[i] {
			hit++
		}
	}
	return float64(hit) / float64(r)
}

// ridgeAccuracy chooses alpha by the selection's hold-out or folds (the
// same split rule: stratified, per class) and returns the test accuracy
// of the ridge model refitted on all training images.
func ridgeAccuracy(p, q scn.Problem, sel scn.Selection) (float64, float64) {
	labels := scn.ArgMax(p.T, p.M)
	alphas := []float64{1e-4, 1e-3, 1e-2, 0.1, 1, 10, 100, 1e3, 1e4}
	folds := sel.Folds
	if folds < 2 {
		folds = 10 // a 10% hold-out: the first of ten stratified folds
	}
	fold := make([]int, len(labels))
	count := map[int]int{}
	for i, c := range labels {
		fold[i] = count[c] % folds
		count[c]++
	}
	score := make([]float64, len(alphas))
	nf := folds
	if sel.Folds < 2 {
		nf = 1
	}
	for f := 0; f < nf; f++ {
		var tr, te []int
		for i := range labels {
			if fold[i] == f {
				te = append(te, i)
			} else {
				tr = append(tr, i)
			}
		}
		a, t := rows(p, tr)
		av, _ := rows(p, te)
		var lv []int
		for _, i := range te {
			lv = append(lv, labels[i])
		}
		rs := newRidge(a, t)
		for k, al := range alphas {
			if w := rs.solve(al); w != nil {
				score[k] += accuracy(av, w, lv) * float64(len(te))
			}
		}
	}
	best := 0
	for k := range alphas {
		if score[k] > score[best] {
			best = k
		}
	}
	a := features(p.X)
	rs := newRidge(a, mat.NewDense(p.X.Len(), p.M, p.T))
	w := rs.solve(alphas[best])
	return accuracy(features(q.X), w, scn.ArgMax(q.T, q.M)), alphas[best]
}

func rows(p scn.Problem, idx []int) (*mat.Dense, *mat.Dense) {
	sort.Ints(idx)
	d := p.X.Dim()
	x := scn.Images{Rows: p.X.Rows, Cols: p.X.Cols, Channels: p.X.Channels, Pix: make([]float32, 0, len(idx)*d)}
	t := mat.NewDense(len(idx), p.M, nil)
	for r, i := range idx {
		x.Pix = append(x.Pix, p.X.Image(i)...)
		t.SetRow(r, p.T[i*p.M:(i+1)*p.M])
	}
	return features(x), t
}
