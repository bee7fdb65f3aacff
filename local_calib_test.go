package scn

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/scn2d/scn/internal/lsq"
	"gonum.org/v1/gonum/mat"
)

// TestLocalCalibrationOutOfFold: a local fit with a hold-out (FitHeldOut)
// gets a calibration map fitted on every image's out-of-fold outputs,
// which equal a direct ridge solve of each fold's training part (gonum,
// from the pooled outputs); its output weights are the plain fit's, it
// records no selection, and the map survives save/load. Class weights
// with a local hold-out are refused; Uncalibrated leaves no map.
func TestLocalCalibrationOutOfFold(t *testing.T) {
	ctx := context.Background()
	p, _ := hueProblem(t, 120, 31)
	c := localConfig(RVFL2D)
	c.Ridge = 0.5
	m, err := c.FitHeldOut(ctx, p, Selection{Validation: 0.25}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Calibration == nil || m.Calibration.Held != p.X.Len() || m.Selection != nil {
		t.Fatalf("calibration %+v, selection %+v: want a map on all %d images and no selection", m.Calibration, m.Selection, p.X.Len())
	}
	plain := fitT(t, c, p)
	for i, v := range plain.Beta {
		if m.Beta[i] != v {
			t.Fatalf("output weight %d: %v with the map, %v without", i, m.Beta[i], v)
		}
	}

	// The reference: each fold's outputs from a dense ridge solve.
	_, lf, err := c.fitLocalState(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, l, mo := p.X.Len(), lf.eng.L, p.M
	h := mat.NewDense(n, l, nil)
	for i := 0; i < n; i++ {
		sh := lf.eng.Shards[i/lsq.ShardRows]
		for j := 0; j < l; j++ {
			h.Set(i, j, float64(sh.H[j*(sh.Hi-sh.Lo)+i-sh.Lo]))
		}
	}
	folds, err := splitFolds(p, localCalibFolds, c.Seed)
	if err != nil {
		t.Fatal(err)
	}
	g0, ht0 := lf.eng.NormalDense(l)
	work := make([]float64, l*l)
	var labels []int
	var yAll []float64
	for _, idx := range folds {
		in := make(map[int]bool, len(idx))
		for _, i := range idx {
			in[i] = true
		}
		var tr []int
		for i := 0; i < n; i++ {
			if !in[i] {
				tr = append(tr, i)
			}
		}
		ht := mat.NewDense(len(tr), l, nil)
		tt := mat.NewDense(len(tr), mo, nil)
		for r, i := range tr {
			ht.SetRow(r, h.RawRowView(i))
			tt.SetRow(r, p.T[i*mo:(i+1)*mo])
		}
		var a mat.Dense
		a.Mul(ht.T(), ht)
		for j := 0; j < l; j++ {
			a.Set(j, j, a.At(j, j)+c.Ridge)
		}
		var b, beta mat.Dense
		b.Mul(ht.T(), tt)
		if err := beta.Solve(&a, &b); err != nil {
			t.Fatal(err)
		}
		got, err := lf.eng.HeldOutputs(p.T, mo, g0, ht0, work, idx, c.Ridge, nil)
		if err != nil {
			t.Fatal(err)
		}
		for r, i := range idx {
			for q := 0; q < mo; q++ {
				want := mat.Dot(h.RowView(i), beta.ColView(q))
				if d := math.Abs(got[r*mo+q] - want); d > 1e-8*(1+math.Abs(want)) {
					t.Fatalf("image %d output %d out of fold: %v, direct solve %v", i, q, got[r*mo+q], want)
				}
			}
			labels = append(labels, ArgMax(p.T[i*mo:(i+1)*mo], mo)[0])
		}
		yAll = append(yAll, got...)
	}
	want, err := FitCalibration(yAll, labels, mo)
	if err != nil {
		t.Fatal(err)
	}
	if want.Method != m.Calibration.Method || want.Temperature != m.Calibration.Temperature || want.TemperatureLogLoss != m.Calibration.TemperatureLogLoss || want.LogisticLogLoss != m.Calibration.LogisticLogLoss {
		t.Fatalf("map %+v, from the out-of-fold outputs %+v", m.Calibration, want)
	}
	_, back := roundTrip(t, m)
	if back.Calibration == nil || back.Calibration.Temperature != m.Calibration.Temperature || back.Calibration.Method != m.Calibration.Method {
		t.Fatalf("map after save/load %+v, before %+v", back.Calibration, m.Calibration)
	}
	pr, err := m.Probabilities(p.X)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if s := pr[2*i] + pr[2*i+1]; math.Abs(s-1) > 1e-12 {
			t.Fatalf("image %d: probabilities sum to %v", i, s)
		}
	}

	// Same seed, one goroutine: the same map, bit for bit.
	prev := runtime.GOMAXPROCS(1)
	one, err := c.FitHeldOut(ctx, p, Selection{Validation: 0.25}, nil)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	if one.Calibration.Temperature != m.Calibration.Temperature || !slices.Equal(one.Calibration.A, m.Calibration.A) || !slices.Equal(one.Calibration.B, m.Calibration.B) {
		t.Fatalf("GOMAXPROCS 1: map %+v, default %+v", one.Calibration, m.Calibration)
	}

	if _, err := c.FitHeldOut(ctx, p, Selection{Validation: 0.25, ClassWeights: []float64{1, 2}}, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("class weights with a local hold-out: %v, want ErrConfig", err)
	}
	u, err := c.Select(ctx, p, Selection{Validation: 0.25, Ridges: []float64{0.5}, Uncalibrated: true}, nil)
	if err != nil || u.Calibration != nil {
		t.Fatalf("uncalibrated selection: %v, map %+v", err, u)
	}
}

// TestLocalCalibrationSmallClass: a class of 3 images gets 3 folds, not a
// refusal; every image is scored once.
func TestLocalCalibrationSmallClass(t *testing.T) {
	x, _, y := hueImages(40, 12, 10, 5)
	for i := range y {
		y[i] = 0
	}
	y[3], y[17], y[30] = 1, 1, 1
	p, err := Classification(x, y, []string{"many", "few"})
	if err != nil {
		t.Fatal(err)
	}
	c := localConfig(RVFL2D)
	m, err := c.FitHeldOut(context.Background(), p, Selection{Validation: 0.25}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Calibration == nil || m.Calibration.Held != 40 {
		t.Fatalf("calibration %+v, want a map on all 40 images", m.Calibration)
	}
}

// TestLocalIntervals: a local regression fit with Coverage gets conformal
// intervals from every image's out-of-fold residuals.
func TestLocalIntervals(t *testing.T) {
	x, _, y := hueImages(60, 12, 10, 8)
	targets := make([]float64, len(y))
	for i, v := range y {
		targets[i] = float64(v) + 0.1*float64(i%7)
	}
	p, err := Regression(x, targets, 1)
	if err != nil {
		t.Fatal(err)
	}
	c := localConfig(RVFL2D)
	m, err := c.FitHeldOut(context.Background(), p, Selection{Validation: 0.25, Coverage: 0.8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Interval == nil || m.Interval.Held != 60 || m.Calibration != nil || !(m.Interval.Radius[0] > 0) {
		t.Fatalf("intervals %+v, map %+v", m.Interval, m.Calibration)
	}
}
