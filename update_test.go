package scn

import (
	"bytes"
	"github.com/scn2d/scn/internal/suffstats"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/linalg"
	"github.com/scn2d/scn/internal/lsq"
)

// statsBytes returns the file bytes of s.
func statsBytes(t *testing.T, s *Stats) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := s.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestUpdateIsTheFitOnBoth: Model.Update with new images gives the least
// squares on the old and new images with the same nodes (1e-9 relative in
// beta, against a pseudo-inverse of all the hidden outputs), by the
// iterative solve; it leaves the old statistics as they were, returns
// the merged statistics Merge gives (bytes), and its training RMSE from
// the sums is that of its predictions. New images in two chunks (one
// partly filled) and in one; 2DRVFL and RVFL.
func TestUpdateIsTheFitOnBoth(t *testing.T) {
	for _, tc := range []struct {
		kind     Kind
		old, new int
	}{{RVFL2D, 300, 300}, {RVFL, 200, 2100}} {
		p := blobProblem(t, tc.old+tc.new)
		c := Paper(tc.kind)
		c.MaxNodes, c.Ridge = 50, 0.1
		a, b := subsetProblem(p, 0, tc.old), subsetProblem(p, tc.old, tc.old+tc.new)
		m := fitT(t, c, a)
		m.Meta = map[string]string{"source": "blobs"}
		old := statsT(t, m, a)
		before := statsBytes(t, old)
		// The iterative solve converges on its own (no fallback).
		fresh, kept, err := m.sums(b, 0, false, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(kept) != (tc.new+suffstats.Chunk-1)/suffstats.Chunk {
			t.Fatalf("%d chunks kept for %d images", len(kept), tc.new)
		}
		mg, err := old.merge(fresh, false)
		if err != nil {
			t.Fatal(err)
		}
		if nm, err := mg.solveNear(old, kept, c.Ridge); err != nil || nm == nil {
			t.Fatalf("%v: the iterative solve did not converge", tc.kind)
		}
		nm, merged, err := m.Update(old, b, true)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(statsBytes(t, old), before) {
			t.Errorf("%v: Update changed the old statistics", tc.kind)
		}
		want, err := lsq.MinNorm(hiddenDense(m, p.X), p.T, p.M, c.Ridge)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiff(nm.Beta, want); d > 1e-9 {
			t.Errorf("%v: update differs from the least squares on all images by %.3g", tc.kind, d)
		}
		direct, err := old.Merge(statsT(t, m, b))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(statsBytes(t, merged), statsBytes(t, direct)) {
			t.Errorf("%v: the merged statistics of Update differ from Merge's", tc.kind)
		}
		ds, err := direct.Solve(c.Ridge)
		if err != nil {
			t.Fatal(err)
		}
		if d := relDiff(nm.Beta, ds.Beta); d > 1e-9 {
			t.Errorf("%v: update differs from the direct solve of the merged statistics by %.3g", tc.kind, d)
		}
		if nm.Summary.Samples != tc.old+tc.new || nm.Meta["source"] != "blobs" || !slices.Equal(nm.Params, m.Params) {
			t.Errorf("%v: samples %d, meta %v, or other nodes", tc.kind, nm.Summary.Samples, nm.Meta)
		}
		rm, err := nm.RMSE(p.X, p.T)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(rm - nm.Summary.TrainRMSE); d > 1e-7*rm {
			t.Errorf("%v: RMSE from the sums %.9f, predicted %.9f", tc.kind, nm.Summary.TrainRMSE, rm)
		}
		// Without the merged statistics: the same model, nil statistics.
		nm2, none, err := m.Update(old, b, false)
		if err != nil {
			t.Fatal(err)
		}
		if none != nil || !slices.Equal(nm2.Beta, nm.Beta) {
			t.Errorf("%v: withStats changed the model or statistics came back", tc.kind)
		}
	}
}

// TestUpdateDirectPaths: without a ridge term Update solves the merged
// statistics directly: the model Merge and Solve give, bit for bit.
func TestUpdateDirectPaths(t *testing.T) {
	p := blobProblem(t, 400)
	c := Paper(RVFL2D)
	c.MaxNodes, c.Ridge = 30, 0
	a, b := subsetProblem(p, 0, 200), subsetProblem(p, 200, 400)
	m := fitT(t, c, a)
	old := statsT(t, m, a)
	nm, _, err := m.Update(old, b, false)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := old.Merge(statsT(t, m, b))
	if err != nil {
		t.Fatal(err)
	}
	want, err := merged.Solve(0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(nm.Beta, want.Beta) {
		t.Error("update without a ridge differs from Merge and Solve")
	}
}

// TestUpdateNewClass: new images of a class the old ones did not have;
// the update is the least squares on all images with the widened targets.
func TestUpdateNewClass(t *testing.T) {
	full, old, oldIdx, newIdx, m := newClassFixture(t)
	checkNewClassUpdate(t, "", full, oldIdx, newIdx, m, statsT(t, m, old))
}

// checkNewClassUpdate updates m (fitted on the images oldIdx of full, whose
// statistics are s) with the images newIdx, of a class the old ones lack,
// and checks the result against the least squares on all of them.
func checkNewClassUpdate(t *testing.T, what string, full Problem, oldIdx, newIdx []int, m *Model, s *Stats) {
	t.Helper()
	nm, _, err := m.Update(s, full.subset(newIdx), false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(nm.Classes, full.Classes) {
		t.Fatalf("classes %v", nm.Classes)
	}
	ref := full.subset(append(append([]int(nil), oldIdx...), newIdx...))
	want, err := lsq.MinNorm(hiddenDense(m, ref.X), ref.T, 3, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(nm.Beta, want); d > 1e-9 {
		t.Errorf("update with a new class%s differs from the refit by %.3g", what, d)
	}
}

// TestUpdateDeterministic: the same bytes whatever GOMAXPROCS.
func TestUpdateDeterministic(t *testing.T) {
	p := blobProblem(t, 2600)
	c := Paper(RVFL)
	c.MaxNodes, c.Ridge = 60, 0.1
	a, b := subsetProblem(p, 0, 300), subsetProblem(p, 300, 2600)
	m := fitT(t, c, a)
	old := statsT(t, m, a)
	var first []float64
	for _, procs := range []int{1, 2, 4} {
		prev := runtime.GOMAXPROCS(procs)
		nm, _, err := m.Update(old, b, false)
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = nm.Beta
		} else if !slices.Equal(nm.Beta, first) {
			t.Errorf("GOMAXPROCS %d: other output weights", procs)
		}
	}
}

// TestUpdateRefusesOtherNodes: statistics of another model's nodes are
// refused, naming the field, and left as they were.
func TestUpdateRefusesOtherNodes(t *testing.T) {
	p := blobProblem(t, 200)
	c := Paper(RVFL2D)
	c.MaxNodes, c.Ridge = 20, 0.1
	m := fitT(t, c, p)
	c.Seed = 9
	other := fitT(t, c, p)
	s := statsT(t, other, p)
	before := statsBytes(t, s)
	if _, _, err := m.Update(s, p, false); err == nil || !bytes.Contains([]byte(err.Error()), []byte("parameters differ")) {
		t.Errorf("other nodes: %v", err)
	}
	if !bytes.Equal(statsBytes(t, s), before) {
		t.Error("a refused update changed the statistics")
	}
}

// TestRestoreSym: an in-place factorisation is undone exactly.
func TestRestoreSym(t *testing.T) {
	for _, l := range []int{1, 7, lsq.CholBlock + 3, 2*lsq.CholBlock + 70} {
		g := make([]float64, l*l)
		for i := 0; i < l; i++ {
			for j := 0; j <= i; j++ {
				v := math.Sin(float64(i*l + j))
				g[i*l+j], g[j*l+i] = v, v
			}
			g[i*l+i] = float64(l) + 1 // positive definite
		}
		want := slices.Clone(g)
		saved := lsq.SaveDiagBlocks(g, l)
		if err := lsq.Cholesky(g, l, l, 0); err != nil {
			t.Fatal(err)
		}
		lsq.RestoreSym(g, l, saved)
		if !slices.Equal(g, want) {
			t.Errorf("l = %d: not restored", l)
		}
	}
}

// TestUpdateStoredFactor: an update with the factor stored with the old
// statistics (Factorize, as scn train --stats-out writes it) gives the
// model the update that factors G itself gives, bit for bit, and the least
// squares on all the images to 1e-9 relative in beta; through a file
// opened with OpenStats it never reads G (a corrupt G is not noticed: the
// update with the factor needs none of it), and the merged statistics
// carry the factor on as a stale one (of the old images). An update with
// that stale factor (statistics of the first two parts, a factor of the
// first) is the least squares on all three parts to 1e-9 too, as is one
// with a factor of another ridge. 2DRVFL and RVFL.
func TestUpdateStoredFactor(t *testing.T) {
	for _, tc := range []struct {
		kind  Kind
		nodes int
	}{{RVFL2D, 50}, {RVFL, 300}} { // 300: two panels of the factor
		kind, nodes := tc.kind, tc.nodes
		p := blobProblem(t, 900)
		c := Paper(kind)
		c.MaxNodes, c.Ridge = nodes, 0.1
		a, b, d := subsetProblem(p, 0, 300), subsetProblem(p, 300, 600), subsetProblem(p, 600, 900)
		m := fitT(t, c, a)
		plain := statsT(t, m, a)
		want, _, err := m.Update(plain, b, false)
		if err != nil {
			t.Fatal(err)
		}
		old := statsT(t, m, a)
		if err := old.Factorize(c.Ridge); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "a.scnstats")
		if err := old.Save(path); err != nil {
			t.Fatal(err)
		}
		// A flipped byte in G: OpenStats does not read G, so the update
		// with the stored factor works without it.
		file, _ := os.ReadFile(path)
		gAt := len(file) - 4 - 4*nodes*(nodes+1) - 4 - 8*(nodes*p.M+p.M*p.M) - 4 - 8*nodes*nodes/2 // the middle of G
		file[gAt] ^= 1
		corrupt := filepath.Join(t.TempDir(), "corrupt.scnstats")
		os.WriteFile(corrupt, file, 0o644)
		for _, f := range []string{path, corrupt} {
			opened, err := OpenStats(f)
			if err != nil {
				t.Fatal(err)
			}
			if opened.G != nil || !opened.view().FreshFactor(c.Ridge) {
				t.Fatalf("%v: OpenStats read G (%v) or lost the factor", kind, opened.G != nil)
			}
			got, _, err := m.Update(opened, b, false)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Beta, want.Beta) || got.Summary.TrainRMSE != want.Summary.TrainRMSE {
				t.Errorf("%v, %s: the stored factor gives other output weights (%.3g)", kind, filepath.Base(f), relDiff(got.Beta, want.Beta))
			}
			if opened.G != nil {
				t.Errorf("%v: the update with the stored factor read G", kind)
			}
			// Where G is needed it is read and checked.
			_, _, err = m.Update(opened, b, true)
			if f == corrupt && (err == nil || !strings.Contains(err.Error(), "checksum mismatch in G")) {
				t.Errorf("%v: a corrupt G read late: %v", kind, err)
			}
			if f == path && (err != nil || opened.G == nil) {
				t.Errorf("%v: G not read for the merged statistics: %v", kind, err)
			}
		}
		ab := subsetProblem(p, 0, 600)
		ref, err := lsq.MinNorm(hiddenDense(m, ab.X), ab.T, ab.M, c.Ridge)
		if err != nil {
			t.Fatal(err)
		}
		if r := relDiff(want.Beta, ref); r > 1e-9 {
			t.Errorf("%v: update with a stored factor differs from the least squares by %.3g", kind, r)
		}
		// The merged statistics carry the factor of the old images on.
		_, merged, err := m.Update(old, b, true)
		if err != nil {
			t.Fatal(err)
		}
		if merged.Factor == nil || merged.Factor.N != 300 || merged.N != 600 || merged.view().FreshFactor(c.Ridge) {
			t.Fatalf("%v: merged statistics' factor %+v", kind, merged.Factor)
		}
		back, err := ReadStats(bytes.NewReader(statsBytes(t, merged)))
		if err != nil {
			t.Fatal(err)
		}
		if back.Factor == nil || back.Factor.N != 300 || !slices.Equal(back.Factor.Lower(), old.Factor.Lower()) {
			t.Fatalf("%v: the stale factor did not round-trip", kind)
		}
		all := p
		ref, err = lsq.MinNorm(hiddenDense(m, all.X), all.T, all.M, c.Ridge)
		if err != nil {
			t.Fatal(err)
		}
		// A stale factor, and one of another ridge.
		other := statsT(t, m, a)
		if err := other.Factorize(3 * c.Ridge); err != nil {
			t.Fatal(err)
		}
		otherAB, err := other.Merge(statsT(t, m, b))
		if err != nil {
			t.Fatal(err)
		}
		for name, s := range map[string]*Stats{"stale": back, "other ridge": otherAB} {
			nm, _, err := m.Update(s, d, false)
			if err != nil {
				t.Fatal(err)
			}
			if r := relDiff(nm.Beta, ref); r > 1e-9 {
				t.Errorf("%v: update with a %s factor differs from the least squares by %.3g", kind, name, r)
			}
			rm, err := nm.RMSE(all.X, all.T)
			if err != nil {
				t.Fatal(err)
			}
			if dd := math.Abs(rm - nm.Summary.TrainRMSE); dd > 1e-7*rm {
				t.Errorf("%v, %s: RMSE from the sums %.9f, predicted %.9f", kind, name, nm.Summary.TrainRMSE, rm)
			}
		}
	}
}

// TestUpdateNewClassStoredFactor: a class first seen in the new images,
// with the factor stored (fresh, and stale through a file): the least
// squares on all images with the widened targets to 1e-9.
func TestUpdateNewClassStoredFactor(t *testing.T) {
	full, old, oldIdx, newIdx, m := newClassFixture(t)
	s := statsT(t, m, old)
	if err := s.Factorize(m.Config.Ridge); err != nil {
		t.Fatal(err)
	}
	checkNewClassUpdate(t, " and a stored factor", full, oldIdx, newIdx, m, s)
}

// TestTrsmLowerPanels: the blocked triangular solves on a full and on a
// packed triangle (three panels, the last partly filled) agree with one
// triangular solve of the whole to rounding, and the two layouts give the
// same bits; the packed rows are the full ones.
func TestTrsmLowerPanels(t *testing.T) {
	l, m := 2*lsq.TrsmBlock+70, 3
	f := make([]float64, l*l)
	for i := 0; i < l; i++ {
		for j := 0; j <= i; j++ {
			f[i*l+j] = math.Sin(float64(3*i+7*j)) / float64(l)
		}
		f[i*l+i] = 1 + float64(i%5)/10
		for j := i + 1; j < l; j++ {
			f[i*l+j] = math.NaN()
		}
	}
	fa := suffstats.FactorOf(f, l, 1, 0)
	full, packed := lsq.FullTri(f, l), suffstats.Tri(fa)
	for i := 0; i < l; i++ {
		if !slices.Equal(packed.Row(i), f[i*l:i*l+i+1]) {
			t.Fatalf("packed row %d differs", i)
		}
	}
	low := fa.Lower()
	for _, trans := range []bool{false, true} {
		b := make([]float64, l*m)
		for i := range b {
			b[i] = math.Cos(float64(i))
		}
		want := slices.Clone(b)
		linalg.TrsmLeftLower(trans, l, m, low, l, want, m)
		x, y := slices.Clone(b), slices.Clone(b)
		lsq.TrsmLower(trans, m, full, &lsq.TrsmWork{}, x)
		lsq.TrsmLower(trans, m, packed, &lsq.TrsmWork{}, y)
		if !slices.Equal(x, y) {
			t.Errorf("trans %v: full and packed panels differ", trans)
		}
		if d := relDiff(x, want); d > 1e-13 {
			t.Errorf("trans %v: blocked solve differs from the whole by %.3g", trans, d)
		}
	}
}
