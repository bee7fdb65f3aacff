package suffstats

import (
	"errors"
	"slices"
	"testing"

	"github.com/scn2d/scn/internal/cfgerr"
)

// fakeModel is a model as a Host makes it: its weights, RMSE, image count
// and the sums it was made from.
type fakeModel struct {
	beta    []float64
	rmse    float64
	samples int
	l, m    int
	exact   bool
}

type fakeHost struct{ exacts *int }

func (fakeHost) ModelOf(s *Sums, beta []float64, rmse float64) *fakeModel {
	return &fakeModel{beta: beta, rmse: rmse, samples: s.N, l: s.L, m: s.M}
}
func (h fakeHost) Exact(s *Sums) (*fakeModel, error) {
	*h.exacts++
	return &fakeModel{beta: make([]float64, s.L*s.M), rmse: 7, exact: true}, nil
}
func (fakeHost) Beta(m *fakeModel) []float64    { return m.beta }
func (fakeHost) RMSE(m *fakeModel) float64      { return m.rmse }
func (fakeHost) SetSamples(m *fakeModel, n int) { m.samples = n }

// TestOnline: the state behind scn.Online checks what it is given, solves
// the normal equations, widens its weights for new classes, and commits a
// frozen solve only once, solved, to its own Online.
func TestOnline(t *testing.T) {
	a, b := newData(3, 120, 10, 3), newData(4, 40, 10, 3)
	classes := []string{"a", "b", "c"}
	if err := CheckForget(0); !errors.Is(err, cfgerr.ErrConfig) {
		t.Errorf("forget 0: %v", err)
	}
	if err := CheckForget(1); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		m, mm       int
		cl, mcl     []string
		classifier  bool
		reorder, ok bool
	}{
		{3, 3, classes, classes, true, false, true},
		{3, 3, []string{"c", "a", "b"}, classes, true, true, true},
		{3, 3, nil, nil, false, false, true},
		{3, 2, nil, nil, false, false, false},
		{3, 3, classes, nil, false, false, false},
		{3, 3, classes[:2], classes, true, false, false},
	} {
		reorder, err := MatchOutputs(c.m, c.mm, c.cl, c.mcl, c.classifier)
		if reorder != c.reorder || (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrStats)) {
			t.Errorf("MatchOutputs(%+v) = %v, %v", c, reorder, err)
		}
	}
	exacts := 0
	host := fakeHost{&exacts}
	m0 := &fakeModel{beta: make([]float64, 10*3)}
	if _, err := StartOnline(a.sums(2048, 50, classes), 0.1, 1, m0, Host[*fakeModel](host), m0.beta[:29], 10); !errors.Is(err, ErrStats) {
		t.Fatalf("29 output weights taken: %v", err)
	}
	o, err := StartOnline(a.sums(2048, 50, classes), 0.1, 1, m0, Host[*fakeModel](host), m0.beta, 10)
	if err != nil {
		t.Fatal(err)
	}
	var de cfgerr.DataError
	if err := o.Check(2, nil); !errors.As(err, &de) {
		t.Errorf("2 targets taken: %v", err)
	}
	if err := o.Check(3, []string{"b", "a", "c"}); !errors.As(err, &de) {
		t.Errorf("other classes taken: %v", err)
	}
	if m, err := o.Solve(); err != nil || m != m0 {
		t.Errorf("a solve of nothing new: %v, %v", m, err)
	}
	if err := o.Check(3, classes); err != nil {
		t.Fatal(err)
	}
	o.Add(b.n, b.t, 1, func(f func(lo, rows int, hb []float32)) error { b.forRows(16, f); return nil })
	if o.L.Learnt != 40 || o.L.Unsolved != 40 {
		t.Fatalf("learnt %d, unsolved %d", o.L.Learnt, o.L.Unsolved)
	}
	fz := o.Freeze()
	if err := o.AddClasses([]string{"b"}); !errors.As(err, &de) {
		t.Errorf("a class twice: %v", err)
	}
	if err := o.AddClasses([]string{"d"}); err != nil {
		t.Fatal(err)
	}
	if o.Model.m != 4 || len(o.Model.beta) != 40 {
		t.Fatalf("after AddClasses: %d outputs, %d weights", o.Model.m, len(o.Model.beta))
	}
	if _, err := o.Commit(fz); !errors.As(err, &de) {
		t.Errorf("an unsolved frozen solve committed: %v", err)
	}
	fm, err := fz.Solve()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fz.Solve(); err == nil {
		t.Error("a frozen solve solved twice")
	}
	// The frozen weights solve (G + ridge I) beta = H^T T of the frozen sums.
	s := fz.Sums()
	l, m := s.L, s.M
	for i := 0; i < l; i++ {
		for q := 0; q < m; q++ {
			r := -s.HT[i*m+q] + 0.1*fm.beta[i*m+q]
			for j := 0; j < l; j++ {
				r += s.G[i*l+j] * fm.beta[j*m+q]
			}
			if r > 1e-6 || r < -1e-6 {
				t.Fatalf("the normal equations' residual %g at %d, %d", r, i, q)
			}
		}
	}
	other, _ := StartOnline(a.sums(2048, 50, classes), 0.1, 1, m0, Host[*fakeModel](host), m0.beta, 10)
	if _, err := other.Commit(fz); !errors.As(err, &de) {
		t.Errorf("another Online's frozen solve committed: %v", err)
	}
	cm, err := o.Commit(fz)
	if err != nil {
		t.Fatal(err)
	}
	if cm.m != 4 || cm.samples != 160 || o.L.Unsolved != 0 || o.Model != cm {
		t.Errorf("committed: %d outputs, %d images, %d unsolved", cm.m, cm.samples, o.L.Unsolved)
	}
	for i := 0; i < l; i++ {
		if !slices.Equal(cm.beta[i*4:i*4+3], fm.beta[i*3:i*3+3]) || cm.beta[i*4+3] != 0 {
			t.Fatalf("the widened weights of node %d: %v from %v", i, cm.beta[i*4:i*4+4], fm.beta[i*3:i*3+3])
		}
	}
	if _, err := o.Commit(fz); !errors.As(err, &de) {
		t.Errorf("committed twice: %v", err)
	}
	o.Release(fz)
	if fz.Sums() != nil || fz.Fo != nil {
		t.Error("a released frozen solve keeps its sums")
	}
	// Without a ridge term the solve is the host's exact one.
	z, err := StartOnline(a.sums(2048, 50, nil), 0, 1, m0, Host[*fakeModel](host), m0.beta, 10)
	if err != nil {
		t.Fatal(err)
	}
	z.Add(b.n, b.t, 1, func(f func(lo, rows int, hb []float32)) error { b.forRows(16, f); return nil })
	if zm, err := z.Solve(); err != nil || exacts != 1 || z.L.Steps != -1 || zm.rmse != 7 || zm.samples != 160 {
		t.Errorf("the exact solve: %+v, %v, %d calls", zm, err, exacts)
	}
	if err := z.AddClasses([]string{"x"}); !errors.As(err, &de) {
		t.Errorf("a class added to a regression: %v", err)
	}
}
