package experiment

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestRotationOnMATLABDigits: with matlab-digits in the data folder, E1
// runs on its MAT-files and says so (testdata/matlab-digits holds a tiny
// stand-in that Octave wrote: bars at angles, make.m).
func TestRotationOnMATLABDigits(t *testing.T) {
	o := Options{DataDir: "testdata", OutDir: t.TempDir(), Quick: true, Seed: 1, Command: "go test"}
	r, err := Run(context.Background(), "rotation", o)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(r.Notes, "\n") + strings.Join(r.Provenance, "\n") + strings.Join(r.Protocol, "\n")
	for _, want := range []string{"The paper's own data", "DigitsDataTrain.mat (XTrain, anglesTrain)", "all 60 training and 40 test images", "No per-digit box plots"} {
		if !strings.Contains(all, want) {
			t.Errorf("the report lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "Substitute data") {
		t.Error("the report says substitute data")
	}
	tab := r.Tables[0]
	if !strings.Contains(tab.Title, "MATLAB's rotated digits") || len(tab.Rows) != 4 {
		t.Fatalf("table %q with %d rows", tab.Title, len(tab.Rows))
	}
	for _, f := range r.Figures {
		if strings.Contains(f.Name, "box") {
			t.Errorf("figure %s: the MAT-files carry no digit labels", f.Name)
		}
	}
	// A data folder with neither set names both.
	_, err = Run(context.Background(), "rotation", Options{DataDir: t.TempDir(), OutDir: t.TempDir(), Quick: true, Seed: 1})
	if !errors.Is(err, ErrMissingData) || !strings.Contains(err.Error(), "matlab-digits") {
		t.Errorf("no data: %v", err)
	}
}
