package scn

import (
	"bytes"
	"errors"
	"github.com/scn2d/scn/internal/suffstats"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/lsq"
)

// subsetProblem returns the problem of images [lo, hi) of p.
func subsetProblem(p Problem, lo, hi int) Problem {
	idx := make([]int, hi-lo)
	for i := range idx {
		idx[i] = lo + i
	}
	return p.subset(idx)
}

func statsT(t *testing.T, m *Model, p Problem) *Stats {
	t.Helper()
	s, err := m.Stats(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStatsMergeIsTheFitOnBoth: the statistics of two halves, merged and
// solved, give the output weights of the least squares on all the images
// with the same nodes, as the statistics of the whole set do.
func TestStatsMergeIsTheFitOnBoth(t *testing.T) {
	p := blobProblem(t, 600)
	for _, ridge := range []float64{0.1, 0} {
		c := Paper(RVFL2D)
		c.MaxNodes, c.Ridge = 50, ridge
		m := fitT(t, c, subsetProblem(p, 0, 300))
		a, b := statsT(t, m, subsetProblem(p, 0, 300)), statsT(t, m, subsetProblem(p, 300, 600))
		ab, err := a.Merge(b)
		if err != nil {
			t.Fatal(err)
		}
		whole := statsT(t, m, p)
		if ab.N != 600 || whole.N != 600 {
			t.Fatalf("N = %d and %d", ab.N, whole.N)
		}
		if d := relDiff(ab.G, whole.G); d > 1e-12 {
			t.Errorf("ridge %g: merged G differs from the whole set's by %.3g", ridge, d)
		}
		sm, err := ab.Solve(ridge)
		if err != nil {
			t.Fatal(err)
		}
		want, err := lsq.MinNorm(hiddenDense(m, p.X), p.T, p.M, ridge)
		if err != nil {
			t.Fatal(err)
		}
		tol := 1e-9
		if ridge == 0 {
			tol = 1e-6 // the normal equations square the condition number
		}
		if d := relDiff(sm.Beta, want); d > tol {
			t.Errorf("ridge %g: solve of merged statistics differs from the least squares on all images by %.3g", ridge, d)
		}
		if !bytes.Equal(f32bytes(sm.Params), f32bytes(m.Params)) || sm.Summary.Samples != 600 {
			t.Error("the solved model's nodes or sample count are not the recipe's")
		}
		// Its training RMSE from the sums is the RMSE of its predictions
		// (to float32 rounding: the Go fallback's predictor scores 2D
		// nodes in u^T X v form, the sums were of vec(u v^T)^T x; measured
		// 4e-8 relative on arm64, 0 with the amd64 kernels).
		rm, err := sm.RMSE(p.X, p.T)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(rm - sm.Summary.TrainRMSE); d > 1e-7*rm {
			t.Errorf("ridge %g: RMSE from the sums %.9f, predicted %.9f", ridge, sm.Summary.TrainRMSE, rm)
		}
	}
}

// TestStatsNewClass: an update whose images bring a class the old ones did
// not have: the old statistics get a zero column for it, and the solve is
// the least squares on all images with the widened targets.
func TestStatsNewClass(t *testing.T) {
	full, old, oldIdx, newIdx, m := newClassFixture(t)
	so := statsT(t, m, old)
	sn := statsT(t, m, full.subset(newIdx))
	merged, err := so.Merge(sn)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(merged.Classes, ",") != "a,b,c" || merged.ClassCounts[2] != len(newIdx) {
		t.Fatalf("classes %v, counts %v", merged.Classes, merged.ClassCounts)
	}
	sm, err := merged.Solve(0.5)
	if err != nil {
		t.Fatal(err)
	}
	// The reference: old images then new ones, targets over a, b, c.
	order := append(append([]int(nil), oldIdx...), newIdx...)
	ref := full.subset(order)
	want, err := lsq.MinNorm(hiddenDense(m, ref.X), ref.T, 3, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(sm.Beta, want); d > 1e-9 {
		t.Errorf("update with a new class differs from the refit by %.3g", d)
	}
}

// TestStatsFileRoundTripAndBadInput: the file reads back to the same bytes;
// truncations, a flipped byte, another magic, trailing bytes and the
// statistics of other nodes or another image size are refused clearly.
func TestStatsFileRoundTripAndBadInput(t *testing.T) {
	p := blobProblem(t, 200)
	c := Paper(SCN2D)
	c.MaxNodes = 12
	m := fitT(t, c, p)
	s := statsT(t, m, p)
	var buf bytes.Buffer
	if _, err := s.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	back, err := ReadStats(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	back.WriteTo(&again)
	if !bytes.Equal(again.Bytes(), file) {
		t.Fatal("statistics differ after a file round trip")
	}
	for _, n := range []int{0, 10, 16, 40, len(file) / 2, len(file) - 1} {
		if _, err := ReadStats(bytes.NewReader(file[:n])); !errors.Is(err, ErrStats) {
			t.Errorf("truncated to %d bytes: %v", n, err)
		}
	}
	flip := bytes.Clone(file)
	flip[len(flip)-20] ^= 1
	if _, err := ReadStats(bytes.NewReader(flip)); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("flipped byte: %v", err)
	}
	if _, err := ReadStats(bytes.NewReader(append(bytes.Clone(file), 0))); err == nil {
		t.Error("trailing byte accepted")
	}
	magic := bytes.Clone(file)
	copy(magic, "2DSCNMDL")
	if _, err := ReadStats(bytes.NewReader(magic)); err == nil || !strings.Contains(err.Error(), "not a statistics file") {
		t.Errorf("model magic: %v", err)
	}
	// Another model's nodes.
	c.Seed = 9
	other := fitT(t, c, p)
	if _, err := s.Merge(statsT(t, other, p)); err == nil || !strings.Contains(err.Error(), "parameters differ") {
		t.Errorf("other nodes: %v", err)
	}
	// Another image size.
	x, y, names := blobs(60, 6, 6, 3, 2)
	q, _ := Classification(x, y, names)
	c2 := Paper(SCN2D)
	c2.MaxNodes = 12
	small := fitT(t, c2, q)
	if _, err := s.Merge(statsT(t, small, q)); err == nil || !strings.Contains(err.Error(), "image size") {
		t.Errorf("other image size: %v", err)
	}
	if _, err := m.Stats(q); err == nil {
		t.Error("statistics of 6 x 6 images for a 10 x 8 model")
	}
	if _, err := s.Solve(-1); err == nil {
		t.Error("negative ridge accepted")
	}
}

// TestStatsRegressionMerge: regression statistics add and solve too.
func TestStatsRegressionMerge(t *testing.T) {
	p := toyProblem(t, 400)
	c := Paper(RVFL)
	c.MaxNodes, c.Ridge = 30, 0.01
	m := fitT(t, c, p)
	ab, err := statsT(t, m, subsetProblem(p, 0, 150)).Merge(statsT(t, m, subsetProblem(p, 150, 400)))
	if err != nil {
		t.Fatal(err)
	}
	sm, err := ab.Solve(0.01)
	if err != nil {
		t.Fatal(err)
	}
	if d := relDiff(sm.Beta, m.Beta); d > 1e-6 {
		t.Errorf("regression: solve of merged statistics differs from the fit's weights by %.3g", d)
	}
}

func FuzzReadStats(f *testing.F) {
	p := blobProblem(f, 60)
	c := Paper(RVFL2D)
	c.MaxNodes = 4
	m := fitT(f, c, p)
	s, _ := m.Stats(p)
	var buf bytes.Buffer
	s.WriteTo(&buf)
	f.Add(buf.Bytes())
	f.Add([]byte("2DSCNSTA"))
	if err := s.Factorize(0.5); err != nil { // a version 2 file
		f.Fatal(err)
	}
	buf.Reset()
	s.WriteTo(&buf)
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ReadStats(bytes.NewReader(b))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if _, err := s.WriteTo(&out); err != nil {
			t.Fatalf("read statistics cannot be written: %v", err)
		}
	})
}

// newClassFixture is the set-up of the tests of a class first seen in new
// images: blobs of classes a, b and c (full), the old problem of classes a
// and b only (its images' indices in full: oldIdx), the indices of the
// class-c images (newIdx), and an RVFL with a ridge term fitted on the old
// problem.
func newClassFixture(t *testing.T) (full, old Problem, oldIdx, newIdx []int, m *Model) {
	t.Helper()
	x, y, names := blobs(450, 10, 8, 3, 5)
	full, err := Classification(x, y, names)
	if err != nil {
		t.Fatal(err)
	}
	ox := Images{Rows: x.Rows, Cols: x.Cols}
	var oy []int
	for i, l := range y {
		if l == 2 {
			newIdx = append(newIdx, i)
			continue
		}
		oldIdx = append(oldIdx, i)
		ox.Pix = append(ox.Pix, x.Image(i)...)
		oy = append(oy, l)
	}
	if old, err = Classification(ox, oy, names[:2]); err != nil {
		t.Fatal(err)
	}
	c := Paper(RVFL)
	c.MaxNodes, c.Ridge = 40, 0.5
	return full, old, oldIdx, newIdx, fitT(t, c, old)
}

// TestStatsFactorFile: statistics with their Cholesky factor (Factorize)
// are written as format version 2 and read back to the same bytes and
// factor (ReadStats, LoadStats, and OpenStats, which leaves G unread
// until it is needed and then reads the same G); without a factor the file
// is version 1 as before. A flipped byte in the factor section or in the
// other sections is a checksum error naming the section; a file cut in
// the factor section is truncated; a factor of more images than the
// statistics, or not positive on its diagonal, is refused.
func TestStatsFactorFile(t *testing.T) {
	p := blobProblem(t, 200)
	c := Paper(RVFL2D)
	c.MaxNodes, c.Ridge = 20, 0.1
	m := fitT(t, c, p)
	s := statsT(t, m, p)
	v1 := statsBytes(t, s)
	if v1[8] != 1 {
		t.Fatalf("statistics without a factor written as version %d", v1[8])
	}
	if err := s.Factorize(c.Ridge); err != nil {
		t.Fatal(err)
	}
	l := 20
	f := s.Factor.Lower()
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			var sum float64
			for k := 0; k <= min(i, j); k++ {
				sum += f[i*l+k] * f[j*l+k]
			}
			want := s.G[i*l+j]
			if i == j {
				want += c.Ridge
			}
			if math.Abs(sum-want) > 1e-12*math.Abs(s.G[i*l+i]+c.Ridge) || (j > i && f[i*l+j] != 0) {
				t.Fatalf("F F^T differs from G + ridge I at %d, %d", i, j)
			}
		}
	}
	file := statsBytes(t, s)
	if file[8] != 2 || len(file) != len(v1)+12+4*l*(l+1)+len(`,"factor":{"samples":200,"ridge":0.1}`) {
		t.Fatalf("version %d, %d bytes (version 1: %d)", file[8], len(file), len(v1))
	}
	back, err := ReadStats(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(statsBytes(t, back), file) || back.Factor == nil || !slices.Equal(back.Factor.Lower(), f) || back.Factor.N != 200 || back.Factor.Ridge != c.Ridge {
		t.Fatal("the factor did not round-trip")
	}
	path := filepath.Join(t.TempDir(), "s.scnstats")
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	for _, load := range []func(string) (*Stats, error){LoadStats, OpenStats} {
		got, err := load(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(statsBytes(t, got), file) || !slices.Equal(got.G, s.G) {
			t.Error("a file read back differs")
		}
	}
	// The sections' checksums: flip a byte in each.
	h := bytes.Index(file, []byte("2DSCN"+"MDL"))
	for _, tc := range []struct {
		at   int
		want string
	}{
		{h + 40, "checksum mismatch in the header"},
		{len(file) - 4 - 4*l*(l+1) - 4 - 8*(l*p.M+p.M*p.M) - 4 - 8, "checksum mismatch in G"},
		{len(file) - 4 - 4*l*(l+1) - 4 - 8, "checksum mismatch in H^T T and T^T T"},
		{len(file) - 4 - 100, "checksum mismatch in the factor"},
		{len(file) - 2, "checksum mismatch in the factor"},
	} {
		bad := bytes.Clone(file)
		bad[tc.at] ^= 1
		if _, err := ReadStats(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("byte %d flipped: %v, want %q", tc.at, err, tc.want)
		}
	}
	for _, n := range []int{len(file) - 1, len(file) - 4, len(file) - 4*l*(l+1)/2} {
		if _, err := ReadStats(bytes.NewReader(file[:n])); err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("cut to %d of %d bytes: %v", n, len(file), err)
		}
		cut := filepath.Join(t.TempDir(), "cut.scnstats")
		os.WriteFile(cut, file[:n], 0o644)
		if _, err := OpenStats(cut); err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("cut to %d of %d bytes (OpenStats): %v", n, len(file), err)
		}
	}
	// A factor the statistics cannot hold is refused when written.
	for name, fa := range map[string]*Factor{
		"more images": suffstats.Packed(suffstats.Values(s.Factor), l, 201, 0.1),
		"diagonal":    suffstats.Packed(make([]float64, lsq.PackedLen(l)), l, 200, 0.1),
		"size":        suffstats.Packed(suffstats.Values(s.Factor)[:l], l, 200, 0.1),
		"order":       suffstats.Packed(suffstats.Values(s.Factor), l-1, 200, 0.1),
	} {
		bad := *s
		bad.Factor = fa
		if _, err := bad.WriteTo(io.Discard); !errors.Is(err, ErrStats) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Nor read: a header claiming a factor of more images.
	claim := bytes.Replace(file, []byte(`"samples":200,"ridge"`), []byte(`"samples":201,"ridge"`), 1)
	if _, err := ReadStats(bytes.NewReader(claim)); err == nil || !strings.Contains(err.Error(), "a factor of the G of 201 images") {
		t.Errorf("factor of more images: %v", err)
	}
}
