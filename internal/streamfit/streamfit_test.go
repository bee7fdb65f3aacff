package streamfit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/scn2d/scn/internal/cfgerr"
	"github.com/scn2d/scn/internal/local"
)

// toy returns n images of 2 x 3 x chans values and m targets, all
// different, cut into shards of the given sizes.
func toy(n, chans, m int, sizes []int, classes []string) (pix []float32, t []float64, shards Shards) {
	d := 2 * 3 * chans
	pix = make([]float32, n*d)
	for i := range pix {
		pix[i] = float32(i%17) - 3.5
	}
	t = make([]float64, n*m)
	for i := range t {
		t[i] = float64(i%7) - 2
	}
	shards = func(each func(Shard) error) error {
		return Cut(context.Background(), n, sizes, func(k, lo, hi int) error {
			return each(Shard{Name: fmt.Sprintf("shard %d", k), Shape: Shape{Rows: 2, Cols: 3, Chans: chans, M: m, Classes: classes},
				Channels: chans, Pix: pix[lo*d : hi*d], T: t[lo*m : hi*m], N: hi - lo})
		})
	}
	return pix, t, shards
}

func TestCut(t *testing.T) {
	for _, c := range []struct {
		n     int
		sizes []int
		want  string
	}{
		{5, nil, "0:0-1 1:1-2 2:2-3 3:3-4 4:4-5 "},
		{7, []int{3}, "0:0-3 1:3-6 2:6-7 "},
		{7, []int{1, 4}, "0:0-1 1:1-5 2:5-7 "},
		{4, []int{0, -2}, "0:0-1 1:1-2 2:2-3 3:3-4 "},
		{0, []int{3}, ""},
	} {
		var got strings.Builder
		err := Cut(context.Background(), c.n, c.sizes, func(k, lo, hi int) error {
			fmt.Fprintf(&got, "%d:%d-%d ", k, lo, hi)
			return nil
		})
		if err != nil || got.String() != c.want {
			t.Errorf("Cut(%d, %v) = %q, %v, want %q", c.n, c.sizes, got.String(), err, c.want)
		}
	}
	stop := errors.New("stop")
	calls := 0
	if err := Cut(context.Background(), 9, []int{2}, func(k, lo, hi int) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("f's error: %v after %d calls", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Cut(ctx, 9, []int{2}, func(k, lo, hi int) error { t.Error("called after cancel"); return nil }); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

func TestShapeCheck(t *testing.T) {
	s := Shape{Rows: 2, Cols: 3, Chans: 1, M: 2, Classes: []string{"a", "b"}}
	if err := s.Check("x", s); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o    Shape
		want string
	}{
		{Shape{Rows: 2, Cols: 4, Chans: 1, M: 2, Classes: []string{"a", "b"}}, "x: images of 1 x 2 x 4, the earlier shards' are 1 x 2 x 3"},
		{Shape{Rows: 2, Cols: 3, Chans: 3, M: 2, Classes: []string{"a", "b"}}, "x: images of 3 x 2 x 3, the earlier shards' are 1 x 2 x 3"},
		{Shape{Rows: 2, Cols: 3, Chans: 1, M: 3, Classes: []string{"a", "b"}}, "x: 3 outputs, the earlier shards have 2"},
		{Shape{Rows: 2, Cols: 3, Chans: 1, M: 2, Classes: []string{"b", "a"}}, `x: classes ["b" "a"], the earlier shards' are ["a" "b"]`},
		{Shape{Rows: 2, Cols: 3, Chans: 1, M: 2}, `x: classes [], the earlier shards' are ["a" "b"]`},
	} {
		err := s.Check("x", c.o)
		var de cfgerr.DataError
		if !errors.As(err, &de) || err.Error() != c.want {
			t.Errorf("Check(%+v) = %v, want the data error %q", c.o, err, c.want)
		}
	}
	// A regression (no classes) against empty, non-nil classes.
	r := Shape{Rows: 2, Cols: 3, Chans: 1, M: 2}
	if err := r.Check("y", Shape{Rows: 2, Cols: 3, Chans: 1, M: 2, Classes: []string{}}); err == nil {
		t.Error("nil and empty classes taken as the same")
	}
}

func TestSpec(t *testing.T) {
	ok := Spec{Kind: "2DSCN", Supervised: true, Block: true, Ridge: 1e-6, BlockSize: 25, MaxNodes: 100}
	if err := ok.Fits(); err != nil {
		t.Fatal(err)
	}
	if got := ok.Passes(); got != 4+2 {
		t.Errorf("Passes = %d, want 6", got)
	}
	pairs := ok
	pairs.Pairs, pairs.Standardize, pairs.MaxNodes = true, true, 101
	if got := pairs.Passes(); got != 2*5+2 {
		t.Errorf("Passes with standardised pairs = %d, want 12", got)
	}
	if got := (Spec{Block: true, Ridge: 1}).Passes(); got != 2 {
		t.Errorf("a random learner's passes = %d, want 2", got)
	}
	loc := Spec{Local: true, Ridge: 1}
	for _, c := range []struct {
		std, whiten, second bool
		want                int
	}{{false, false, false, 2}, {true, false, false, 3}, {true, true, false, 4}, {true, true, true, 5}, {false, true, true, 4}} {
		l := loc
		l.LocalStandardize, l.Whiten, l.Second = c.std, c.whiten, c.second
		if got := l.Passes(); got != c.want {
			t.Errorf("local passes %+v = %d, want %d", c, got, c.want)
		}
	}
	for _, c := range []struct {
		s    Spec
		want string
	}{
		{Spec{Kind: "SCN", Supervised: true, BF16Gram: true, Block: true, Ridge: 1}, "SCN with bfloat16 Gram products"},
		{Spec{Ridge: 1}, "adds its nodes in blocks"},
		{Spec{Block: true}, "needs a ridge > 0 (without one"},
		{Spec{Block: true, Ridge: 1, Robust: true}, "robust output weights"},
		{Spec{Kind: "2DSCN", Local: true, Supervised: true, Ridge: 1}, "local nodes of 2DSCN are not streamed"},
		{Spec{Local: true, Augment: true, Ridge: 1}, "augmented local fits"},
		{Spec{Local: true, Block: true, Robust: true}, "a streamed fit needs a ridge > 0"},
	} {
		err := c.s.Fits()
		if !errors.Is(err, cfgerr.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Fits(%+v) = %v, want ErrConfig and %q", c.s, err, c.want)
		}
	}
	if err := (Spec{Local: true, Block: true, Robust: true, Ridge: 1}).Fits(); err != nil {
		t.Errorf("a local fit refused for robust weights it ignores: %v", err)
	}
}

func TestScanGlobal(t *testing.T) {
	const n, m = 13, 2
	pix, tt, whole := toy(n, 1, m, []int{13}, []string{"a", "b"})
	_, _, cut := toy(n, 1, m, []int{2, 5, 1}, []string{"a", "b"})
	a, err := ScanGlobal(whole, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ScanGlobal(cut, true)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, m)
	for i := 0; i < n; i++ {
		for q := 0; q < m; q++ {
			v := tt[i*m+q]
			want[q] += v * v
		}
	}
	for _, s := range []*Scan{a, b} {
		if s.N != n || !slices.Equal(s.TT, want) || !slices.Equal(s.HeadPix, pix) || !slices.Equal(s.HeadT, tt) ||
			s.Rows != 2 || s.Cols != 3 || s.Chans != 1 || s.M != m || !slices.Equal(s.Classes, []string{"a", "b"}) || len(s.Mean) != 6 {
			t.Errorf("scan %+v", s)
		}
	}
	if !slices.Equal(a.Mean, b.Mean) {
		t.Errorf("the mean image depends on the shards: %v, %v", a.Mean, b.Mean)
	}
	if s, _ := ScanGlobal(whole, false); s.Mean != nil {
		t.Error("a mean image without standardisation")
	}
	// Errors: a shard unlike the first, an empty stream, the reader's own.
	_, _, bad := toy(n, 1, m, []int{4}, []string{"a", "b"})
	odd := func(each func(Shard) error) error {
		return bad(func(sh Shard) error {
			if sh.Name == "shard 2" {
				sh.M, sh.T = 1, sh.T[:sh.N]
			}
			return each(sh)
		})
	}
	if _, err := ScanGlobal(odd, false); err == nil || err.Error() != "shard 2: 1 outputs, the earlier shards have 2" {
		t.Errorf("an odd shard: %v", err)
	}
	var de cfgerr.DataError
	if _, err := ScanGlobal(func(func(Shard) error) error { return nil }, false); !errors.As(err, &de) {
		t.Errorf("an empty stream: %v", err)
	}
	_, _, empty := toy(0, 1, m, nil, nil)
	if _, _, _, err := ScanLocal(empty); !errors.As(err, &de) {
		t.Errorf("an empty stream (local): %v", err)
	}
	stop := errors.New("read")
	if _, err := ScanGlobal(func(func(Shard) error) error { return stop }, false); err != stop {
		t.Errorf("the reader's error: %v", err)
	}
}

func TestScanLocal(t *testing.T) {
	const n, m, ch = 11, 3, 3
	pix, tt, whole := toy(n, ch, m, nil, nil)
	_, _, cut := toy(n, ch, m, []int{4, 7}, nil)
	mo := local.NewMoments(ch, 6)
	mo.Add(pix, n)
	wm, wsd := mo.Result()
	want := make([]float64, m)
	for i := 0; i < n; i++ {
		for q := 0; q < m; q++ {
			v := tt[i*m+q]
			want[q] += v * v
		}
	}
	for _, src := range []Shards{whole, cut} {
		s, mean, sd, err := ScanLocal(src)
		if err != nil {
			t.Fatal(err)
		}
		if s.N != n || s.Chans != ch || s.Channels != ch || s.Classes != nil || !slices.Equal(s.TT, want) || !slices.Equal(mean, wm) || !slices.Equal(sd, wsd) {
			t.Errorf("local scan %+v: mean %v sd %v", s, mean, sd)
		}
	}
}
