package scn

import (
	"bytes"
	"context"
	"testing"
)

// TestSelectCalibratesByDefault: a classifier's model selection (hold-out
// and folds) fits a calibration map unless Selection.Uncalibrated; the
// map is the only difference (the model with it stripped is byte for byte
// the uncalibrated one, written as version 1 or 2), and a streamed
// selection fits none.
func TestSelectCalibratesByDefault(t *testing.T) {
	ctx := context.Background()
	for _, pr := range []struct {
		name string
		p    Problem
	}{{"grey", blobProblem(t, 150)}, {"colour", goldenColour(t, 150)}} {
		for _, s := range []Selection{{Validation: 0.25, Points: 6}, {Folds: 3, Points: 6}} {
			c := small(Default(RVFL2D), 30, 10, pr.p)
			m, err := c.Select(ctx, pr.p, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if m.Calibration == nil || m.Calibration.Held < pr.p.X.Len()/5 || m.Calibration.Held > pr.p.X.Len()/3 && s.Folds == 0 || s.Folds > 0 && m.Calibration.Held != pr.p.X.Len() {
				t.Fatalf("%s %+v: calibration %+v, want a map of the held-out images", pr.name, s, m.Calibration)
			}
			if _, err := m.Probabilities(pr.p.X); err != nil {
				t.Errorf("%s %+v: %v", pr.name, s, err)
			}
			off := s
			off.Uncalibrated = true
			u, err := c.Select(ctx, pr.p, off, nil)
			if err != nil {
				t.Fatal(err)
			}
			if u.Calibration != nil {
				t.Fatalf("%s %+v: Uncalibrated gave a map", pr.name, off)
			}
			stripped := *m
			stripped.Calibration = nil
			want, got := modelBytes(t, u), modelBytes(t, &stripped)
			if !bytes.Equal(got, want) {
				t.Errorf("%s %+v: the calibrated model without its map differs from the uncalibrated one", pr.name, s)
			}
			if v := formatVersionOf(want); v == 3 {
				t.Errorf("%s %+v: the uncalibrated model is written as version 3", pr.name, s)
			}
			if v := formatVersionOf(modelBytes(t, m)); v != 3 {
				t.Errorf("%s %+v: the calibrated model is written as version %d, want 3", pr.name, s, v)
			}
		}
	}
	p := blobProblem(t, 150)
	c := small(Default(SCN), 30, 10, p)
	m, err := c.SelectStream(ctx, ProblemSource(p, 60), Selection{Validation: 0.25, Points: 6}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Calibration != nil {
		t.Errorf("a streamed selection has a calibration map")
	}
}

// formatVersionOf returns the format version of a model file's bytes.
func formatVersionOf(file []byte) uint32 {
	if len(file) < 12 {
		return 0
	}
	return uint32(file[8]) | uint32(file[9])<<8 | uint32(file[10])<<16 | uint32(file[11])<<24
}
