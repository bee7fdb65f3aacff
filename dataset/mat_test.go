package dataset

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testdata/digits.mat was written by Octave (testdata/make_mat.m).
const digitsMAT = "testdata/digits.mat"

func TestReadMATLayouts(t *testing.T) {
	for _, x := range []string{"X", "X3", "Xflat", "XT"} {
		rows, cols := 0, 0
		if x == "Xflat" || x == "XT" {
			rows, cols = 4, 3
		}
		s, err := ReadMAT(digitsMAT, x, "ang", true, rows, cols)
		if err != nil {
			t.Fatalf("%s: %v", x, err)
		}
		if s.Len() != 5 || s.Rows != 4 || s.Cols != 3 || s.Chans() != 1 || s.TargetDim != 1 {
			t.Fatalf("%s: %d images %dx%dx%d, target dim %d", x, s.Len(), s.Rows, s.Cols, s.Chans(), s.TargetDim)
		}
		for n := range 5 {
			im := s.Image(n)
			for r := range 4 {
				for c := range 3 {
					want := float32(float64(r+1+10*(c+1)+100*(n+1)) / 1000)
					if got := im[r*3+c]; math.Abs(float64(got-want)) > 1e-7 {
						t.Fatalf("%s: image %d (%d,%d) = %v, want %v", x, n, r, c, got, want)
					}
				}
			}
		}
		if !slices.Equal(s.Targets, []float64{-45, -10, 0, 20, 45}) {
			t.Fatalf("%s: targets %v", x, s.Targets)
		}
	}
}

func TestReadMATLabelsColourTargets(t *testing.T) {
	s, err := ReadMAT(digitsMAT, "X", "lab", false, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Classes, []string{"0", "1", "2", "3"}) || !slices.Equal(s.Labels, []int{3, 1, 2, 3, 0}) {
		t.Fatalf("classes %v labels %v", s.Classes, s.Labels)
	}
	s, err = ReadMAT(digitsMAT, "C", "T2", true, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Chans() != 3 || s.Rows != 2 || s.TargetDim != 2 || !slices.Equal(s.Targets[:4], []float64{-45, -90, -10, -20}) {
		t.Fatalf("colour: %d planes %dx%d, targets %v", s.Chans(), s.Rows, s.Cols, s.Targets)
	}
	// uint8 is scaled to [0, 1]; the set is channels first.
	im := s.Image(1)
	for k := range 3 {
		if want := float32(10*(k+1)+2) / 255; math.Abs(float64(im[k*4]-want)) > 1e-7 {
			t.Fatalf("plane %d: %v, want %v", k, im[k*4], want)
		}
	}
}

func TestReadMATRefusals(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short.mat")
	b, err := os.ReadFile(digitsMAT)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(short, b[:len(b)-50], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, x, y string
		targets    bool
		want       string
	}{
		{digitsMAT, "", "ang", true, "X (4x3x1x5 double)"},
		{digitsMAT, "nope", "ang", true, "no such variable"},
		{digitsMAT, "X", "T2", false, "want a vector"},
		{digitsMAT, "X", "nope", true, "Xflat (5x12 double)"},
		{digitsMAT, "Xflat", "ang", true, "not 3 x 3"},
		{digitsMAT, "T2", "lab", false, "not 1 x 1"},
		{short, "X", "ang", true, "bad MAT-file"},
		{filepath.Join(dir, "none.mat"), "X", "ang", true, "no such file"},
	} {
		_, err := ReadMAT(c.path, c.x, c.y, c.targets, 0, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s %s: %v, want %q", filepath.Base(c.path), c.x, c.y, err, c.want)
		}
	}
	if _, err := ReadMAT(digitsMAT, "X", "ang", true, 5, 5); err == nil {
		t.Error("a 4 x 3 image array read as 5 x 5")
	}
	old := SetMemoryLimit(100)
	defer SetMemoryLimit(old)
	if _, err := ReadMAT(digitsMAT, "X", "ang", true, 0, 0); !errors.Is(err, ErrTooLarge) {
		t.Errorf("memory limit: %v", err)
	}
}

// The paper's data, when at hand (never copied into the repository).
func TestReadMATLABDigits(t *testing.T) {
	p := "../../shared/data/matlab-digits/DigitsDataTrain.mat"
	if _, err := os.Stat(p); err != nil {
		p = "/work/shared/data/matlab-digits/DigitsDataTrain.mat"
		if _, err := os.Stat(p); err != nil {
			t.Skip("matlab-digits not at hand")
		}
	}
	if testing.Short() {
		t.Skip("short")
	}
	s, err := ReadMAT(p, "XTrain", "anglesTrain", true, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 5000 || s.Rows != 28 || s.Cols != 28 || s.TargetDim != 1 {
		t.Fatalf("%d images %dx%d", s.Len(), s.Rows, s.Cols)
	}
	lo, hi := slices.Min(s.Targets), slices.Max(s.Targets)
	if lo != -45 || hi != 45 {
		t.Fatalf("angles %v..%v", lo, hi)
	}
}
