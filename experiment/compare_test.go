package experiment

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/scn2d/scn"
	"github.com/scn2d/scn/dataset"
)

// toySet makes n 8 x 8 images of 3 classes: a bright bar in row, column or
// diagonal, plus noise.
func toySet(n int, seed uint64) *dataset.Set {
	rng := rand.New(rand.NewPCG(seed, 9))
	s := &dataset.Set{Rows: 8, Cols: 8, Classes: []string{"row", "col", "diag"}, Source: "toy"}
	for i := 0; i < n; i++ {
		c := i % 3
		k := rng.IntN(8)
		img := make([]float32, 64)
		for j := range img {
			img[j] = float32(0.2 * rng.Float64())
		}
		for j := 0; j < 8; j++ {
			switch c {
			case 0:
				img[k*8+j] = 1
			case 1:
				img[j*8+k] = 1
			case 2:
				img[j*8+j] = 1
			}
		}
		s.Pix = append(s.Pix, img...)
		s.Labels = append(s.Labels, c)
	}
	return s
}

func TestCompare(t *testing.T) {
	train, test := toySet(120, 1), toySet(60, 2)
	o := CompareOptions{Train: train, Test: test, Trials: 2, Seed: 5,
		Config: func(k scn.Kind) scn.Config { c := scn.Paper(k); c.MaxNodes = 20; return c }}
	a, err := Compare(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Rows) != 4 || !a.Classification {
		t.Fatalf("%d rows", len(a.Rows))
	}
	for _, r := range a.Rows {
		for _, st := range []Stat{r.TrainAcc, r.TestAcc} {
			if !(st.Mean >= 0 && st.Mean <= 1) || !(st.Std >= 0) {
				t.Errorf("%s: bad stat %+v", r.Model, st)
			}
		}
		if r.Bytes <= 0 || r.Params <= 0 || r.Trials != 2 {
			t.Errorf("%s: bytes %d params %d trials %d", r.Model, r.Bytes, r.Params, r.Trials)
		}
		if r.TestAcc.Mean < 0.6 {
			t.Errorf("%s: test accuracy %.3f on an easy toy task", r.Model, r.TestAcc.Mean)
		}
	}
	b, err := Compare(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Rows {
		a.Rows[i].FitSeconds, b.Rows[i].FitSeconds = Stat{}, Stat{}
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, different numbers:\n%+v\n%+v", a, b)
	}
	var buf bytes.Buffer
	if err := a.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Count(buf.String(), "\n") != 5 || !strings.Contains(buf.String(), "2DSCN") {
		t.Errorf("table:\n%s", buf.String())
	}
	t.Logf("\n%s", buf.String())
}

func TestCompareRegression(t *testing.T) {
	train, test := toySet(90, 3), toySet(30, 4)
	for _, s := range []*dataset.Set{train, test} {
		for i, l := range s.Labels {
			s.Targets = append(s.Targets, 30*float64(l)+float64(i%5))
		}
		s.TargetDim = 1
		s.Labels, s.Classes = nil, nil
	}
	r, err := Compare(context.Background(), CompareOptions{Train: train, Test: test, Trials: 1, Kinds: []scn.Kind{scn.SCN2D, scn.RVFL},
		Config: func(k scn.Kind) scn.Config { c := scn.Paper(k); c.MaxNodes = 15; return c }})
	if err != nil {
		t.Fatal(err)
	}
	if r.Classification || len(r.Rows) != 2 {
		t.Fatal("regression not recognised")
	}
	for _, row := range r.Rows {
		if !(row.TestRMSE.Mean >= 0) || math.IsNaN(row.TestPPA15.Mean) || row.TestPPA25.Mean < row.TestPPA15.Mean {
			t.Errorf("%+v", row)
		}
	}
}

func TestSizes(t *testing.T) {
	ls := []int{10, 40}
	s := toySet(100, 7)
	s.Rows, s.Cols = 8, 8
	rows, err := measureSizes(context.Background(), s, ls, 1, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]map[int]sizeRow{}
	for _, r := range rows {
		if r.Bytes != r.Expected {
			t.Errorf("%s L=%d: file %d bytes, expected %d", r.Kind, r.L, r.Bytes, r.Expected)
		}
		if r.Params != r.Formula {
			t.Errorf("%s L=%d: %d parameters, formula %d", r.Kind, r.L, r.Params, r.Formula)
		}
		if by[r.Kind] == nil {
			by[r.Kind] = map[int]sizeRow{}
		}
		by[r.Kind][r.L] = r
	}
	// At 28 x 28 the 2D files are far smaller; at 8 x 8 the ratio is
	// (64+1+3)/(16+1+3) = 3.4 on parameters.
	for _, l := range ls {
		ratio := float64(by["SCN"][l].Bytes) / float64(by["2DSCN"][l].Bytes)
		t.Logf("L=%d: SCN/2DSCN bytes ratio %.2f", l, ratio)
		if ratio < 1.5 {
			t.Errorf("L=%d: 1D/2D size ratio %.2f", l, ratio)
		}
	}
}

func TestQuickSize(t *testing.T) {
	r := runQuick(t, "size") // no data needed in quick mode
	for _, k := range []string{"e7/L=200/ratio_scn", "e7/L=200/ratio_rvfl"} {
		if v := r.Values[k]; !(v > 5) {
			t.Errorf("%s = %v, want a 28 x 28 1D/2D ratio well above 5", k, v)
		}
	}
	for _, row := range r.Tables[0].Rows {
		if row[len(row)-1] != "yes" {
			t.Errorf("size mismatch: %v", row)
		}
	}
}
